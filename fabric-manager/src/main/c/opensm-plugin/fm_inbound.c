/*
 * What the daemon sends, judged: a routing pass's answer (REFUSED, TABLES or DELTA) and the frames of the plug-in's
 * channel (REROUTE, REFUSED). No I/O here: the socket's bytes come through an fm_reader (fm_io.c), and the fuzz
 * targets (fuzz.sh) feed these functions the same way, without OpenSM running.
 */
#include "fm_plugin.h"

#define UNTIL_LISTENING "until the socket listens again (then OpenSM is asked to re-route)"
#define UNTIL_NEXT_PASS "until its next routing pass (a fabric change, or reroute at OpenSM's console)"

/* the codes are listed, with what the operator does, in docs/opensm.md ("Failures and fallback") */
static const struct fm_outcome_info outcomes[FM_OUTCOMES] = {
	[FM_ROUTED] = { "", "routed by the daemon", 0, "" },
	[FM_ABSENT] = { "ERR FA01", "daemon not listening", 1, UNTIL_LISTENING },
	[FM_CLOSED] = { "ERR FA02", "daemon closed the connection without answering", 1, UNTIL_LISTENING },
	[FM_MOVING] = { "ERR FA03", "daemon refused", 1, UNTIL_LISTENING },
	[FM_NOT_READY] = { "ERR FA04", "daemon refused", 0, "until the daemon has tables and asks for a pass" },
	[FM_INVALID] = { "ERR FA05", "daemon refused", 0, UNTIL_NEXT_PASS },
	[FM_TOO_LARGE] = { "ERR FA06", "daemon refused", 0, UNTIL_NEXT_PASS },
	[FM_UNKNOWN_CODE] = { "ERR FA07", "daemon refused", 0, UNTIL_NEXT_PASS },
	[FM_LATE] = { "ERR FA08", "no answer in time", 0, UNTIL_NEXT_PASS },
	[FM_MALFORMED] = { "ERR FA09", "malformed answer", 0, UNTIL_NEXT_PASS },
	[FM_UNFIT] = { "ERR FA0A", "tables refused", 0, UNTIL_NEXT_PASS },
	[FM_NO_MEMORY] = { "ERR FA0B", "out of memory", 0, UNTIL_NEXT_PASS },
	[FM_SOCKET_ERROR] = { "ERR FA0C", "socket error", 0, UNTIL_NEXT_PASS },
};

const struct fm_outcome_info *fm_outcome_info(enum fm_outcome outcome)
{
	return &outcomes[outcome < FM_OUTCOMES ? outcome : FM_MALFORMED];
}

void fm_answer_limits(struct fm_plugin *fm, struct fm_reader *r)
{
	uint64_t bound = fm_tables_bound(fm);

	memset(r->limit, 0, sizeof(r->limit));
	r->limit[FM_TABLES] = r->limit[FM_DELTA] = bound < UINT32_MAX ? (uint32_t) bound : UINT32_MAX;
	r->limit[FM_REFUSED] = FM_REFUSED_HEAD + FM_MAX_REASON;
}

enum fm_outcome fm_answer_unread(enum fm_read st, const struct fm_reader *r, struct fm_verdict *v)
{
	switch (st) {
	case FM_READ_FOREIGN:
		v->why = "answer is not of this protocol";
		return FM_MALFORMED;
	case FM_READ_TOO_LONG:
		v->why = r->type == FM_REFUSED ? "refusal longer than the protocol allows"
			: "answer larger than the subnet allows";
		return FM_MALFORMED;
	case FM_READ_NO_MEMORY:
		v->why = "out of memory reading the answer";
		return FM_NO_MEMORY;
	default:
		v->why = "answer of an unexpected type";
		return FM_MALFORMED;
	}
}

enum fm_outcome fm_answer_take(struct fm_plugin *fm, const struct fm_reader *r, struct fm_verdict *v)
{
	struct fm_refusal_frame f;

	if (r->type == FM_REFUSED) {
		if (fm_decode_refused(r->payload, r->length, &f)) {
			v->why = "refusal cut short";
			return FM_MALFORMED;
		}
		/* sequence 0: refused before the payload was read (TOO_LARGE) */
		if (f.seq && f.seq != fm->seq) {
			v->why = "refusal of another subnet";
			return FM_MALFORMED;
		}
		v->code = f.code;
		fm_log_text(v->reason, sizeof(v->reason), f.reason, f.reason_len);
		switch (f.code) {
		case FM_REFUSAL_MOVING:
			return FM_MOVING;
		case FM_REFUSAL_NOT_READY:
			return FM_NOT_READY;
		case FM_REFUSAL_INVALID:
			return FM_INVALID;
		case FM_REFUSAL_TOO_LARGE:
			return FM_TOO_LARGE;
		default:
			return FM_UNKNOWN_CODE;
		}
	}
	switch (fm_tables_take(fm, r->type, r->payload, r->length, &v->why)) {
	case FM_TAKEN:
		return FM_ROUTED;
	case FM_TAKE_NO_MEMORY:
		return FM_NO_MEMORY;
	default:
		return FM_UNFIT;
	}
}

void fm_channel_limits(struct fm_reader *r)
{
	memset(r->limit, 0, sizeof(r->limit));
	r->limit[FM_REROUTE] = 8;
	r->limit[FM_REFUSED] = FM_REFUSED_HEAD + FM_MAX_REASON;
}

void fm_channel_unread(enum fm_read st, struct fm_verdict *v)
{
	switch (st) {
	case FM_READ_FOREIGN:
		v->why = "a frame not of this protocol";
		break;
	case FM_READ_TOO_LONG:
		v->why = "a frame longer than its type allows";
		break;
	case FM_READ_NO_MEMORY:
		v->why = "out of memory reading a frame";
		break;
	default:
		v->why = "a frame of a type the channel does not take";
		break;
	}
}

enum fm_channel_frame fm_channel_take(struct fm_plugin *fm, const struct fm_reader *r, struct fm_verdict *v)
{
	struct fm_refusal_frame f;
	uint64_t request;

	if (r->type == FM_REROUTE) {
		if (fm_decode_reroute(r->payload, r->length, &request)) {
			v->why = "a REROUTE frame of another length";
			return FM_CHANNEL_MALFORMED;
		}
		pthread_mutex_lock(&fm->lock);
		fm->reroute_wanted = 1;
		fm->reroute_request = request;
		pthread_mutex_unlock(&fm->lock);
		return FM_CHANNEL_TAKEN;
	}
	if (r->type != FM_REFUSED || fm_decode_refused(r->payload, r->length, &f)) {
		v->why = r->type == FM_REFUSED ? "a REFUSED frame cut short" : "a frame of a type the channel does not take";
		return FM_CHANNEL_MALFORMED;
	}
	v->why = "the daemon refused a frame of the channel";
	v->code = f.code;
	fm_log_text(v->reason, sizeof(v->reason), f.reason, f.reason_len);
	return FM_CHANNEL_REFUSED;
}
