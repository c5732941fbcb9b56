/*
 * What the fuzz targets share (fuzz.sh): OpenSM's subnet as the plug-in reads it, made of OpenSM's own types without
 * OpenSM running; bytes handed to a reader in pieces of varying sizes, as a socket hands them; and checks of what the
 * plug-in produced, written apart from the plug-in's code so that they do not share its mistakes.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "fm_plugin.h"

/* the subnet's switches: GUIDs, ports (port 0 included, as OpenSM counts them) */
#define FAKE_SWITCHES 3
#define FAKE_MAX_LID 12
#define FAKE_SEQ 1

/* a plug-in's state over a subnet of FAKE_SWITCHES switches, LIDs 0..FAKE_MAX_LID, last subnet sent FAKE_SEQ */
struct fm_plugin *fake_plugin(void);

/* the next piece's size: mostly a few bytes, sometimes thousands, from the state s */
size_t fake_piece(uint32_t *s);

/*
 * Hands data[0..n) to r in pieces until r holds a whole frame or refuses one; *used says how many bytes it took.
 * FM_READ_MORE when the bytes ended first.
 */
enum fm_read fake_feed(struct fm_reader *r, const uint8_t *data, size_t n, uint32_t *s, size_t *used);

/* whether p[0..n) is well-formed UTF-8 (decoded to code points, then checked against Unicode's ranges) */
int valid_utf8(const uint8_t *p, size_t n);

/* aborts, so that libFuzzer reports the input, unless ok */
void expect(int ok, const char *what);

#endif
