#include "fuzz_common.h"

static const uint64_t guids[FAKE_SWITCHES] = { 0x0002c90300001111ull, 0x0002c90300002222ull, 0x0002c90300003333ull };
static const uint8_t ports[FAKE_SWITCHES] = { 5, 9, 37 };

struct fm_plugin *fake_plugin(void)
{
	static struct fm_plugin fm;
	static osm_switch_t sw[FAKE_SWITCHES];
	static uint8_t lfts[FAKE_SWITCHES][FAKE_MAX_LID + 1];
	int i;

	if (fm.osm)
		return &fm;
	fm.osm = calloc(1, sizeof(*fm.osm));
	expect(fm.osm != NULL, "memory for OpenSM's state");
	cl_qmap_init(&fm.osm->subn.sw_guid_tbl);
	for (i = 0; i < FAKE_SWITCHES; i++) {
		sw[i].max_lid_ho = FAKE_MAX_LID;
		sw[i].num_ports = ports[i];
		sw[i].new_lft = lfts[i];
		sw[i].lft_size = sizeof(lfts[i]);
		cl_qmap_insert(&fm.osm->subn.sw_guid_tbl, cl_hton64(guids[i]), &sw[i].map_item);
	}
	pthread_mutex_init(&fm.lock, NULL);
	fm.seq = FAKE_SEQ;
	fm.wake_fd = -1;
	return &fm;
}

size_t fake_piece(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return (*s & 7) == 0 ? 1 + (*s >> 8) % 4096 : 1 + (*s >> 8) % 7;
}

enum fm_read fake_feed(struct fm_reader *r, const uint8_t *data, size_t n, uint32_t *s, size_t *used)
{
	enum fm_read st = FM_READ_MORE;
	uint8_t *at;
	size_t want, k;

	*used = 0;
	while (st == FM_READ_MORE && *used < n) {
		fm_reader_next(r, &at, &want);
		expect(want > 0, "a reader that is not whole wants bytes");
		k = fake_piece(s);
		if (k > want)
			k = want;
		if (k > n - *used)
			k = n - *used;
		memcpy(at, data + *used, k);
		*used += k;
		st = fm_reader_got(r, k);
	}
	return st;
}

int valid_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0, len, k;
	uint32_t cp;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((p[i] & 0xe0) == 0xc0) {
			len = 2;
			cp = p[i] & 0x1f;
		} else if ((p[i] & 0xf0) == 0xe0) {
			len = 3;
			cp = p[i] & 0x0f;
		} else if ((p[i] & 0xf8) == 0xf0) {
			len = 4;
			cp = p[i] & 0x07;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff
		    || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz: expected %s\n", what);
		abort();
	}
}
