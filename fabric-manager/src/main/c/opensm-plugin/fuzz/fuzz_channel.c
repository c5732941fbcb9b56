/*
 * The plug-in's channel as it reads the daemon's frames (fm_reader with the channel's limits, fm_channel_take:
 * REROUTE, REFUSED). The input's first byte sets how the rest is cut into reads; the rest is the stream, read as the
 * channel thread does, a refused or malformed frame ending the connection and the next bytes coming on a new one.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fm_plugin *fm = fake_plugin();
	struct fm_reader r;
	struct fm_verdict v;
	enum fm_channel_frame took;
	enum fm_read st;
	uint32_t s;
	size_t used;

	if (size < 1)
		return 0;
	s = 0x85ebcau ^ data[0];
	data++;
	size--;
	memset(&r, 0, sizeof(r));
	fm_channel_limits(&r);
	fm->reroute_wanted = 0;
	while (size > 0) {
		st = fake_feed(&r, data, size, &s, &used);
		data += used;
		size -= used;
		if (st == FM_READ_MORE)
			break;
		memset(&v, 0, sizeof(v));
		if (st == FM_READ_FRAME) {
			took = fm_channel_take(fm, &r, &v);
			expect(took != FM_CHANNEL_TAKEN || fm->reroute_wanted, "a REROUTE taken to ask for a pass");
			expect(took == FM_CHANNEL_TAKEN || v.why, "a frame not taken says why");
		} else {
			fm_channel_unread(st, &v);
			expect(v.why != NULL, "a frame not read says why");
		}
		expect(valid_utf8((uint8_t *) v.reason, strlen(v.reason)), "a reason for the log as UTF-8");
		fm_reader_reset(&r);
	}
	fm_reader_reset(&r);
	return 0;
}
