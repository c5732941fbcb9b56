/*
 * An answer's tables, checked whole and only then written to OpenSM's new_lft. TABLES carries every
 * switch's LFT by LID; DELTA carries the entries that differ from the tables of an earlier answer,
 * which the plug-in keeps (fm->held) from the last answer OpenSM took. Either way the next tables
 * are composed apart (held.spare), every entry of every switch is checked against the subnet, and
 * only then are they written and kept for the next DELTA. A DELTA against tables the plug-in does not
 * hold (another answer, other switches) is refused like any inconsistent answer; the plug-in names
 * the answer it holds in each SUBNET, so the daemon answers whole tables when they differ.
 */
#include "fm_plugin.h"

#define TABLES_HEAD (8 + 8 + 4 + 2)             /* sequence, answer, switches, entries */
#define DELTA_HEAD (8 + 8 + 8 + 4 + 2 + 4)      /* sequence, answer, base, switches, entries, changed */
#define UNFIT(text) (*why = (text), FM_TAKE_UNFIT)
#define NO_MEMORY (*why = "out of memory", FM_TAKE_NO_MEMORY)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* the index of guid in the held tables, or -1 */
static int64_t held_index(const struct fm_held *h, uint64_t guid)
{
	const uint64_t *hit = bsearch(&guid, h->guids, h->count, sizeof(*h->guids), cmp_u64);

	return hit ? hit - h->guids : -1;
}

/* never leaves *p NULL, so that rows of 0 entries still point somewhere */
static int reserve(uint8_t **p, size_t *cap, size_t need)
{
	uint8_t *q;

	if (need <= *cap && *p)
		return 0;
	q = realloc(*p, need ? need : 1);
	if (!q)
		return -1;
	*p = q;
	*cap = need;
	return 0;
}

/* the most a valid answer can hold for this subnet: one full LFT per switch (a DELTA is never larger) */
uint64_t fm_tables_bound(struct fm_plugin *fm)
{
	cl_qmap_t *sws = &fm->osm->subn.sw_guid_tbl;
	cl_map_item_t *it;
	uint32_t top = 0;

	for (it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it))
		if (((osm_switch_t *) it)->max_lid_ho > top)
			top = ((osm_switch_t *) it)->max_lid_ho;
	return TABLES_HEAD + (uint64_t) cl_qmap_count(sws) * (8 + top + 1);
}

/*
 * Checks the composed tables (held.guids, entries per switch in held.spare) against the subnet: one
 * per switch of the subnet, each within the LIDs OpenSM allocated and every port one the switch has
 * (or OSM_NO_PATH). Fills sw[i] with each table's switch.
 */
static enum fm_take check_composed(struct fm_plugin *fm, uint32_t entries, osm_switch_t **sw, const char **why)
{
	cl_qmap_t *sws = &fm->osm->subn.sw_guid_tbl;
	const struct fm_held *h = &fm->held;
	uint32_t i, l;

	if (h->count != cl_qmap_count(sws))
		return UNFIT("answer does not hold one table per switch");
	for (i = 0; i < h->count; i++) {
		const uint8_t *row = h->spare + (size_t) i * entries;

		if (i > 0 && h->guids[i] == h->guids[i - 1])
			return UNFIT("answer holds a switch twice");
		sw[i] = (osm_switch_t *) cl_qmap_get(sws, cl_hton64(h->guids[i]));
		if (sw[i] == (osm_switch_t *) cl_qmap_end(sws))
			return UNFIT("answer names a switch OpenSM does not know");
		if (entries > (uint32_t) sw[i]->max_lid_ho + 1)
			return UNFIT("answer has more LIDs than the subnet");
		for (l = 0; l < entries; l++)
			if (row[l] != OSM_NO_PATH && row[l] >= sw[i]->num_ports)
				return UNFIT("answer routes a LID to a port the switch does not have");
	}
	return FM_TAKEN;
}

/* TABLES: the switches' tables sorted by GUID into held.guids and held.spare */
static enum fm_take compose_whole(struct fm_plugin *fm, const uint8_t *p, size_t len, uint32_t count,
				  uint32_t entries, const char **why)
{
	struct fm_held *h = &fm->held;
	uint64_t *order;
	uint32_t i;
	int64_t at;

	if ((uint64_t) count * (8 + entries) + TABLES_HEAD != len)
		return UNFIT("answer length does not match its counts");
	if (count > h->guids_cap || !h->guids) {
		uint64_t *g = realloc(h->guids, (count ? count : 1) * sizeof(*g));

		if (!g)
			return NO_MEMORY;
		h->guids = g;
		h->guids_cap = count;
	}
	if (reserve(&h->spare, &h->spare_cap, (size_t) count * entries))
		return NO_MEMORY;
	/* the answer's GUIDs in its order, then each row to its GUID's place in ascending order */
	order = malloc((count ? count : 1) * sizeof(*order));
	if (!order)
		return NO_MEMORY;
	for (i = 0; i < count; i++)
		h->guids[i] = fm_get_u64(p + TABLES_HEAD + (size_t) i * (8 + entries));
	memcpy(order, h->guids, count * sizeof(*order));
	qsort(h->guids, count, sizeof(*h->guids), cmp_u64);
	h->count = count;
	for (i = 0; i < count; i++) {
		at = held_index(h, order[i]);
		memcpy(h->spare + (size_t) at * entries, p + TABLES_HEAD + (size_t) i * (8 + entries) + 8, entries);
	}
	free(order);
	return FM_TAKEN;
}

/* DELTA: the held tables cut or filled to entries, with the answer's changes, into held.spare */
static enum fm_take compose_delta(struct fm_plugin *fm, const uint8_t *p, size_t len, uint32_t count,
				  uint32_t entries, uint64_t *entries_changed, const char **why)
{
	struct fm_held *h = &fm->held;
	uint32_t changed = fm_get_u32(p + DELTA_HEAD - 4), i, c, n, keep;
	size_t at = DELTA_HEAD;
	int64_t idx;

	if (!h->id || fm_get_u64(p + 16) != h->id)
		return UNFIT("answer changes tables the plug-in does not hold");
	if (count != h->count)
		return UNFIT("answer changes tables of other switches");
	if (reserve(&h->spare, &h->spare_cap, (size_t) count * entries))
		return NO_MEMORY;
	keep = h->entries < entries ? h->entries : entries;
	for (i = 0; i < count; i++) {
		uint8_t *row = h->spare + (size_t) i * entries;

		memcpy(row, h->rows + (size_t) i * h->entries, keep);
		memset(row + keep, OSM_NO_PATH, entries - keep);
	}
	for (c = 0; c < changed; c++) {
		if (len - at < 10)
			return UNFIT("answer cut short");
		idx = held_index(h, fm_get_u64(p + at));
		n = fm_get_u16(p + at + 8);
		at += 10;
		*entries_changed += n;
		if (idx < 0)
			return UNFIT("answer changes a switch the plug-in holds no table of");
		if ((len - at) / 3 < n)
			return UNFIT("answer cut short");
		for (i = 0; i < n; i++, at += 3) {
			uint16_t lid = fm_get_u16(p + at);

			if (lid >= entries)
				return UNFIT("answer changes a LID beyond its entries");
			h->spare[(size_t) idx * entries + lid] = p[at + 2];
		}
	}
	if (at != len)
		return UNFIT("answer length does not match its counts");
	return FM_TAKEN;
}

enum fm_take fm_tables_take(struct fm_plugin *fm, uint8_t type, const uint8_t *p, size_t len, const char **why)
{
	struct fm_held *h = &fm->held;
	size_t head = type == FM_DELTA ? DELTA_HEAD : TABLES_HEAD;
	uint32_t count, entries, i;
	osm_switch_t **sw;
	enum fm_take took;
	uint64_t id, changed = 0;
	uint8_t *swap;
	size_t cap;

	if (len < head)
		return UNFIT("answer shorter than its header");
	if (fm_get_u64(p) != fm->seq)
		return UNFIT("answer to another subnet");
	id = fm_get_u64(p + 8);
	count = fm_get_u32(p + head - (type == FM_DELTA ? 10 : 6));
	entries = fm_get_u16(p + head - (type == FM_DELTA ? 6 : 2));
	if (count != cl_qmap_count(&fm->osm->subn.sw_guid_tbl))
		return UNFIT("answer does not hold one table per switch");
	sw = malloc((count ? count : 1) * sizeof(*sw));
	if (!sw)
		return NO_MEMORY;
	if (type == FM_DELTA)
		took = compose_delta(fm, p, len, count, entries, &changed, why);
	else
		took = compose_whole(fm, p, len, count, entries, why);
	if (type != FM_DELTA)
		changed = (uint64_t) count * entries;
	if (took == FM_TAKEN)
		took = check_composed(fm, entries, sw, why);
	if (took != FM_TAKEN) {
		/* a whole answer overwrote the held GUIDs: those tables are gone, the next pass asks for whole tables */
		if (type != FM_DELTA)
			h->id = 0;
		free(sw);
		return took;
	}
	for (i = 0; i < count; i++) {
		memset(sw[i]->new_lft, OSM_NO_PATH, (size_t) sw[i]->max_lid_ho + 1);
		memcpy(sw[i]->new_lft, h->spare + (size_t) i * entries, entries);
	}
	free(sw);
	swap = h->rows;
	h->rows = h->spare;
	h->spare = swap;
	cap = h->rows_cap;
	h->rows_cap = h->spare_cap;
	h->spare_cap = cap;
	h->id = id;
	h->entries = entries;
	h->delta = type == FM_DELTA;
	h->changed = changed;
	*why = NULL;
	return FM_TAKEN;
}

void fm_tables_free(struct fm_plugin *fm)
{
	free(fm->held.guids);
	free(fm->held.rows);
	free(fm->held.spare);
	memset(&fm->held, 0, sizeof(fm->held));
}
