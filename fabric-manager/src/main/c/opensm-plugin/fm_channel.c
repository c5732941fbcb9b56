/*
 * The channel thread: one connection to the daemon, opened as soon as it listens (again every second while it does
 * not), named by a CHANNEL frame and kept alive by one every FM_KEEPALIVE_MS carrying what the daemon judges OpenSM's
 * health by (fm_keepalive). It sends the queued events, SET and COUNTERS frames, reads the daemon's REROUTE requests
 * and refusals, and asks OpenSM to re-route for a REROUTE (at most every FM_REROUTE_MIN_MS) and for a daemon that
 * listens again after a pass found none. Nothing here waits on OpenSM's lock: a stuck OpenSM is what the keepalive
 * is to show.
 */
#include "fm_plugin.h"

void fm_wake(struct fm_plugin *fm)
{
	uint64_t one = 1;

	if (fm->wake_fd >= 0 && write(fm->wake_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: a wake-up is pending already */
	}
}

void fm_ask_reroute(struct fm_plugin *fm)
{
	/* as OpenSM's console does it, from its own thread */
	fm->osm->subn.force_reroute = TRUE;
	osm_sm_sweep(&fm->osm->sm);
}

/*
 * The last routing pass found no daemon, or a hot standby that unbinds its socket while the leadership moves to it,
 * and a fallback engine routes: once the daemon listens again (a connection opens; it is closed at once, before any
 * frame), OpenSM is asked to re-route, so the daemon's tables come back without waiting for a fabric change.
 */
static void take_back(struct fm_plugin *fm)
{
	int err, probe = fm_connect(fm->socket_path, &err);
	int ask;

	if (probe < 0)
		return;
	close(probe);
	pthread_mutex_lock(&fm->lock);
	ask = fm->takeback && !fm->stopping;
	fm->takeback = 0;
	if (ask) {
		/* a daemon that accepts but then is not there at the pass (its backlog full, a restart loop)
		 * is not asked again at once: 1 s, 2 s, 4 s ... 60 s, until a pass takes its tables */
		fm->takeback_wait_ms = fm->takeback_wait_ms ? fm->takeback_wait_ms * 2 : 1000;
		if (fm->takeback_wait_ms > 60000)
			fm->takeback_wait_ms = 60000;
		fm->takeback_at = now_ms() + fm->takeback_wait_ms;
	}
	pthread_mutex_unlock(&fm->lock);
	if (ask) {
		osm_log(&fm->osm->log, OSM_LOG_INFO,
			"fabric-manager: the daemon listens again on %s; asking OpenSM to re-route\n",
			fm->socket_path);
		fm_ask_reroute(fm);
	}
}

/* the daemon asked for a routing pass and its time has come */
static void reroute(struct fm_plugin *fm)
{
	uint64_t request;

	pthread_mutex_lock(&fm->lock);
	request = fm->reroute_request;
	fm->reroute_wanted = 0;
	fm->reroute_at = now_ms() + FM_REROUTE_MIN_MS;
	pthread_mutex_unlock(&fm->lock);
	osm_log(&fm->osm->log, OSM_LOG_INFO,
		"fabric-manager: the daemon asks for a routing pass (request %llu: tables OpenSM has not installed, or "
		"no subnet since its start); asking OpenSM to re-route\n", (unsigned long long) request);
	fm_ask_reroute(fm);
}

/*
 * The keepalive. OpenSM's counters and SM state are read without its lock, which a stuck OpenSM may hold: its
 * counters are atomic32_t, and a byte read whole is the SM state before or after a change, either of them true.
 */
static int send_channel(struct fm_plugin *fm, int fd, struct fm_buf *b)
{
	struct fm_keepalive k;
	osm_stats_t *stats = &fm->osm->stats;

	pthread_mutex_lock(&fm->lock);
	k.answered_seq = fm->answered_seq;
	k.events_dropped = fm->dropped;
	pthread_mutex_unlock(&fm->lock);
	k.mads_sent = (uint32_t) __atomic_load_n(&stats->qp0_mads_sent, __ATOMIC_RELAXED);
	k.mads_received = (uint32_t) __atomic_load_n(&stats->qp0_mads_rcvd, __ATOMIC_RELAXED);
	k.mads_outstanding = (uint32_t) __atomic_load_n(&stats->qp0_mads_outstanding, __ATOMIC_RELAXED);
	k.sm_state = __atomic_load_n(&fm->osm->subn.sm_state, __ATOMIC_RELAXED);
	b->len = 0;
	fm_put_channel(b, &k);
	return b->failed || fm_write_all(fd, b->data, b->len, now_ms() + 1000);
}

/* a line told at most every FM_REPEAT_LOG_MS, and how many times it was not since */
struct repeat {
	int64_t at;
	unsigned untold;
};

/* whether to tell it now; then *untold says how many times it was not since */
static int tell(struct repeat *r, unsigned *untold)
{
	int64_t now = now_ms();

	if (now < r->at) {
		r->untold++;
		return 0;
	}
	*untold = r->untold;
	r->untold = 0;
	r->at = now + FM_REPEAT_LOG_MS;
	return 1;
}

/* how the channel's trouble was told: a refusal (FA0D), a frame not understood (FA0E) */
struct channel_lines {
	struct repeat refused, unread;
};

/*
 * What the daemon sent on the channel, read as it comes; 0, or -1 when the channel is to close. A daemon that
 * refuses a frame at every reconnection (a COUNTERS frame above its opensm.maxSubnetBytes) is told once a minute.
 */
static int read_daemon(struct fm_plugin *fm, int fd, struct fm_reader *in, struct channel_lines *told)
{
	struct fm_verdict v = { 0 };
	enum fm_read st = FM_READ_MORE;
	unsigned untold;
	int err = 0;

	for (;;) {
		switch (fm_read_frame(fd, in, 0, &st, &err)) {
		case FM_IO_LATE:
			return 0;       /* all read that was there */
		case FM_IO_DONE:
			switch (fm_channel_take(fm, in, &v)) {
			case FM_CHANNEL_TAKEN:
				fm_reader_reset(in);
				continue;
			case FM_CHANNEL_REFUSED:
				if (tell(&told->refused, &untold))
					osm_log(&fm->osm->log, OSM_LOG_ERROR, "fabric-manager: ERR FA0D: %s (code %u %s): %s; "
						"reconnecting in 1 s (%u more since last told)\n", v.why, v.code,
						fm_refusal_name(v.code), v.reason, untold);
				return -1;
			default:
				break;
			}
			break;
		case FM_IO_BAD:
			fm_channel_unread(st, &v);
			break;
		default:
			return -1;      /* closed or failed: the daemon away, or a newer channel replaced this one */
		}
		if (tell(&told->unread, &untold))
			osm_log(&fm->osm->log, OSM_LOG_ERROR, "fabric-manager: ERR FA0E: the daemon sent %s on the channel; "
				"reconnecting in 1 s (install the plug-in and the daemon from one release; %u more since "
				"last told)\n", v.why, untold);
		return -1;
	}
}

/* events the queue dropped, told at most every FM_REPEAT_LOG_MS */
static void log_dropped(struct fm_plugin *fm, uint64_t *logged, int64_t *log_at)
{
	uint64_t dropped;

	if (now_ms() < *log_at)
		return;
	pthread_mutex_lock(&fm->lock);
	dropped = fm->dropped;
	pthread_mutex_unlock(&fm->lock);
	if (dropped == *logged)
		return;
	osm_log(&fm->osm->log, OSM_LOG_ERROR, "fabric-manager: ERR FA0F: %llu of OpenSM's events dropped (%llu in all): "
		"the plug-in's queue of %d was full, the daemon away or slow\n",
		(unsigned long long) (dropped - *logged), (unsigned long long) dropped, FM_EVENT_QUEUE);
	*logged = dropped;
	*log_at = now_ms() + FM_REPEAT_LOG_MS;
}

/* what the channel thread takes from the others at each turn, under the lock */
struct outbox {
	struct fm_event batch[FM_EVENT_QUEUE];
	unsigned events;
	uint8_t *set;
	size_t set_len;
	struct fm_buf counters;
	uint32_t records;
	uint64_t counters_dropped;
	int64_t counters_at;
};

static void collect(struct fm_plugin *fm, struct outbox *o)
{
	for (o->events = 0; fm->count; o->events++) {
		o->batch[o->events] = fm->queue[fm->head];
		fm->head = (fm->head + 1) % FM_EVENT_QUEUE;
		fm->count--;
	}
	free(o->set);
	o->set = fm->set_frame;
	o->set_len = fm->set_len;
	fm->set_frame = NULL;
	free(o->counters.data);
	memset(&o->counters, 0, sizeof(o->counters));
	o->records = 0;
	if (fm->counter_records && now_ms() >= o->counters_at) {
		/* at most one batch a second: a performance manager sweeping every second sends no more */
		o->counters = fm->counters;
		o->records = fm->counter_records;
		o->counters_dropped = fm->counters_dropped;
		memset(&fm->counters, 0, sizeof(fm->counters));
		fm->counter_records = 0;
		o->counters_at = now_ms() + 1000;
	}
}

/* sends what was collected; non-zero when the channel failed (the rest is lost with it: the daemon asks again) */
static int send_outbox(int fd, const struct outbox *o, struct fm_buf *b)
{
	unsigned i;
	int failed = 0;

	for (i = 0; i < o->events && !failed; i++) {
		b->len = 0;
		fm_put_header(b, FM_EVENT, FM_EVENT_BYTES);
		fm_put_u32(b, o->batch[i].id);
		fm_put_u64(b, o->batch[i].answered_seq);
		fm_put_u64(b, o->batch[i].detail);
		failed = b->failed || fm_write_all(fd, b->data, b->len, now_ms() + 1000);
	}
	if (o->set && !failed)
		failed = fm_write_all(fd, o->set, o->set_len, now_ms() + 1000);
	for (i = 0; i < o->records && !failed; i += FM_COUNTER_RECORDS_FRAME) {
		uint32_t k = o->records - i < FM_COUNTER_RECORDS_FRAME ? o->records - i : FM_COUNTER_RECORDS_FRAME;

		b->len = 0;
		fm_put_header(b, FM_COUNTERS, 12 + k * FM_COUNTER_RECORD);
		fm_put_u32(b, k);
		fm_put_u64(b, o->counters_dropped);
		failed = b->failed || fm_write_all(fd, b->data, b->len, now_ms() + 1000)
			 || fm_write_all(fd, o->counters.data + (size_t) i * FM_COUNTER_RECORD,
					 (size_t) k * FM_COUNTER_RECORD, now_ms() + 1000);
	}
	return failed;
}

void *fm_channel_main(void *arg)
{
	struct fm_plugin *fm = arg;
	struct outbox o;
	struct fm_buf b = { 0 };
	struct fm_reader in;
	struct channel_lines told = { { 0, 0 }, { 0, 0 } };
	uint64_t drained, dropped_logged = 0;
	int fd = -1, err, failed;
	int64_t retry_at = 0, keepalive_at = 0, dropped_log_at = 0, now, wait;

	memset(&o, 0, sizeof(o));
	memset(&in, 0, sizeof(in));
	fm_channel_limits(&in);
	for (;;) {
		pthread_mutex_lock(&fm->lock);
		if (fm->stopping) {
			pthread_mutex_unlock(&fm->lock);
			break;
		}
		collect(fm, &o);
		pthread_mutex_unlock(&fm->lock);
		now = now_ms();
		if (fd < 0 && now >= retry_at) {
			fd = fm_connect(fm->socket_path, &err);
			fm_reader_reset(&in);
			if (fd >= 0 && send_channel(fm, fd, &b)) {
				read_daemon(fm, fd, &in, &told);
				close(fd);
				fd = -1;
			}
			retry_at = now + 1000;
			keepalive_at = now + FM_KEEPALIVE_MS;
		}
		failed = fd >= 0 && send_outbox(fd, &o, &b);
		if (fd >= 0 && !failed && now_ms() >= keepalive_at) {
			failed = send_channel(fm, fd, &b);
			keepalive_at = now_ms() + FM_KEEPALIVE_MS;
		}
		if (failed) {
			/* a refusal may wait in the socket, the daemon gone after it: said before the channel closes */
			read_daemon(fm, fd, &in, &told);
			close(fd);
			fd = -1;
		}
		log_dropped(fm, &dropped_logged, &dropped_log_at);
		pthread_mutex_lock(&fm->lock);
		if (fm->takeback && !fm->stopping && now_ms() >= fm->takeback_at) {
			pthread_mutex_unlock(&fm->lock);
			take_back(fm);
			pthread_mutex_lock(&fm->lock);
		}
		if (fm->reroute_wanted && !fm->stopping && now_ms() >= fm->reroute_at) {
			pthread_mutex_unlock(&fm->lock);
			reroute(fm);
			pthread_mutex_lock(&fm->lock);
		}
		wait = fm->reroute_wanted ? fm->reroute_at - now_ms() : 1000;
		pthread_mutex_unlock(&fm->lock);
		{
			struct pollfd pfd[2] = { { .fd = fm->wake_fd, .events = POLLIN },
						 { .fd = fd, .events = POLLIN } };

			if (poll(pfd, fd >= 0 ? 2 : 1, wait < 0 ? 0 : wait > 1000 ? 1000 : (int) wait) > 0) {
				if (pfd[0].revents & POLLIN && read(fm->wake_fd, &drained, sizeof(drained)) < 0) {
					/* EAGAIN: another read took it */
				}
				if (fd >= 0 && pfd[1].revents && read_daemon(fm, fd, &in, &told)) {
					close(fd);
					fd = -1;
					retry_at = now_ms() + 1000;
				}
			}
		}
	}
	if (fd >= 0)
		close(fd);
	fm_reader_reset(&in);
	free(o.set);
	free(o.counters.data);
	free(b.data);
	return NULL;
}
