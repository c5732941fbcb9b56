/*
 * What the files of libfabricmanager.so share (fabricmanager.c: the engine, the exchange and the channel;
 * fm_tables.c: an answer's tables checked and taken; fm_hops.c: OpenSM's hop matrices).
 */
#ifndef FABRICMANAGER_H
#define FABRICMANAGER_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <opensm/osm_config.h>
#include <opensm/osm_version.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_log.h>

#define FM_ENGINE_NAME "fabric-manager"
#define FM_MAGIC 0x464D4F53u /* "FMOS" */
#define FM_WIRE_VERSION 3
#define FM_SUBNET 1
#define FM_TABLES 2
#define FM_REFUSED 3
#define FM_EVENT 4
#define FM_CHANNEL 5    /* plug-in to daemon: this connection is the channel; sent again as a keepalive */
#define FM_REROUTE 6    /* daemon to plug-in: it has tables OpenSM has not installed */
#define FM_SET 7        /* plug-in to daemon: the switches whose tables equal the answer, once OpenSM set them */
#define FM_COUNTERS 8   /* plug-in to daemon: port counters' changes read by OpenSM's performance manager */
#define FM_DELTA 9      /* daemon to plug-in: an answer as the entries that differ from the tables the plug-in holds */
/* one port's changes: node GUID, port, then rx/tx packets, rx/tx bytes, rx/tx errors, rx/tx drops (u64 each) */
#define FM_COUNTER_RECORD (8 + 1 + 8 * 8)
#define FM_COUNTER_RECORDS_MAX 131072  /* waiting at once (9.6 MB); more are dropped and counted */
#define FM_COUNTER_RECORDS_FRAME 4096  /* per COUNTERS frame */
#define FM_KEEPALIVE_MS 10000
/* a routing pass asked by the daemon at most this often: OpenSM's sweeps are not to be driven by a flood */
#define FM_REROUTE_MIN_MS 1000
#define FM_HEADER 12
#define FM_MAX_REASON 1024
#define FM_EVENT_QUEUE 256
#define FM_DEFAULT_SOCKET "/run/fabric-manager/opensm.sock"
#define FM_DEFAULT_TIMEOUT_MS 5000
#define FM_NOT_LISTENING "daemon not listening"
/* the connection closed before an answer: a daemon stopping, or a standby releasing the socket to its manager */
#define FM_CLOSED "daemon closed the connection without answering"
/* a hot standby's refusal while the leadership moves to it: its socket is unbound until its manager binds it */
#define FM_MOVING "leadership is moving here"

struct fm_event {
	uint32_t id;
	uint64_t answered_seq;
	uint64_t detail;
};

/* a growable output buffer; a failed allocation marks it failed and later writes do nothing */
struct fm_buf {
	uint8_t *data;
	size_t len, cap;
	int failed;
};

/* the tables of the daemon's answer that OpenSM last took: a DELTA answer is applied to them */
struct fm_held {
	uint64_t id;            /* the daemon's id of that answer, 0 for none */
	uint32_t count;         /* switches */
	uint32_t entries;       /* LIDs per switch, 0 up */
	uint64_t *guids;        /* ascending */
	uint8_t *rows;          /* count x entries, in the order of guids */
	uint8_t *spare;         /* the next answer's tables are composed here, then swapped with rows */
	size_t rows_cap, spare_cap;
	uint32_t guids_cap;
	int delta;              /* the last answer taken was a DELTA */
	uint64_t changed;       /* entries it carried */
};

struct fm_hops;

struct fm_plugin {
	osm_opensm_t *osm;
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int timeout_ms;
	uint64_t seq;           /* last subnet sent; written on the SM thread only */
	uint64_t answered_seq;  /* last subnet whose tables OpenSM took, 0 when the last pass failed */
	int takeback;           /* the last pass found no daemon: ask for a re-route once it listens again */
	int64_t takeback_at;    /* not before this (sender thread's clock) */
	int takeback_wait_ms;   /* doubles after each take-back that did not end with the daemon's tables */
	/* events, queued by report() and sent by the sender thread */
	pthread_mutex_t lock;
	struct fm_event queue[FM_EVENT_QUEUE];
	unsigned head, count, dropped;
	/* LFT blocks OpenSM set since the last LFT_CHANGE forwarded, and when the first and last were set */
	uint32_t lft_blocks;
	int64_t lft_first_ms, lft_last_ms;
	/* the last SET frame made and not sent yet (a newer one replaces it), owned under lock */
	uint8_t *set_frame;
	size_t set_len;
	/* the daemon asked for a routing pass: done by the channel thread, not before reroute_at */
	int reroute_wanted;
	uint64_t reroute_request;
	int64_t reroute_at;
	/* port counters' changes as OpenSM's performance manager reports them, waiting for the channel thread */
	struct fm_buf counters;
	uint32_t counter_records;
	uint64_t counters_dropped;
	struct fm_held held;    /* the tables of the daemon's answer last taken, SM thread only */
	struct fm_hops *hops;   /* the hop matrices' state kept from the last pass, SM thread only */
	int wake_fd;            /* eventfd: report() wakes the channel thread without blocking */
	int stopping;
	pthread_t sender;
	int sender_started;
};

static inline void buf_need(struct fm_buf *b, size_t more)
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

static inline void put_u8(struct fm_buf *b, uint8_t v)
{
	buf_need(b, 1);
	if (!b->failed)
		b->data[b->len++] = v;
}

static inline void put_u16(struct fm_buf *b, uint16_t v)
{
	put_u8(b, v >> 8);
	put_u8(b, v & 0xff);
}

static inline void put_u32(struct fm_buf *b, uint32_t v)
{
	put_u16(b, v >> 16);
	put_u16(b, v & 0xffff);
}

static inline void put_u64(struct fm_buf *b, uint64_t v)
{
	put_u32(b, v >> 32);
	put_u32(b, v & 0xffffffffu);
}

static inline void put_name(struct fm_buf *b, const char *name)
{
	size_t n = name ? strnlen(name, 64) : 0;

	put_u8(b, (uint8_t) n);
	buf_need(b, n);
	if (!b->failed && n) {
		memcpy(b->data + b->len, name, n);
		b->len += n;
	}
}

static inline uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] << 8 | p[1]);
}

static inline uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t) get_u16(p) << 16 | get_u16(p + 2);
}

static inline uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t) get_u32(p) << 32 | get_u32(p + 4);
}

/* this thread's CPU time: beside the wall time, it shows how long OpenSM's thread waited for a core */
static inline int64_t cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


static inline void put_header(struct fm_buf *b, uint8_t type, uint32_t payload)
{
	put_u32(b, FM_MAGIC);
	put_u8(b, FM_WIRE_VERSION);
	put_u8(b, type);
	put_u16(b, 0);
	put_u32(b, payload);
}

/* fm_tables.c */
const char *fm_tables_take(struct fm_plugin *fm, uint8_t type, const uint8_t *p, size_t len);
uint64_t fm_tables_bound(struct fm_plugin *fm);
void fm_tables_free(struct fm_plugin *fm);

/* fm_hops.c */
int fm_build_lid_matrices(void *context);
void fm_hops_free(struct fm_plugin *fm);

#endif
