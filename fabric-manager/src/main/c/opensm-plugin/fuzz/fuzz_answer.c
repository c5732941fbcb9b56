/*
 * A routing pass's answers as the plug-in reads them (fm_reader with the answer's limits) and judges them
 * (fm_answer_take: REFUSED, TABLES, DELTA), over a subnet of three switches. The input's first byte sets how the
 * rest is cut into reads; the rest is one answer after another, each as the next pass's, so that a DELTA can apply
 * to the tables an earlier TABLES left. Whatever comes, nothing beyond a switch's ports may reach its new_lft, and a
 * refusal's reason must reach OpenSM's log as clean UTF-8.
 */
#include "fuzz_common.h"

/* every entry OpenSM would install: a port the switch has, or none */
static void check_tables(struct fm_plugin *fm)
{
	cl_qmap_t *sws = &fm->osm->subn.sw_guid_tbl;
	cl_map_item_t *it;
	uint16_t l;

	for (it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *) it;

		for (l = 0; l <= sw->max_lid_ho; l++)
			expect(sw->new_lft[l] == OSM_NO_PATH || sw->new_lft[l] < sw->num_ports,
			       "tables taken to route to ports the switches have");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fm_plugin *fm = fake_plugin();
	struct fm_reader r;
	struct fm_verdict v;
	enum fm_outcome outcome;
	enum fm_read st;
	uint32_t s;
	size_t used;

	if (size < 1)
		return 0;
	s = 0x9e3779u ^ data[0];
	data++;
	size--;
	memset(&r, 0, sizeof(r));
	fm_answer_limits(fm, &r);
	while (size > 0) {
		st = fake_feed(&r, data, size, &s, &used);
		data += used;
		size -= used;
		if (st == FM_READ_MORE)
			break;          /* the daemon closed within the frame */
		memset(&v, 0, sizeof(v));
		outcome = st == FM_READ_FRAME ? fm_answer_take(fm, &r, &v) : fm_answer_unread(st, &r, &v);
		expect(fm_outcome_info(outcome)->err != NULL, "an outcome with its log line");
		expect(outcome == FM_ROUTED || v.why || (outcome >= FM_MOVING && outcome <= FM_UNKNOWN_CODE),
		       "a failure that says why");
		expect(memchr(v.reason, '\0', sizeof(v.reason)) && valid_utf8((uint8_t *) v.reason, strlen(v.reason)),
		       "a reason for the log as UTF-8");
		if (outcome == FM_ROUTED)
			check_tables(fm);
		fm_reader_reset(&r);
	}
	fm_reader_reset(&r);
	fm_tables_free(fm);
	return 0;
}
