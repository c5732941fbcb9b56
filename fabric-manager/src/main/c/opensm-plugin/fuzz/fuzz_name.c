/*
 * Names as the plug-in sends them in SUBNET (fm_put_name) and reasons as it logs them (fm_log_text), from any bytes:
 * always valid UTF-8, a name within 64 bytes, and a name that was valid UTF-8 kept whole up to the last character
 * that fits.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fm_buf b = { 0 };
	char text[FM_MAX_REASON + 1];
	size_t len, keep, k;
	size_t n = size;

	fm_put_name(&b, (const char *) data, n);
	expect(!b.failed && b.len >= 1, "a name written");
	len = b.data[0];
	expect(len <= FM_MAX_NAME && b.len == 1 + len, "a name of its length, within 64 bytes");
	expect(valid_utf8(b.data + 1, len), "a name in valid UTF-8");
	if (valid_utf8(data, n)) {
		/* the longest prefix that fits and ends on a character's end */
		for (keep = 0, k = 0; k <= n && k <= FM_MAX_NAME; k++)
			if (k == n || (data[k] & 0xc0) != 0x80)
				keep = k;
		expect(len == keep && !memcmp(b.data + 1, data, len), "a valid name cut on a character's end");
	}
	free(b.data);
	fm_log_text(text, sizeof(text), data, size);
	len = strlen(text);
	expect(valid_utf8((uint8_t *) text, len), "a reason in valid UTF-8");
	for (k = 0; k < len; k++)
		expect((uint8_t) text[k] >= 0x20 && text[k] != 0x7f, "a reason without control characters");
	return 0;
}
