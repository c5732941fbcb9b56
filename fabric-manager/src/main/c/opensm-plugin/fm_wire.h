/*
 * The plug-in's protocol with the daemon, as the daemon's OpenSmWire has it (docs/opensm.md, "The plug-in's
 * protocol"): constants, the frames' layout, encoding and decoding. Plain C with no OpenSM type, so that what the
 * daemon sends can be decoded by a fuzz target (fuzz.sh) as by the plug-in.
 */
#ifndef FM_WIRE_H
#define FM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define FM_MAGIC 0x464D4F53u /* "FMOS" */
#define FM_WIRE_VERSION 4
#define FM_SUBNET 1     /* plug-in to daemon, one per connection: OpenSM's subnet to route */
#define FM_TABLES 2     /* the answer: every switch's LFT by LID */
#define FM_REFUSED 3    /* the answer, or about a channel frame: a code (enum fm_refusal) and a reason */
#define FM_EVENT 4      /* plug-in to daemon on the channel: one of OpenSM's events */
#define FM_CHANNEL 5    /* plug-in to daemon: this connection is the channel; sent again as the keepalive */
#define FM_REROUTE 6    /* daemon to plug-in: it has tables OpenSM has not installed */
#define FM_SET 7        /* plug-in to daemon: the switches whose tables equal the answer, once OpenSM set them */
#define FM_COUNTERS 8   /* plug-in to daemon: port counters' changes read by OpenSM's performance manager */
#define FM_DELTA 9      /* the answer as the entries that differ from the tables the plug-in holds */
/* SUBNET with each CA port's LMC (u8) after its LID: sent when a port has LMC > 0, which a daemon of an earlier
 * release refuses (REFUSED INVALID: an unknown type) rather than leave the extra LIDs unrouted */
#define FM_SUBNET_LMC 10
#define FM_TYPES 11
#define FM_HEADER 12
/* one port's changes: node GUID, port, then rx/tx packets, rx/tx bytes, rx/tx errors, rx/tx drops (u64 each) */
#define FM_COUNTER_RECORD (8 + 1 + 8 * 8)
#define FM_EVENT_BYTES 20
/* answered sequence, events dropped, qp0 MADs sent, received and outstanding, SM state */
#define FM_CHANNEL_BYTES (8 + 8 + 4 + 4 + 4 + 1)
#define FM_KEEPALIVE_MS 5000
#define FM_REFUSED_HEAD (8 + 2)
#define FM_MAX_REASON 1000
#define FM_MAX_NAME 64

/* a REFUSED frame's code: the plug-in acts on it alone, never on the reason */
enum fm_refusal {
	FM_REFUSAL_MOVING = 1,          /* a hot standby takes the leadership over: wait for its socket */
	FM_REFUSAL_NOT_READY = 2,       /* no tables now: the daemon asks for a pass once it has them */
	FM_REFUSAL_INVALID = 3,         /* the subnet cannot be taken as sent */
	FM_REFUSAL_TOO_LARGE = 4        /* above opensm.maxSubnetBytes, refused before its payload was read */
};

/* a growable output buffer; a failed allocation marks it failed and later writes do nothing */
struct fm_buf {
	uint8_t *data;
	size_t len, cap;
	int failed;
};

void fm_put_u8(struct fm_buf *b, uint8_t v);
void fm_put_u16(struct fm_buf *b, uint16_t v);
void fm_put_u32(struct fm_buf *b, uint32_t v);
void fm_put_u64(struct fm_buf *b, uint64_t v);
/* writes v at offset at of what b holds already (a count known only at the end) */
void fm_patch_u32(struct fm_buf *b, size_t at, uint32_t v);
/* a header whose payload length is set by fm_end_frame once the payload is written */
void fm_put_header(struct fm_buf *b, uint8_t type, uint32_t payload);
void fm_end_frame(struct fm_buf *b, size_t frame_at);
/*
 * A name (u8 length, bytes): the longest prefix of s[0..n) that fits FM_MAX_NAME bytes without cutting a character,
 * each invalid UTF-8 sequence as '?', so that the name is always valid UTF-8. A character cut by the end of s (a
 * NodeDescription a device cut inside one at 64 bytes) is left out, as one cut here.
 */
void fm_put_name(struct fm_buf *b, const char *s, size_t n);

static inline uint16_t fm_get_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] << 8 | p[1]);
}

static inline uint32_t fm_get_u32(const uint8_t *p)
{
	return (uint32_t) fm_get_u16(p) << 16 | fm_get_u16(p + 2);
}

static inline uint64_t fm_get_u64(const uint8_t *p)
{
	return (uint64_t) fm_get_u32(p) << 32 | fm_get_u32(p + 4);
}

/*
 * The length in bytes of the UTF-8 character at p (left bytes there, at least 1) when it is well formed (Unicode's
 * table 3-7: no overlong form, no surrogate, nothing above U+10FFFF), else minus the length of its maximal ill-formed
 * part (1 or more), which one replacement stands for; *cut tells that the end of the bytes cut it.
 */
int fm_utf8_char(const uint8_t *p, size_t left, int *cut);

/* what the channel's keepalive carries */
struct fm_keepalive {
	uint64_t answered_seq;  /* the last subnet answered with the daemon's tables */
	uint64_t events_dropped;
	uint32_t mads_sent, mads_received, mads_outstanding;
	uint8_t sm_state;
};

void fm_put_channel(struct fm_buf *b, const struct fm_keepalive *k);

/*
 * A frame read in pieces, as a socket gives them: fm_reader_next says where the next bytes go and how many at most,
 * fm_reader_got takes the count that came. The header is checked as soon as it is whole, so that the payload is
 * allocated only for a type taken here and within its limit.
 */
struct fm_reader {
	uint32_t limit[FM_TYPES];       /* the most payload bytes taken per type; 0: not taken */
	uint8_t head[FM_HEADER];
	uint8_t type;
	uint32_t length;                /* the payload's, once the header is whole */
	uint8_t *payload;
	size_t have;                    /* bytes of the frame so far, header included */
};

enum fm_read {
	FM_READ_MORE,                   /* not whole yet */
	FM_READ_FRAME,                  /* a whole frame: type, length, payload */
	FM_READ_FOREIGN,                /* not this protocol, or another version of it */
	FM_READ_UNEXPECTED,             /* a type not taken here */
	FM_READ_TOO_LONG,               /* a length above its type's limit */
	FM_READ_NO_MEMORY
};

void fm_reader_next(struct fm_reader *r, uint8_t **at, size_t *n);
enum fm_read fm_reader_got(struct fm_reader *r, size_t n);
/* ready for the next frame (limits kept) */
void fm_reader_reset(struct fm_reader *r);

/* a REFUSED's payload */
struct fm_refusal_frame {
	uint64_t seq;
	uint16_t code;
	const uint8_t *reason;
	size_t reason_len;
};

/* 0 when p holds a REFUSED's payload, -1 when too short or its reason too long */
int fm_decode_refused(const uint8_t *p, size_t len, struct fm_refusal_frame *f);
/* 0 when p holds a REROUTE's payload (its request number), else -1 */
int fm_decode_reroute(const uint8_t *p, size_t len, uint64_t *request);
/* the name of a refusal's code, "unknown" for a code this release does not know */
const char *fm_refusal_name(unsigned code);
/* reason as a C string for a log line: each control character and invalid UTF-8 sequence as '?', cut to fit out */
void fm_log_text(char *out, size_t out_len, const uint8_t *reason, size_t len);

#endif
