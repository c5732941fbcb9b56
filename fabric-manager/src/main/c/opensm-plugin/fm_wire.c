/*
 * The plug-in's protocol: frames encoded for the daemon and decoded from it (fm_wire.h). Big-endian throughout.
 */
#include <stdlib.h>
#include <string.h>
#include "fm_wire.h"

static void need(struct fm_buf *b, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (b->failed || b->len + more <= b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = 1;
		return;
	}
	b->data = p;
	b->cap = cap;
}

static void put_bytes(struct fm_buf *b, const void *p, size_t n)
{
	need(b, n);
	if (!b->failed && n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}

void fm_put_u8(struct fm_buf *b, uint8_t v)
{
	put_bytes(b, &v, 1);
}

void fm_put_u16(struct fm_buf *b, uint16_t v)
{
	uint8_t p[2] = { v >> 8, v & 0xff };

	put_bytes(b, p, 2);
}

void fm_put_u32(struct fm_buf *b, uint32_t v)
{
	fm_put_u16(b, v >> 16);
	fm_put_u16(b, v & 0xffff);
}

void fm_put_u64(struct fm_buf *b, uint64_t v)
{
	fm_put_u32(b, v >> 32);
	fm_put_u32(b, v & 0xffffffffu);
}

void fm_patch_u32(struct fm_buf *b, size_t at, uint32_t v)
{
	if (b->failed || at + 4 > b->len)
		return;
	b->data[at] = v >> 24;
	b->data[at + 1] = v >> 16 & 0xff;
	b->data[at + 2] = v >> 8 & 0xff;
	b->data[at + 3] = v & 0xff;
}

void fm_put_header(struct fm_buf *b, uint8_t type, uint32_t payload)
{
	fm_put_u32(b, FM_MAGIC);
	fm_put_u8(b, FM_WIRE_VERSION);
	fm_put_u8(b, type);
	fm_put_u16(b, 0);
	fm_put_u32(b, payload);
}

void fm_end_frame(struct fm_buf *b, size_t frame_at)
{
	fm_patch_u32(b, frame_at + 8, (uint32_t) (b->len - frame_at - FM_HEADER));
}

int fm_utf8_char(const uint8_t *p, size_t left, int *cut)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
	int more, i;

	*cut = 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		more = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		more = 2;
		if (c == 0xe0)
			lo = 0xa0;      /* no overlong form */
		else if (c == 0xed)
			hi = 0x9f;      /* no surrogate */
	} else if (c >= 0xf0 && c <= 0xf4) {
		more = 3;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;      /* nothing above U+10FFFF */
	} else {
		return -1;
	}
	for (i = 1; i <= more; i++) {
		if ((size_t) i >= left) {
			*cut = 1;
			return -i;
		}
		if (p[i] < lo || p[i] > hi)
			return -i;
		lo = 0x80;
		hi = 0xbf;
	}
	return more + 1;
}

/*
 * Copies the valid UTF-8 of s[0..n) into out (at most cap bytes, never cutting a character), each invalid sequence
 * as '?', and each control character too when controls is set; a character cut by the end of s is left out.
 * Returns the bytes written.
 */
static size_t clean_utf8(uint8_t *out, size_t cap, const uint8_t *s, size_t n, int controls)
{
	size_t i = 0, o = 0;
	int k, cut;

	while (i < n) {
		k = fm_utf8_char(s + i, n - i, &cut);
		if (k < 0 && cut)
			break;
		if (k < 0 || (controls && k == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
			if (o + 1 > cap)
				break;
			out[o++] = '?';
			i += (size_t) (k < 0 ? -k : 1);
			continue;
		}
		if (o + (size_t) k > cap)
			break;
		memcpy(out + o, s + i, (size_t) k);
		o += (size_t) k;
		i += (size_t) k;
	}
	return o;
}

void fm_put_name(struct fm_buf *b, const char *s, size_t n)
{
	uint8_t name[FM_MAX_NAME];
	size_t len = s ? clean_utf8(name, sizeof(name), (const uint8_t *) s, n, 0) : 0;

	fm_put_u8(b, (uint8_t) len);
	put_bytes(b, name, len);
}

void fm_put_channel(struct fm_buf *b, const struct fm_keepalive *k)
{
	fm_put_header(b, FM_CHANNEL, FM_CHANNEL_BYTES);
	fm_put_u64(b, k->answered_seq);
	fm_put_u64(b, k->events_dropped);
	fm_put_u32(b, k->mads_sent);
	fm_put_u32(b, k->mads_received);
	fm_put_u32(b, k->mads_outstanding);
	fm_put_u8(b, k->sm_state);
}

void fm_reader_next(struct fm_reader *r, uint8_t **at, size_t *n)
{
	if (r->have < FM_HEADER) {
		*at = r->head + r->have;
		*n = FM_HEADER - r->have;
	} else {
		*at = r->payload + (r->have - FM_HEADER);
		*n = r->length - (r->have - FM_HEADER);
	}
}

enum fm_read fm_reader_got(struct fm_reader *r, size_t n)
{
	int header = r->have < FM_HEADER;

	r->have += n;
	if (header && r->have == FM_HEADER) {
		if (fm_get_u32(r->head) != FM_MAGIC || r->head[4] != FM_WIRE_VERSION)
			return FM_READ_FOREIGN;
		r->type = r->head[5];
		r->length = fm_get_u32(r->head + 8);
		if (r->type >= FM_TYPES || !r->limit[r->type])
			return FM_READ_UNEXPECTED;
		if (r->length > r->limit[r->type])
			return FM_READ_TOO_LONG;
		r->payload = malloc(r->length ? r->length : 1);
		if (!r->payload)
			return FM_READ_NO_MEMORY;
	}
	return r->have >= FM_HEADER && r->have - FM_HEADER == r->length ? FM_READ_FRAME : FM_READ_MORE;
}

void fm_reader_reset(struct fm_reader *r)
{
	free(r->payload);
	r->payload = NULL;
	r->have = 0;
	r->length = 0;
	r->type = 0;
}

int fm_decode_refused(const uint8_t *p, size_t len, struct fm_refusal_frame *f)
{
	if (len < FM_REFUSED_HEAD || len > FM_REFUSED_HEAD + FM_MAX_REASON)
		return -1;
	f->seq = fm_get_u64(p);
	f->code = fm_get_u16(p + 8);
	f->reason = p + FM_REFUSED_HEAD;
	f->reason_len = len - FM_REFUSED_HEAD;
	return 0;
}

int fm_decode_reroute(const uint8_t *p, size_t len, uint64_t *request)
{
	if (len != 8)
		return -1;
	*request = fm_get_u64(p);
	return 0;
}

const char *fm_refusal_name(unsigned code)
{
	switch (code) {
	case FM_REFUSAL_MOVING:
		return "MOVING";
	case FM_REFUSAL_NOT_READY:
		return "NOT_READY";
	case FM_REFUSAL_INVALID:
		return "INVALID";
	case FM_REFUSAL_TOO_LARGE:
		return "TOO_LARGE";
	default:
		return "unknown";
	}
}

void fm_log_text(char *out, size_t out_len, const uint8_t *reason, size_t len)
{
	size_t n;

	if (!out_len)
		return;
	n = clean_utf8((uint8_t *) out, out_len - 1, reason, len, 1);
	out[n] = '\0';
}
