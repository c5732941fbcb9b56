/*
 * libfabricmanager.so: an OpenSM event plug-in that registers the routing engine "fabric-manager".
 *
 * At each unicast routing pass OpenSM calls ucast_build_fwd_tables with the subnet lock held; the
 * engine sends the subnet it sees (switches, their ports' peers, CA ports, GUIDs and LIDs) to the
 * fabric-manager daemon over a Unix socket, waits a bounded time for the tables (one LFT per switch,
 * by LID, or the entries that differ from the last answer it took: fm_tables.c), checks every byte of
 * the tables against the subnet, and only then writes new_lft. Any failure (no daemon, timeout,
 * refusal, malformed or oversized answer) is logged with its ERR code and returns -1, so OpenSM tries
 * the next engine of its routing_engine list; what comes next depends on the failure alone
 * (fm_inbound.c), never on the daemon's words. Before that pass, the engine's build_lid_matrices fills
 * OpenSM's hop matrices by breadth-first search, kept from pass to pass (fm_hops.c; OpenSM's generic
 * build takes seconds at thousands of switches). fm_report only queues events for the channel thread
 * (fm_channel.c; LFT blocks set are counted and sent as one event per routing): it never does I/O on
 * OpenSM's threads. The wire format is in fm_wire.h and docs/opensm.md ("The plug-in's protocol").
 *
 * Options (event_plugin_options in opensm.conf, space separated; else the environment variables):
 *   fm.socket=PATH        FM_OPENSM_SOCKET      default /run/fabric-manager/opensm.sock
 *   fm.timeout_ms=N       FM_OPENSM_TIMEOUT_MS  default 5000 (1..600000): the whole exchange
 */
#include <ctype.h>
#include "fm_plugin.h"

static int is_end_port(const osm_node_t *node)
{
	uint8_t type = osm_node_get_type(node);

	return type == IB_NODE_TYPE_CA || type == IB_NODE_TYPE_ROUTER;
}

/*
 * A node's name: its NodeDescription as the device gives it (64 bytes, UTF-8 as the device wrote it), unless a
 * node_name_map renamed it. OpenSM's printable copy (print_desc) holds the map's name, else the description cut to 63
 * bytes with each byte outside printable ASCII a space, which would leave nothing of a name in another script.
 */
static int renamed(const char *desc, size_t n, const char *shown)
{
	size_t kept = n < IB_NODE_DESCRIPTION_SIZE - 1 ? n : IB_NODE_DESCRIPTION_SIZE - 1, i;

	for (i = 0; i < kept; i++)
		if (shown[i] != (isprint((unsigned char) desc[i]) ? desc[i] : ' '))
			return 1;
	return shown[kept] != '\0';
}

static void put_node_name(struct fm_buf *b, const osm_node_t *node)
{
	const char *desc = (const char *) node->node_desc.description;
	size_t n = strnlen(desc, IB_NODE_DESCRIPTION_SIZE);

	if (node->print_desc && renamed(desc, n, node->print_desc))
		fm_put_name(b, node->print_desc, strlen(node->print_desc));
	else
		fm_put_name(b, desc, n);
}

/* whether a linked CA or router port answers to more than its base LID (OpenSM's lmc > 0) */
static int subnet_has_lmc(cl_qmap_t *nodes)
{
	cl_map_item_t *it;
	uint8_t p;

	for (it = cl_qmap_head(nodes); it != cl_qmap_end(nodes); it = cl_qmap_next(it)) {
		osm_node_t *node = (osm_node_t *) it;

		if (!is_end_port(node))
			continue;
		for (p = 1; p < osm_node_get_num_physp(node); p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, p);

			if (ph && osm_physp_get_remote(ph) && osm_physp_get_lmc(ph) > 0)
				return 1;
		}
	}
	return 0;
}

/*
 * the SUBNET frame: switches with each port's peer, then the linked CA and router ports; SUBNET_LMC, with each
 * port's LMC after its LID, when a port has LMC > 0 (so that a daemon of an earlier release refuses it)
 */
static void encode_subnet(struct fm_plugin *fm, struct fm_buf *b)
{
	osm_subn_t *subn = &fm->osm->subn;
	cl_qmap_t *sws = &subn->sw_guid_tbl, *nodes = &subn->node_guid_tbl;
	cl_map_item_t *it;
	uint32_t ends = 0;
	size_t count_at;
	uint8_t p, n;
	int lmc = subnet_has_lmc(nodes);

	fm_put_header(b, lmc ? FM_SUBNET_LMC : FM_SUBNET, 0);
	fm_put_u64(b, fm->seq);
	fm_put_u64(b, fm->held.id);
	fm_put_u32(b, cl_qmap_count(sws));
	count_at = b->len;
	fm_put_u32(b, 0);
	for (it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *) it;

		fm_put_u64(b, cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
		fm_put_u16(b, cl_ntoh16(osm_node_get_base_lid(sw->p_node, 0)));
		put_node_name(b, sw->p_node);
		n = sw->num_ports ? sw->num_ports - 1 : 0;
		fm_put_u8(b, n);
		for (p = 1; p <= n; p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(sw->p_node, p);
			osm_physp_t *peer = ph ? osm_physp_get_remote(ph) : NULL;

			if (peer && osm_physp_is_valid(peer) && osm_physp_get_node_ptr(peer)) {
				fm_put_u64(b, cl_ntoh64(osm_node_get_node_guid(osm_physp_get_node_ptr(peer))));
				fm_put_u8(b, osm_physp_get_port_num(peer));
			} else {
				fm_put_u64(b, 0);
				fm_put_u8(b, 0);
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
			fm_put_u64(b, cl_ntoh64(osm_node_get_node_guid(node)));
			fm_put_u64(b, cl_ntoh64(osm_physp_get_port_guid(ph)));
			fm_put_u8(b, p);
			fm_put_u16(b, cl_ntoh16(osm_physp_get_base_lid(ph)));
			if (lmc)
				fm_put_u8(b, osm_physp_get_lmc(ph)); /* 3 bits of PortInfo: 0..7 */
			put_node_name(b, node);
			ends++;
		}
	}
	fm_patch_u32(b, count_at, ends);
	fm_end_frame(b, 0);
}

/*
 * One exchange with the daemon: the subnet sent, the answer read and judged (fm_inbound.c); FM_ROUTED with new_lft
 * set, or the failure with v saying why.
 */
static enum fm_outcome exchange(struct fm_plugin *fm, struct fm_verdict *v)
{
	struct fm_buf out = { 0 };
	struct fm_reader in;
	enum fm_outcome outcome;
	enum fm_io sent, got;
	enum fm_read st = FM_READ_MORE;
	int64_t deadline = now_ms() + fm->timeout_ms;
	int fd, err = 0;

	memset(&in, 0, sizeof(in));
	encode_subnet(fm, &out);
	if (out.failed) {
		free(out.data);
		v->why = "out of memory encoding the subnet";
		return FM_NO_MEMORY;
	}
	fd = fm_connect(fm->socket_path, &err);
	if (fd < 0) {
		free(out.data);
		if (fm_absent(err))
			return FM_ABSENT;
		v->why = "cannot connect";
		snprintf(v->reason, sizeof(v->reason), "%s", strerror(err));
		return FM_SOCKET_ERROR;
	}
	sent = fm_send_subnet(fd, out.data, out.len, deadline, &err);
	free(out.data);
	fm_answer_limits(fm, &in);
	got = sent == FM_IO_DONE || sent == FM_IO_ANSWERED ? fm_read_frame(fd, &in, deadline, &st, &err) : sent;
	close(fd);
	switch (got) {
	case FM_IO_DONE:
		if (sent == FM_IO_ANSWERED && in.type != FM_REFUSED) {
			v->why = "tables before the whole subnet was read";
			outcome = FM_MALFORMED;
		} else {
			outcome = fm_answer_take(fm, &in, v);
		}
		break;
	case FM_IO_BAD:
		outcome = fm_answer_unread(st, &in, v);
		break;
	case FM_IO_CLOSED:
		outcome = FM_CLOSED;
		break;
	case FM_IO_CUT:
		v->why = "answer cut short";
		outcome = FM_MALFORMED;
		break;
	case FM_IO_LATE:
		outcome = FM_LATE;
		break;
	default:
		v->why = sent == FM_IO_ERROR ? "cannot send the subnet" : "cannot read the answer";
		snprintf(v->reason, sizeof(v->reason), "%s", strerror(err));
		outcome = FM_SOCKET_ERROR;
		break;
	}
	fm_reader_reset(&in);
	return outcome;
}

/* the engine after this one in OpenSM's routing_engine list, which routes when this one fails */
static const char *next_engine(struct fm_plugin *fm)
{
	osm_routing_engine_t *e;

	for (e = fm->osm->routing_engine_list; e && e->context != fm; e = e->next)
		;
	return e && e->next ? e->next->name : "its default engine (minhop)";
}

static void log_failure(struct fm_plugin *fm, enum fm_outcome outcome, const struct fm_verdict *v, int64_t ms)
{
	const struct fm_outcome_info *info = fm_outcome_info(outcome);
	char detail[FM_MAX_REASON + 200];

	if (outcome >= FM_MOVING && outcome <= FM_UNKNOWN_CODE)
		snprintf(detail, sizeof(detail), "%s (code %u %s): %s", info->what, v->code, fm_refusal_name(v->code),
			 v->reason);
	else
		snprintf(detail, sizeof(detail), "%s%s%s", v->why ? v->why : info->what, *v->reason ? ": " : "",
			 v->reason);
	osm_log(&fm->osm->log, OSM_LOG_ERROR,
		"fabric-manager: %s: routing subnet %llu failed after %lld ms: %s (socket %s); "
		"OpenSM falls back to %s %s\n", info->err, (unsigned long long) fm->seq, (long long) ms, detail,
		fm->socket_path, next_engine(fm), info->until);
}

static int fm_build_fwd_tables(void *context)
{
	struct fm_plugin *fm = context;
	struct fm_verdict v = { .why = NULL };
	enum fm_outcome outcome;
	int64_t start = now_ms(), cpu_start = cpu_ms();

	pthread_mutex_lock(&fm->lock);
	fm->seq++;
	fm->answered_seq = 0;
	pthread_mutex_unlock(&fm->lock);
	outcome = exchange(fm, &v);
	pthread_mutex_lock(&fm->lock);
	/* only a daemon away, or a hot standby taking the leadership over, is waited for: one that answered
	 * otherwise would be asked again and again for what it refused */
	fm->takeback = fm_outcome_info(outcome)->takeback;
	if (outcome == FM_ROUTED) {
		fm->takeback_wait_ms = 0;
		fm->answered_seq = fm->seq;
	}
	pthread_mutex_unlock(&fm->lock);
	if (outcome != FM_ROUTED) {
		log_failure(fm, outcome, &v, now_ms() - start);
		return -1;
	}
	osm_log(&fm->osm->log, OSM_LOG_INFO,
		"fabric-manager: subnet %llu routed by the daemon in %lld ms (plug-in cpu %lld ms; %s of %llu entries)\n",
		(unsigned long long) fm->seq, (long long) (now_ms() - start), (long long) (cpu_ms() - cpu_start),
		fm->held.delta ? "delta" : "whole tables", (unsigned long long) fm->held.changed);
	return 0;
}

/* ------------------------------------------------------------------ events ---------------------- */

/* queues ev; the caller holds fm->lock. A full queue drops it (the daemon is away or slow). */
static void enqueue(struct fm_plugin *fm, struct fm_event ev)
{
	if (fm->count < FM_EVENT_QUEUE) {
		fm->queue[(fm->head + fm->count) % FM_EVENT_QUEUE] = ev;
		fm->count++;
		fm_wake(fm);
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
	uint64_t answered;

	pthread_mutex_lock(&fm->lock);
	answered = fm->answered_seq && fm->answered_seq == fm->seq ? fm->seq : 0;
	pthread_mutex_unlock(&fm->lock);
	if (!answered)
		return;
	fm_put_header(&b, FM_SET, 0);
	fm_put_u64(&b, answered);
	CL_PLOCK_ACQUIRE(&fm->osm->lock);
	fm_put_u32(&b, cl_qmap_count(sws));
	count_at = b.len;
	fm_put_u32(&b, 0);
	for (it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *) it;
		size_t n = (size_t) sw->max_lid_ho + 1;

		if (sw->lft && sw->new_lft && n <= sw->lft_size && !memcmp(sw->lft, sw->new_lft, n)) {
			fm_put_u64(&b, cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
			held++;
		}
	}
	CL_PLOCK_RELEASE(&fm->osm->lock);
	if (b.failed) {
		free(b.data);
		return;
	}
	fm_patch_u32(&b, count_at, held);
	fm_end_frame(&b, 0);
	pthread_mutex_lock(&fm->lock);
	free(fm->set_frame);
	fm->set_frame = b.data;
	fm->set_len = b.len;
	fm_wake(fm);
	pthread_mutex_unlock(&fm->lock);
}

/*
 * One port's counters as OpenSM's performance manager read them (perfmgr TRUE in opensm.conf): changes since its
 * previous reading, kept for the channel thread in our eight counters. Data counters give packets and bytes (IB counts
 * data in 4-byte words); error counters give errors (received: errors, remote physical errors, constraint errors,
 * and the link's own symbol errors, error recoveries and downs, as the protocol's rxErrors counts a corrupting cable;
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
		v[4] = pe->rcv_err + pe->rcv_rem_phys_err + pe->rcv_constraint_err + pe->symbol_err_cnt
		       + pe->link_err_recover + pe->link_downed;
		v[5] = pe->xmit_constraint_err;
		v[6] = pe->rcv_switch_relay_err + pe->vl15_dropped;
		v[7] = pe->xmit_discards;
	}
	fm_put_u64(&fm->counters, guid); /* the performance manager's GUIDs are in host order */
	fm_put_u8(&fm->counters, port);
	for (i = 0; i < 8; i++)
		fm_put_u64(&fm->counters, v[i]);
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
	if (pthread_mutex_lock(&fm->lock))
		return;
	ev.answered_seq = fm->answered_seq;
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
		osm_log(&osm->log, OSM_LOG_ERROR, "fabric-manager: ERR FA11: cannot register the routing engine '%s'; "
			"OpenSM routes with the other engines of routing_engine\n", FM_ENGINE_NAME);
		if (fm->wake_fd >= 0)
			close(fm->wake_fd);
		pthread_mutex_destroy(&fm->lock);
		free(fm);
		return NULL;
	}
	fm->channel_started = !pthread_create(&fm->channel, NULL, fm_channel_main, fm);
	if (!fm->channel_started)
		osm_log(&osm->log, OSM_LOG_ERROR, "fabric-manager: ERR FA12: cannot start the plug-in's channel thread: "
			"the daemon gets no event and no keepalive from OpenSM (it declares OpenSM lost) and cannot ask "
			"for a routing pass\n");
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
	fm_wake(fm);
	pthread_mutex_unlock(&fm->lock);
	if (fm->channel_started)
		pthread_join(fm->channel, NULL);
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
