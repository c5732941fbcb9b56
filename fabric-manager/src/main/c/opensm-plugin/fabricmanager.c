/*
 * libfabricmanager.so: an OpenSM event plug-in that registers the routing engine "fabric-manager".
 *
 * At each unicast routing pass OpenSM calls ucast_build_fwd_tables with the subnet lock held; the
 * engine sends the subnet it sees (switches, their ports' peers, CA ports, GUIDs and LIDs) to the
 * fabric-manager daemon over a Unix socket, waits a bounded time for the tables (one LFT per switch,
 * by LID, or the entries that differ from the last answer it took: fm_tables.c), checks every byte of
 * the tables against the subnet, and only then writes new_lft. Any failure (no daemon, timeout,
 * refusal, malformed or oversized answer) returns -1, so OpenSM tries the next engine of its
 * routing_engine list. Before that pass, the engine's build_lid_matrices fills OpenSM's hop matrices
 * by breadth-first search, kept from pass to pass (fm_hops.c; OpenSM's generic build takes seconds at
 * thousands of switches). report() only queues events for the channel thread (LFT blocks set are counted and sent
 * as one event per routing): it never does I/O on OpenSM's threads. The channel thread keeps one
 * connection to the daemon open for events, for the daemon's requests of a routing pass (when it has
 * tables OpenSM has not installed: a drain, a rebalance), for the list of switches that hold the
 * daemon's tables once OpenSM has set them, and for the port counters OpenSM's performance manager
 * reads (batched, at most once a second). The wire format is in docs/opensm.md ("The plug-in's
 * protocol").
 *
 * Options (event_plugin_options in opensm.conf, space separated; else the environment variables):
 *   fm.socket=PATH        FM_OPENSM_SOCKET      default /run/fabric-manager/opensm.sock
 *   fm.timeout_ms=N       FM_OPENSM_TIMEOUT_MS  default 5000 (1..600000): the whole exchange
 */
#include "fabricmanager.h"

/* connects without blocking; -1 when the daemon is not there or its backlog is full */
static int fm_connect(const char *path)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
	if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* waits for fd until the deadline; 0 when ready, -1 on timeout or error */
static int fm_wait(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int64_t left;
	int rc;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -1;
		rc = poll(&pfd, 1, left > 1000 ? 1000 : (int) left);
		if (rc > 0)
			return (pfd.revents & (events | POLLHUP)) ? 0 : -1;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

/* 0 when all is written; -2 when the daemon closed the connection, -1 for a timeout or another error */
static int fm_write_all(int fd, const uint8_t *p, size_t n, int64_t deadline)
{
	ssize_t w;

	while (n > 0) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w > 0) {
			p += w;
			n -= (size_t) w;
		} else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (fm_wait(fd, POLLOUT, deadline))
				return -1;
		} else {
			return w < 0 && (errno == EPIPE || errno == ECONNRESET) ? -2 : -1;
		}
	}
	return 0;
}

/* 0 when all is read; -2 when the daemon closed the connection, -1 for a timeout or another error */
static int fm_read_all(int fd, uint8_t *p, size_t n, int64_t deadline)
{
	ssize_t r;

	while (n > 0) {
		r = recv(fd, p, n, 0);
		if (r > 0) {
			p += r;
			n -= (size_t) r;
		} else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (fm_wait(fd, POLLIN, deadline))
				return -1;
		} else {
			return r == 0 || errno == ECONNRESET ? -2 : -1; /* -2: closed by the daemon */
		}
	}
	return 0;
}

static int is_end_port(const osm_node_t *node)
{
	uint8_t type = osm_node_get_type(node);

	return type == IB_NODE_TYPE_CA || type == IB_NODE_TYPE_ROUTER;
}

/* the SUBNET frame: switches with each port's peer, then the linked CA and router ports */
static void encode_subnet(struct fm_plugin *fm, struct fm_buf *b)
{
	osm_subn_t *subn = &fm->osm->subn;
	cl_qmap_t *sws = &subn->sw_guid_tbl, *nodes = &subn->node_guid_tbl;
	cl_map_item_t *it;
	uint32_t ends = 0;
	size_t count_at;
	uint8_t p, n;

	put_header(b, FM_SUBNET, 0);
	put_u64(b, fm->seq);
	put_u64(b, fm->held.id);
	put_u32(b, cl_qmap_count(sws));
	count_at = b->len;
	put_u32(b, 0);
	for (it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *) it;

		put_u64(b, cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
		put_u16(b, cl_ntoh16(osm_node_get_base_lid(sw->p_node, 0)));
		put_name(b, sw->p_node->print_desc);
		n = sw->num_ports ? sw->num_ports - 1 : 0;
		put_u8(b, n);
		for (p = 1; p <= n; p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(sw->p_node, p);
			osm_physp_t *peer = ph ? osm_physp_get_remote(ph) : NULL;

			if (peer && osm_physp_is_valid(peer) && osm_physp_get_node_ptr(peer)) {
				put_u64(b, cl_ntoh64(osm_node_get_node_guid(osm_physp_get_node_ptr(peer))));
				put_u8(b, osm_physp_get_port_num(peer));
			} else {
				put_u64(b, 0);
				put_u8(b, 0);
			}
		}
	}
	for (it = cl_qmap_head(nodes); it != cl_qmap_end(nodes); it = cl_qmap_next(it)) {
		osm_node_t *node = (osm_node_t *) it;

		if (!is_end_port(node))
			continue;
		for (p = 1; p < osm_node_get_num_physp(node); p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, p);

			if (!ph || !osm_physp_get_remote(ph))
				continue;
			put_u64(b, cl_ntoh64(osm_node_get_node_guid(node)));
			put_u64(b, cl_ntoh64(osm_physp_get_port_guid(ph)));
			put_u8(b, p);
			put_u16(b, cl_ntoh16(osm_physp_get_base_lid(ph)));
			put_name(b, node->print_desc);
			ends++;
		}
	}
	if (b->failed)
		return;
	b->data[count_at] = ends >> 24;
	b->data[count_at + 1] = ends >> 16 & 0xff;
	b->data[count_at + 2] = ends >> 8 & 0xff;
	b->data[count_at + 3] = ends & 0xff;
	b->data[8] = (b->len - FM_HEADER) >> 24;
	b->data[9] = (b->len - FM_HEADER) >> 16 & 0xff;
	b->data[10] = (b->len - FM_HEADER) >> 8 & 0xff;
	b->data[11] = (b->len - FM_HEADER) & 0xff;
}

/* one exchange with the daemon; fills why and returns -1 on any failure, else 0 with new_lft set */
static int exchange(struct fm_plugin *fm, const char **why, char *reason, size_t reason_len)
{
	struct fm_buf out = { 0 };
	uint8_t head[FM_HEADER], *in = NULL;
	uint32_t length;
	int64_t deadline = now_ms() + fm->timeout_ms;
	int fd = -1, rc = -1, io;

	encode_subnet(fm, &out);
	if (out.failed) {
		*why = "out of memory encoding the subnet";
		goto done;
	}
	fd = fm_connect(fm->socket_path);
	if (fd < 0) {
		*why = FM_NOT_LISTENING;
		goto done;
	}
	io = fm_write_all(fd, out.data, out.len, deadline);
	if (io) {
		*why = io == -2 ? FM_CLOSED : "timeout or error sending the subnet";
		goto done;
	}
	io = fm_read_all(fd, head, FM_HEADER, deadline);
	if (io) {
		*why = io == -2 ? FM_CLOSED : "no answer in time";
		goto done;
	}
	length = get_u32(head + 8);
	if (get_u32(head) != FM_MAGIC || head[4] != FM_WIRE_VERSION) {
		*why = "answer is not of this protocol";
		goto done;
	}
	if (head[5] == FM_REFUSED) {
		size_t n = length < FM_MAX_REASON ? length : FM_MAX_REASON;

		in = malloc(n + 1);
		if (in && n >= 8 && !fm_read_all(fd, in, n, deadline)) {
			size_t text = n - 8 < reason_len - 1 ? n - 8 : reason_len - 1;
			size_t i;

			memcpy(reason, in + 8, text);
			reason[text] = '\0';
			for (i = 0; i < text; i++)
				if (reason[i] < 0x20 || reason[i] > 0x7e)
					reason[i] = '?';
		}
		*why = "daemon refused";
		goto done;
	}
	if (head[5] != FM_TABLES && head[5] != FM_DELTA) {
		*why = "answer of an unexpected type";
		goto done;
	}
	if (length > fm_tables_bound(fm)) {
		*why = "answer larger than the subnet allows";
		goto done;
	}
	in = malloc(length ? length : 1);
	if (!in) {
		*why = "out of memory reading the answer";
		goto done;
	}
	if (fm_read_all(fd, in, length, deadline)) {
		*why = "answer cut short or late";
		goto done;
	}
	*why = fm_tables_take(fm, head[5], in, length);
	if (*why)
		goto done;
	rc = 0;
done:
	if (fd >= 0)
		close(fd);
	free(in);
	free(out.data);
	return rc;
}

static int fm_build_fwd_tables(void *context)
{
	struct fm_plugin *fm = context;
	osm_routing_engine_t *next;
	const char *why = NULL;
	char reason[FM_MAX_REASON] = "";
	int64_t start = now_ms(), cpu_start = cpu_ms();
	int rc;

	fm->seq++;
	fm->answered_seq = 0;
	rc = exchange(fm, &why, reason, sizeof(reason));
	pthread_mutex_lock(&fm->lock);
	/* only a daemon that was away (not listening, or closing the connection before it answered: a
	 * standby releasing the socket to its manager), or a standby taking the leadership over, is waited
	 * for: one that answered badly would be asked again and again */
	fm->takeback = rc != 0 && (strcmp(why, FM_NOT_LISTENING) == 0 || strcmp(why, FM_CLOSED) == 0
				   || strstr(reason, FM_MOVING) != NULL);
	if (rc == 0)
		fm->takeback_wait_ms = 0;
	pthread_mutex_unlock(&fm->lock);
	if (rc == 0) {
		fm->answered_seq = fm->seq;
		osm_log(&fm->osm->log, OSM_LOG_INFO,
			"fabric-manager: subnet %llu routed by the daemon in %lld ms (plug-in cpu %lld ms; %s of %llu entries)\n",
			(unsigned long long) fm->seq, (long long) (now_ms() - start),
			(long long) (cpu_ms() - cpu_start), fm->held.delta ? "delta" : "whole tables",
			(unsigned long long) fm->held.changed);
		return 0;
	}
	for (next = fm->osm->routing_engine_list; next && next->context != context; next = next->next)
		;
	next = next ? next->next : NULL;
	osm_log(&fm->osm->log, OSM_LOG_ERROR,
		"fabric-manager: routing subnet %llu failed after %lld ms: %s%s%s (socket %s); "
		"OpenSM falls back to %s\n", (unsigned long long) fm->seq,
		(long long) (now_ms() - start), why, *reason ? ": " : "", reason, fm->socket_path,
		next ? next->name : "its default engine (minhop)");
	return -1;
}

/* ------------------------------------------------------------------ events ---------------------- */

/* wakes the channel thread; a full eventfd counter is as good as a wake-up */
static void wake(struct fm_plugin *fm)
{
	uint64_t one = 1;

	if (fm->wake_fd >= 0 && write(fm->wake_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: a wake-up is pending already */
	}
}

/*
 * The last routing pass found no daemon (or a hot standby that unbound the socket while the leadership
 * moves to it) and a fallback engine routes: once the daemon listens again (a connection opens; it is
 * closed at once, before any frame), OpenSM is asked to re-route as its console's "reroute" does, so the
 * daemon's tables come back without waiting for a fabric change.
 */
static void take_back(struct fm_plugin *fm)
{
	int probe = fm_connect(fm->socket_path);
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
		fm->osm->subn.force_reroute = TRUE;
		osm_sm_sweep(&fm->osm->sm);
	}
}

/* the daemon asked for a routing pass and its time has come: OpenSM re-routes as for its console's "reroute" */
static void reroute(struct fm_plugin *fm)
{
	uint64_t request;

	pthread_mutex_lock(&fm->lock);
	request = fm->reroute_request;
	fm->reroute_wanted = 0;
	fm->reroute_at = now_ms() + FM_REROUTE_MIN_MS;
	pthread_mutex_unlock(&fm->lock);
	osm_log(&fm->osm->log, OSM_LOG_INFO,
		"fabric-manager: the daemon has tables OpenSM has not installed (request %llu); asking OpenSM to "
		"re-route\n", (unsigned long long) request);
	fm->osm->subn.force_reroute = TRUE;
	osm_sm_sweep(&fm->osm->sm);
}

/* the daemon's frames on the channel, read as they come; 0, or -1 for anything but a REROUTE (closed) */
struct fm_inbox {
	uint8_t data[FM_HEADER + 8];
	size_t len;
};

static int read_daemon(struct fm_plugin *fm, int fd, struct fm_inbox *in)
{
	ssize_t r = recv(fd, in->data + in->len, sizeof(in->data) - in->len, MSG_DONTWAIT);

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		return -1;
	if (r < 0)
		return 0;
	in->len += (size_t) r;
	if (in->len < FM_HEADER)
		return 0;
	if (get_u32(in->data) != FM_MAGIC || in->data[4] != FM_WIRE_VERSION || in->data[5] != FM_REROUTE
	    || get_u32(in->data + 8) != 8)
		return -1;
	if (in->len < sizeof(in->data))
		return 0;
	pthread_mutex_lock(&fm->lock);
	fm->reroute_wanted = 1;
	fm->reroute_request = get_u64(in->data + FM_HEADER);
	pthread_mutex_unlock(&fm->lock);
	in->len = 0;
	return 0;
}

static int send_channel(struct fm_plugin *fm, int fd, struct fm_buf *b)
{
	b->len = 0;
	put_header(b, FM_CHANNEL, 8);
	put_u64(b, __atomic_load_n(&fm->answered_seq, __ATOMIC_RELAXED));
	return b->failed || fm_write_all(fd, b->data, b->len, now_ms() + 1000);
}

/*
 * The channel thread: one connection to the daemon, opened as soon as it listens (again every second
 * while it does not), named by a CHANNEL frame and kept alive by one every FM_KEEPALIVE_MS. It sends the
 * queued events and SET frames, reads the daemon's REROUTE requests, and asks OpenSM to re-route for
 * them (at most every FM_REROUTE_MIN_MS) and for a daemon that listens again after a pass found none.
 */
static void *sender_main(void *arg)
{
	struct fm_plugin *fm = arg;
	struct fm_event batch[FM_EVENT_QUEUE];
	struct fm_buf b = { 0 };
	struct fm_inbox in = { .len = 0 };
	struct fm_buf counters = { 0 };
	uint8_t *set = NULL;
	size_t set_len = 0;
	uint32_t records = 0;
	uint64_t dropped = 0;
	int64_t counters_at = 0;
	unsigned n, i;
	int fd = -1, failed;
	int64_t retry_at = 0, keepalive_at = 0, now, wait;
	uint64_t drained;

	for (;;) {
		pthread_mutex_lock(&fm->lock);
		if (fm->stopping) {
			pthread_mutex_unlock(&fm->lock);
			break;
		}
		for (n = 0; fm->count; n++) {
			batch[n] = fm->queue[fm->head];
			fm->head = (fm->head + 1) % FM_EVENT_QUEUE;
			fm->count--;
		}
		free(set);
		set = fm->set_frame;
		set_len = fm->set_len;
		fm->set_frame = NULL;
		free(counters.data);
		memset(&counters, 0, sizeof(counters));
		records = 0;
		if (fm->counter_records && now_ms() >= counters_at) {
			/* at most one batch a second: a performance manager sweeping every second sends no more */
			counters = fm->counters;
			records = fm->counter_records;
			dropped = fm->counters_dropped;
			memset(&fm->counters, 0, sizeof(fm->counters));
			fm->counter_records = 0;
			counters_at = now_ms() + 1000;
		}
		pthread_mutex_unlock(&fm->lock);
		now = now_ms();
		if (fd < 0 && now >= retry_at) {
			fd = fm_connect(fm->socket_path);
			in.len = 0;
			if (fd >= 0 && send_channel(fm, fd, &b)) {
				close(fd);
				fd = -1;
			}
			retry_at = now + 1000;
			keepalive_at = now + FM_KEEPALIVE_MS;
		}
		failed = 0;
		for (i = 0; fd >= 0 && i < n && !failed; i++) {
			b.len = 0;
			put_header(&b, FM_EVENT, 20);
			put_u32(&b, batch[i].id);
			put_u64(&b, batch[i].answered_seq);
			put_u64(&b, batch[i].detail);
			failed = b.failed || fm_write_all(fd, b.data, b.len, now_ms() + 1000);
		}
		if (fd >= 0 && set && !failed)
			failed = fm_write_all(fd, set, set_len, now_ms() + 1000);
		for (i = 0; fd >= 0 && i < records && !failed; i += FM_COUNTER_RECORDS_FRAME) {
			uint32_t k = records - i < FM_COUNTER_RECORDS_FRAME ? records - i : FM_COUNTER_RECORDS_FRAME;

			b.len = 0;
			put_header(&b, FM_COUNTERS, 12 + k * FM_COUNTER_RECORD);
			put_u32(&b, k);
			put_u64(&b, dropped);
			failed = b.failed || fm_write_all(fd, b.data, b.len, now_ms() + 1000)
				 || fm_write_all(fd, counters.data + (size_t) i * FM_COUNTER_RECORD,
						 (size_t) k * FM_COUNTER_RECORD, now_ms() + 1000);
		}
		if (fd >= 0 && !failed && now_ms() >= keepalive_at) {
			failed = send_channel(fm, fd, &b);
			keepalive_at = now_ms() + FM_KEEPALIVE_MS;
		}
		if (failed) {
			close(fd);
			fd = -1; /* the events and the SET are lost with the daemon: it asks again for what it misses */
		}
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
				if (fd >= 0 && pfd[1].revents && read_daemon(fm, fd, &in)) {
					close(fd);
					fd = -1;
					retry_at = now_ms() + 1000;
				}
			}
		}
	}
	if (fd >= 0)
		close(fd);
	free(set);
	free(counters.data);
	free(b.data);
	return NULL;
}

/* queues ev; the caller holds fm->lock. A full queue drops it (the daemon is away or slow). */
static void enqueue(struct fm_plugin *fm, struct fm_event ev)
{
	if (fm->count < FM_EVENT_QUEUE) {
		fm->queue[(fm->head + fm->count) % FM_EVENT_QUEUE] = ev;
		fm->count++;
		wake(fm);
	} else {
		fm->dropped++;
	}
}

/*
 * OpenSM reports every LFT block a switch acknowledged (thousands per routing): they are counted here
 * and forwarded as one LFT_CHANGE once the routing's blocks are all set (UCAST_ROUTING_DONE, or
 * SUBNET_UP), its detail the block count (low 32 bits) and the milliseconds from the first block to
 * the last (high 32 bits). The caller holds fm->lock.
 */
static void flush_lft_changes(struct fm_plugin *fm)
{
	struct fm_event ev = { .id = OSM_EVENT_ID_LFT_CHANGE, .answered_seq = fm->answered_seq };
	int64_t span = fm->lft_last_ms - fm->lft_first_ms;

	if (!fm->lft_blocks)
		return;
	ev.detail = (uint64_t) (span > 0 && span < 0xffffffffLL ? span : 0) << 32 | fm->lft_blocks;
	fm->lft_blocks = 0;
	enqueue(fm, ev);
}

/*
 * The routing's blocks are all answered (OpenSM reports UCAST_ROUTING_DONE after waiting for every
 * Set(LinearForwardingTable), on its state manager's thread): the switches whose table, as they
 * acknowledged it block by block, equals what this pass answered are listed in a SET frame (OpenSM
 * zeroes a block's copy before sending it, so a block that was not acknowledged differs). Only after a
 * pass answered by the daemon; the daemon counts a switch in sync on nothing else.
 */
static void make_set_frame(struct fm_plugin *fm)
{
	cl_qmap_t *sws = &fm->osm->subn.sw_guid_tbl;
	cl_map_item_t *it;
	struct fm_buf b = { 0 };
	uint32_t held = 0;
	size_t count_at;

	if (!fm->answered_seq || fm->answered_seq != fm->seq)
		return;
	put_header(&b, FM_SET, 0);
	put_u64(&b, fm->seq);
	CL_PLOCK_ACQUIRE(&fm->osm->lock);
	put_u32(&b, cl_qmap_count(sws));
	count_at = b.len;
	put_u32(&b, 0);
	for (it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *) it;
		size_t n = (size_t) sw->max_lid_ho + 1;

		if (sw->lft && sw->new_lft && n <= sw->lft_size && !memcmp(sw->lft, sw->new_lft, n)) {
			put_u64(&b, cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
			held++;
		}
	}
	CL_PLOCK_RELEASE(&fm->osm->lock);
	if (b.failed) {
		free(b.data);
		return;
	}
	b.data[count_at] = held >> 24;
	b.data[count_at + 1] = held >> 16 & 0xff;
	b.data[count_at + 2] = held >> 8 & 0xff;
	b.data[count_at + 3] = held & 0xff;
	b.data[8] = (b.len - FM_HEADER) >> 24;
	b.data[9] = (b.len - FM_HEADER) >> 16 & 0xff;
	b.data[10] = (b.len - FM_HEADER) >> 8 & 0xff;
	b.data[11] = (b.len - FM_HEADER) & 0xff;
	pthread_mutex_lock(&fm->lock);
	free(fm->set_frame);
	fm->set_frame = b.data;
	fm->set_len = b.len;
	wake(fm);
	pthread_mutex_unlock(&fm->lock);
}

/*
 * One port's counters as OpenSM's performance manager read them (perfmgr TRUE in opensm.conf): changes since its
 * previous reading, kept for the channel thread in our eight counters. Data counters give packets and bytes (IB counts
 * data in 4-byte words); error counters give errors (received: errors, remote physical errors, constraint errors;
 * sent: constraint errors) and drops (received: switch relay errors, VL15 drops; sent: discards). The caller holds
 * fm->lock; past FM_COUNTER_RECORDS_MAX waiting records (the daemon away), a record is dropped and counted.
 */
static void record_counters(struct fm_plugin *fm, osm_epi_event_id_t id, const void *event_data)
{
	uint64_t v[8] = { 0 };
	uint64_t guid;
	uint8_t port;
	int i;

	if (fm->counter_records >= FM_COUNTER_RECORDS_MAX) {
		fm->counters_dropped++;
		return;
	}
	if (id == OSM_EVENT_ID_PORT_DATA_COUNTERS) {
		const osm_epi_dc_event_t *dc = event_data;

		guid = dc->port_id.node_guid;
		port = dc->port_id.port_num;
		v[0] = dc->rcv_pkts;
		v[1] = dc->xmit_pkts;
		v[2] = dc->rcv_data * 4;
		v[3] = dc->xmit_data * 4;
	} else {
		const osm_epi_pe_event_t *pe = event_data;

		guid = pe->port_id.node_guid;
		port = pe->port_id.port_num;
		v[4] = pe->rcv_err + pe->rcv_rem_phys_err + pe->rcv_constraint_err;
		v[5] = pe->xmit_constraint_err;
		v[6] = pe->rcv_switch_relay_err + pe->vl15_dropped;
		v[7] = pe->xmit_discards;
	}
	put_u64(&fm->counters, guid); /* the performance manager's GUIDs are in host order */
	put_u8(&fm->counters, port);
	for (i = 0; i < 8; i++)
		put_u64(&fm->counters, v[i]);
	if (fm->counters.failed) {
		/* out of memory: what was kept is dropped with it */
		free(fm->counters.data);
		memset(&fm->counters, 0, sizeof(fm->counters));
		fm->counters_dropped += fm->counter_records + 1;
		fm->counter_records = 0;
		return;
	}
	fm->counter_records++;
}

static void fm_report(void *data, osm_epi_event_id_t id, void *event_data)
{
	struct fm_plugin *fm = data;
	struct fm_event ev = { .id = (uint32_t) id };

	if (id == OSM_EVENT_ID_LFT_CHANGE) {
		int64_t now = now_ms();

		if (pthread_mutex_lock(&fm->lock))
			return;
		if (!fm->lft_blocks)
			fm->lft_first_ms = now;
		fm->lft_last_ms = now;
		if (fm->lft_blocks < UINT32_MAX)
			fm->lft_blocks++;
		pthread_mutex_unlock(&fm->lock);
		return;
	}
	if (id == OSM_EVENT_ID_PORT_DATA_COUNTERS || id == OSM_EVENT_ID_PORT_ERRORS) {
		if (pthread_mutex_lock(&fm->lock))
			return;
		record_counters(fm, id, event_data);
		pthread_mutex_unlock(&fm->lock);
		return;
	}
	switch (id) {
	case OSM_EVENT_ID_TRAP:
		ev.detail = cl_ntoh16(((ib_mad_notice_attr_t *) event_data)->g_or_v.generic.trap_num);
		break;
	case OSM_EVENT_ID_UCAST_ROUTING_DONE:
		ev.detail = (uint64_t) (uintptr_t) event_data;
		make_set_frame(fm);
		break;
	case OSM_EVENT_ID_STATE_CHANGE:
	case OSM_EVENT_ID_SUBNET_UP:
	case OSM_EVENT_ID_HEAVY_SWEEP_START:
	case OSM_EVENT_ID_HEAVY_SWEEP_DONE:
		break;
	default:
		return; /* port counters and SA dumps: not forwarded */
	}
	ev.answered_seq = fm->answered_seq;
	if (pthread_mutex_lock(&fm->lock))
		return;
	if (id == OSM_EVENT_ID_UCAST_ROUTING_DONE || id == OSM_EVENT_ID_SUBNET_UP)
		flush_lft_changes(fm);
	enqueue(fm, ev);
	pthread_mutex_unlock(&fm->lock);
}

/* ------------------------------------------------------------------ life cycle ------------------- */

static void read_options(struct fm_plugin *fm)
{
	const char *opts = fm->osm->subn.opt.event_plugin_options;
	const char *socket = getenv("FM_OPENSM_SOCKET");
	const char *timeout = getenv("FM_OPENSM_TIMEOUT_MS");
	char *copy = opts ? strdup(opts) : NULL, *tok, *save = NULL;
	long ms;

	for (tok = copy ? strtok_r(copy, " \t,", &save) : NULL; tok; tok = strtok_r(NULL, " \t,", &save)) {
		if (!strncmp(tok, "fm.socket=", 10))
			socket = opts + (tok - copy) + 10;
		else if (!strncmp(tok, "fm.timeout_ms=", 14))
			timeout = opts + (tok - copy) + 14;
	}
	snprintf(fm->socket_path, sizeof(fm->socket_path), "%.*s",
		 (int) strcspn(socket ? socket : FM_DEFAULT_SOCKET, " \t,"),
		 socket ? socket : FM_DEFAULT_SOCKET);
	ms = timeout ? strtol(timeout, NULL, 10) : FM_DEFAULT_TIMEOUT_MS;
	fm->timeout_ms = ms >= 1 && ms <= 600000 ? (int) ms : FM_DEFAULT_TIMEOUT_MS;
	free(copy);
}

/* OpenSM has set re->context to the context registered with the engine: this plug-in's state */
static int fm_engine_setup(osm_routing_engine_t *re, osm_opensm_t *osm)
{
	(void) osm;
	if (!re->context)
		return -1;
	re->build_lid_matrices = fm_build_lid_matrices;
	re->ucast_build_fwd_tables = fm_build_fwd_tables;
	return 0;
}

static void *fm_create(osm_opensm_t *osm)
{
	struct fm_plugin *fm = calloc(1, sizeof(*fm));
	external_routing_engine_module_t module = { FM_ENGINE_NAME, fm_engine_setup, NULL };

	if (!fm)
		return NULL;
	fm->osm = osm;
	read_options(fm);
	pthread_mutex_init(&fm->lock, NULL);
	fm->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	module.context = fm;
	if (fm->wake_fd < 0 || osm_register_external_routing_engine(osm, &module, fm) != CL_SUCCESS) {
		osm_log(&osm->log, OSM_LOG_ERROR, "fabric-manager: cannot register the routing engine\n");
		if (fm->wake_fd >= 0)
			close(fm->wake_fd);
		pthread_mutex_destroy(&fm->lock);
		free(fm);
		return NULL;
	}
	fm->sender_started = !pthread_create(&fm->sender, NULL, sender_main, fm);
	osm_log(&osm->log, OSM_LOG_INFO,
		"fabric-manager: routing engine '%s' registered (socket %s, timeout %d ms)\n",
		FM_ENGINE_NAME, fm->socket_path, fm->timeout_ms);
	return fm;
}

static void fm_delete(void *data)
{
	struct fm_plugin *fm = data;

	if (!fm)
		return;
	pthread_mutex_lock(&fm->lock);
	fm->stopping = 1;
	wake(fm);
	pthread_mutex_unlock(&fm->lock);
	if (fm->sender_started)
		pthread_join(fm->sender, NULL);
	close(fm->wake_fd);
	pthread_mutex_destroy(&fm->lock);
	free(fm->set_frame);
	free(fm->counters.data);
	fm_tables_free(fm);
	fm_hops_free(fm);
	free(fm);
}

osm_event_plugin_t osm_event_plugin = {
	OSM_VERSION,
	fm_create,
	fm_delete,
	fm_report
};
