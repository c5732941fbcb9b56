/*
 * The plug-in's state and what its files share (fabricmanager.c: the engine and OpenSM's events; fm_channel.c: the
 * channel thread; fm_io.c: the socket's reads and writes; fm_inbound.c: what the daemon sends, judged; fm_tables.c: an
 * answer's tables checked and taken; fm_hops.c: OpenSM's hop matrices). The protocol itself is in fm_wire.h.
 *
 * Threads: OpenSM's state manager thread runs the routing pass (fm_build_fwd_tables, fm_build_lid_matrices); OpenSM's
 * other threads report events (fm_report); the channel thread talks with the daemon. The fields marked "lock" are
 * read and written under fm->lock only; those marked "SM" only on the state manager's thread; those marked "SM,
 * lock" are written there under the lock, and read there freely or elsewhere under the lock.
 */
#ifndef FM_PLUGIN_H
#define FM_PLUGIN_H

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
#include "fm_wire.h"

#define FM_ENGINE_NAME "fabric-manager"
#define FM_COUNTER_RECORDS_MAX 131072  /* waiting at once (9.6 MB); more are dropped and counted */
#define FM_COUNTER_RECORDS_FRAME 4096  /* per COUNTERS frame */
/* a routing pass asked by the daemon at most this often: OpenSM's sweeps are not to be driven by a flood */
#define FM_REROUTE_MIN_MS 1000
/* a line that repeats (events dropped, a channel refused again at each reconnection) is told at most this often */
#define FM_REPEAT_LOG_MS 60000
#define FM_EVENT_QUEUE 256
#define FM_DEFAULT_SOCKET "/run/fabric-manager/opensm.sock"
#define FM_DEFAULT_TIMEOUT_MS 5000

struct fm_event {
	uint32_t id;
	uint64_t answered_seq;
	uint64_t detail;
};

/* the tables of the daemon's answer that OpenSM last took: a DELTA answer is applied to them; SM */
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
	pthread_mutex_t lock;
	uint64_t seq;           /* SM, lock: last subnet sent */
	uint64_t answered_seq;  /* SM, lock: last subnet whose tables OpenSM took, 0 when the last pass failed */
	int takeback;           /* lock: the last pass found no daemon: ask for a re-route once it listens again */
	int64_t takeback_at;    /* lock: not before this */
	int takeback_wait_ms;   /* lock: doubles after each take-back that did not end with the daemon's tables */
	/* events, queued by fm_report and sent by the channel thread; lock */
	struct fm_event queue[FM_EVENT_QUEUE];
	unsigned head, count;
	uint64_t dropped;       /* events the full queue dropped so far: in every keepalive */
	/* LFT blocks OpenSM set since the last LFT_CHANGE forwarded, and when the first and last were set; lock */
	uint32_t lft_blocks;
	int64_t lft_first_ms, lft_last_ms;
	/* the last SET frame made and not sent yet (a newer one replaces it); lock */
	uint8_t *set_frame;
	size_t set_len;
	/* the daemon asked for a routing pass: done by the channel thread, not before reroute_at; lock */
	int reroute_wanted;
	uint64_t reroute_request;
	int64_t reroute_at;
	/* port counters' changes as OpenSM's performance manager reports them, waiting for the channel thread; lock */
	struct fm_buf counters;
	uint32_t counter_records;
	uint64_t counters_dropped;
	struct fm_held held;    /* SM: the tables of the daemon's answer last taken */
	struct fm_hops *hops;   /* SM: the hop matrices' state kept from the last pass */
	int wake_fd;            /* eventfd: fm_report wakes the channel thread without blocking */
	int stopping;           /* lock */
	pthread_t channel;
	int channel_started;
};

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

/*
 * What a routing pass came to. Each failure has its numbered line in OpenSM's log (fm_outcome_info; the codes are
 * listed in docs/opensm.md) and says whether the plug-in takes the routing back once the daemon listens again.
 */
enum fm_outcome {
	FM_ROUTED,              /* the daemon's tables are OpenSM's */
	FM_ABSENT,              /* nothing listens on the socket */
	FM_CLOSED,              /* the daemon closed the connection without a byte of answer */
	FM_MOVING,              /* REFUSED MOVING */
	FM_NOT_READY,           /* REFUSED NOT_READY */
	FM_INVALID,             /* REFUSED INVALID */
	FM_TOO_LARGE,           /* REFUSED TOO_LARGE */
	FM_UNKNOWN_CODE,        /* REFUSED with a code this release does not know */
	FM_LATE,                /* no whole answer within fm.timeout_ms */
	FM_MALFORMED,           /* not an answer of this protocol */
	FM_UNFIT,               /* tables that do not fit OpenSM's subnet: nothing written */
	FM_NO_MEMORY,
	FM_SOCKET_ERROR,        /* the socket failed otherwise (its permissions, ...) */
	FM_OUTCOMES
};

struct fm_outcome_info {
	const char *err;        /* OpenSM's style: "ERR FA01" */
	const char *what;
	int takeback;           /* the plug-in waits for the daemon to listen, then asks OpenSM to re-route */
	const char *until;      /* until when OpenSM routes with its next engine */
};

/* a routing pass's failure, for OpenSM's log */
struct fm_verdict {
	const char *why;        /* what the plug-in found, or NULL */
	unsigned code;          /* a REFUSED's code */
	char reason[FM_MAX_REASON + 1]; /* a REFUSED's reason (or the socket's error), safe for the log */
};

const struct fm_outcome_info *fm_outcome_info(enum fm_outcome outcome);

/* fm_inbound.c: what the daemon sends, judged (no I/O) */
void fm_answer_limits(struct fm_plugin *fm, struct fm_reader *r);
/* a pass's answer the reader did not take (st: FM_READ_FOREIGN ... FM_READ_NO_MEMORY) */
enum fm_outcome fm_answer_unread(enum fm_read st, const struct fm_reader *r, struct fm_verdict *v);
/* a pass's whole answer: a refusal, or tables written to OpenSM's new_lft once checked whole */
enum fm_outcome fm_answer_take(struct fm_plugin *fm, const struct fm_reader *r, struct fm_verdict *v);
enum fm_channel_frame {
	FM_CHANNEL_TAKEN,       /* a REROUTE, recorded for the channel thread */
	FM_CHANNEL_REFUSED,     /* the daemon refused a frame of the channel, and closes it */
	FM_CHANNEL_MALFORMED
};
void fm_channel_limits(struct fm_reader *r);
void fm_channel_unread(enum fm_read st, struct fm_verdict *v);
enum fm_channel_frame fm_channel_take(struct fm_plugin *fm, const struct fm_reader *r, struct fm_verdict *v);

/* fm_io.c */
enum fm_io {
	FM_IO_DONE,             /* all sent, or a whole frame read */
	FM_IO_ANSWERED,         /* sending stopped: the daemon answered or closed before reading it all */
	FM_IO_CLOSED,           /* closed before a byte of the frame */
	FM_IO_CUT,              /* closed within the frame */
	FM_IO_BAD,              /* the reader refused the frame's header */
	FM_IO_LATE,             /* the deadline passed */
	FM_IO_ERROR
};
/* a connection, or -1 with errno in *err */
int fm_connect(const char *path, int *err);
/* connect's errno says the daemon is away, not that the socket is unusable (its permissions, a path too long) */
int fm_absent(int err);
int fm_write_all(int fd, const uint8_t *p, size_t n, int64_t deadline);
enum fm_io fm_send_subnet(int fd, const uint8_t *p, size_t n, int64_t deadline, int *err);
/* reads into r until a whole frame, or the deadline (0: only what is there now) */
enum fm_io fm_read_frame(int fd, struct fm_reader *r, int64_t deadline, enum fm_read *st, int *err);

/* fm_tables.c: an answer's tables checked whole, then written to OpenSM's new_lft */
enum fm_take {
	FM_TAKEN,
	FM_TAKE_UNFIT,          /* *why says what does not fit OpenSM's subnet */
	FM_TAKE_NO_MEMORY
};
enum fm_take fm_tables_take(struct fm_plugin *fm, uint8_t type, const uint8_t *p, size_t len, const char **why);
uint64_t fm_tables_bound(struct fm_plugin *fm);
void fm_tables_free(struct fm_plugin *fm);

/* fm_hops.c */
int fm_build_lid_matrices(void *context);
void fm_hops_free(struct fm_plugin *fm);

/* fm_channel.c */
void *fm_channel_main(void *arg);
/* wakes the channel thread; never blocks */
void fm_wake(struct fm_plugin *fm);
/* OpenSM is asked for a routing pass, as its console's "reroute" does */
void fm_ask_reroute(struct fm_plugin *fm);

#endif
