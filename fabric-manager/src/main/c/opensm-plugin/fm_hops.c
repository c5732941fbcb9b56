/*
 * OpenSM's hop matrices between switches, by breadth-first search instead of OpenSM's generic
 * relaxation (seconds on thousands of switches: one pass over every switch's neighbours per hop of
 * the diameter, each looking up every switch LID). They hold what OpenSM's own build gives: for
 * each switch and each switch LID, the hops through each port (1 through a port that reaches that
 * switch directly, else 1 + the neighbour's least hops, propagated only over healthy links) and the
 * least in column 0. Multicast trees read them; SA path records follow the LFTs and do not. OpenSM
 * propagates switch LIDs only, and so does this. A hop_weights_file makes OpenSM build them itself
 * (return 1), since its weights change the counts.
 *
 * OpenSM clears the matrices before every pass, so every row is written each time; but the distances
 * are kept from the last pass (same switches, same LIDs): towards a target whose distances still hold
 * where links changed (each changed switch keeps a neighbour one hop closer, no changed link is a
 * shortcut), there is no search. After a cable's loss, most targets need none.
 */
#include "fm_plugin.h"

/* above this share of switches with changed links, searching every target is as cheap */
#define FULL_BELOW_ONE_IN 8
/*
 * Rows fetched ahead while a switch's rows are cleared: each row is a small allocation of its own,
 * and waiting for each in turn was most of the writing (docs/opensm.md, "Live: the daemon as
 * OpenSM's engine against ftree and updn")
 */
#define PREFETCH_ROWS 32

/* what the last pass saw, and the distances it found */
struct fm_hops {
	uint32_t n;
	osm_switch_t **sw;      /* sorted by address */
	uint64_t *guid;         /* each one's GUID: a switch freed and another allocated there is not the same */
	uint16_t *lid;
	int32_t *nbr;           /* n x 255: the switch on each port, -1 for none */
	uint8_t *healthy;       /* n x 255 */
	uint8_t *dist;          /* n x n: dist[i * n + t], least hops from i to t, OSM_NO_PATH unreachable */
};

/* the links reversed, as CSR: the switches with a link to r are from[start[r]..start[r + 1]) */
struct reversed {
	uint32_t *start, *from;
	uint8_t *ok;            /* per reversed link: healthy */
};

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) *(void *const *) a, y = (uintptr_t) *(void *const *) b;

	return x < y ? -1 : x > y;
}

/* the index of sw in sorted (n switch pointers), or -1 */
static int sw_index(osm_switch_t *const *sorted, uint32_t n, const osm_switch_t *sw)
{
	osm_switch_t *const *hit = bsearch(&sw, sorted, n, sizeof(*sorted), cmp_ptr);

	return hit ? (int) (hit - sorted) : -1;
}

static void hops_free(struct fm_hops *h)
{
	if (!h)
		return;
	free(h->sw);
	free(h->guid);
	free(h->lid);
	free(h->nbr);
	free(h->healthy);
	free(h->dist);
	free(h);
}

void fm_hops_free(struct fm_plugin *fm)
{
	hops_free(fm->hops);
	fm->hops = NULL;
}

/* the subnet's switches and links as they are now; NULL when out of memory */
static struct fm_hops *read_subnet(struct fm_plugin *fm, uint32_t n)
{
	cl_qmap_t *sws = &fm->osm->subn.sw_guid_tbl;
	struct fm_hops *h = calloc(1, sizeof(*h));
	cl_map_item_t *it;
	uint32_t i;
	uint8_t p;

	if (!h)
		return NULL;
	h->n = n;
	h->sw = malloc(n * sizeof(*h->sw));
	h->guid = malloc(n * sizeof(*h->guid));
	h->lid = malloc(n * sizeof(*h->lid));
	h->nbr = malloc((size_t) n * 255 * sizeof(*h->nbr));
	h->healthy = calloc((size_t) n * 255, 1);
	h->dist = malloc((size_t) n * n);
	if (!h->sw || !h->guid || !h->lid || !h->nbr || !h->healthy || !h->dist) {
		hops_free(h);
		return NULL;
	}
	for (i = 0, it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it))
		h->sw[i++] = (osm_switch_t *) it;
	qsort(h->sw, n, sizeof(*h->sw), cmp_ptr);
	for (i = 0; i < n; i++) {
		h->guid[i] = osm_node_get_node_guid(h->sw[i]->p_node);
		h->lid[i] = cl_ntoh16(osm_node_get_base_lid(h->sw[i]->p_node, 0));
		for (p = 0; p < 255; p++)
			h->nbr[i * 255 + p] = -1;
		for (p = 1; p < h->sw[i]->num_ports; p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(h->sw[i]->p_node, p);
			osm_node_t *remote = ph && ph->p_remote_physp ? ph->p_remote_physp->p_node : NULL;
			int r;

			if (!remote || !remote->sw || remote == h->sw[i]->p_node)
				continue;
			r = sw_index(h->sw, n, remote->sw);
			if (r < 0)
				continue;
			h->nbr[i * 255 + p] = r;
			h->healthy[i * 255 + p] = osm_link_is_healthy(ph) ? 1 : 0;
		}
	}
	return h;
}

static int reversed_links(const struct fm_hops *h, struct reversed *rv)
{
	uint32_t n = h->n, i, links = 0, *fill;
	uint8_t p;

	rv->start = calloc(n + 1, sizeof(*rv->start));
	fill = calloc(n ? n : 1, sizeof(*fill));
	if (!rv->start || !fill) {
		free(fill);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (p = 1; p < 255; p++)
			if (h->nbr[i * 255 + p] >= 0) {
				rv->start[h->nbr[i * 255 + p] + 1]++;
				links++;
			}
	for (i = 0; i < n; i++)
		rv->start[i + 1] += rv->start[i];
	rv->from = malloc((links ? links : 1) * sizeof(*rv->from));
	rv->ok = malloc(links ? links : 1);
	if (!rv->from || !rv->ok) {
		free(fill);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (p = 1; p < 255; p++)
			if (h->nbr[i * 255 + p] >= 0) {
				uint32_t r = (uint32_t) h->nbr[i * 255 + p], at = rv->start[r] + fill[r]++;

				rv->from[at] = i;
				rv->ok[at] = h->healthy[i * 255 + p];
			}
	free(fill);
	return 0;
}

/*
 * From target t backwards into column t of dist: the switches with any link to t are 1 hop away
 * (OpenSM sets direct neighbours without looking at the link's health); beyond, only healthy links
 * carry.
 */
static void search(struct fm_hops *h, const struct reversed *rv, uint32_t t, uint8_t *row_t, uint32_t *queue)
{
	uint32_t n = h->n, head, tail = 1, e, i;

	memset(row_t, OSM_NO_PATH, n);
	row_t[t] = 0;
	queue[0] = t;
	for (head = 0; head < tail; head++) {
		uint32_t x = queue[head];
		uint8_t d = row_t[x];

		if (d >= OSM_NO_PATH - 1)
			continue;
		for (e = rv->start[x]; e < rv->start[x + 1]; e++) {
			uint32_t y = rv->from[e];

			if (row_t[y] == OSM_NO_PATH && (rv->ok[e] || x == t)) {
				row_t[y] = d + 1;
				queue[tail++] = y;
			}
		}
	}
	for (i = 0; i < n; i++)
		h->dist[(size_t) i * n + t] = row_t[i];
}

/*
 * Whether the last pass's distances towards t (in h->dist) hold over the links of h: only the changed
 * switches' links differ, so each of them must still have a usable link to a switch one hop closer,
 * and none a usable link to a switch more than one hop closer.
 */
static int still_shortest(const struct fm_hops *h, uint32_t t, const uint32_t *changed, uint32_t count)
{
	uint32_t n = h->n, c;
	uint8_t p;

	for (c = 0; c < count; c++) {
		uint32_t y = changed[c];
		uint8_t dy = h->dist[(size_t) y * n + t];
		int closer = y == t || dy == OSM_NO_PATH;

		for (p = 1; p < 255; p++) {
			int32_t x = h->nbr[y * 255 + p];
			uint8_t dx;

			if (x < 0 || !(h->healthy[y * 255 + p] || (uint32_t) x == t))
				continue;
			dx = h->dist[(size_t) x * n + t];
			if (dx != OSM_NO_PATH && (dy == OSM_NO_PATH || dy > dx + 1))
				return 0;
			if (dx + 1 == dy)
				closer = 1;
		}
		if (!closer)
			return 0;
	}
	return 1;
}

/* the switches whose links differ from the last pass's; -1 when the switches or their LIDs differ */
static int64_t changed_switches(const struct fm_hops *last, const struct fm_hops *now, uint32_t *changed)
{
	uint32_t n = now->n, i, count = 0;

	if (!last || last->n != n || memcmp(last->sw, now->sw, n * sizeof(*now->sw))
	    || memcmp(last->guid, now->guid, n * sizeof(*now->guid))
	    || memcmp(last->lid, now->lid, n * sizeof(*now->lid)))
		return -1;
	for (i = 0; i < n; i++)
		if (memcmp(last->nbr + i * 255, now->nbr + i * 255, 255 * sizeof(*now->nbr))
		    || memcmp(last->healthy + i * 255, now->healthy + i * 255, 255))
			changed[count++] = i;
	return count;
}

/*
 * Every switch's row towards every switch LID it can reach, from the distances. Port by port over
 * all targets, so that the neighbour's distances are read in order and the switch's rows (small,
 * together) take the scattered writes.
 */
static int write_rows(const struct fm_hops *h)
{
	uint32_t n = h->n, i, t;
	uint8_t **rowp = malloc((n ? n : 1) * sizeof(*rowp));
	uint8_t p;

	if (!rowp)
		return -1;
	for (i = 0; i < n; i++) {
		osm_switch_t *s = h->sw[i];
		const uint8_t *mine = h->dist + (size_t) i * n;

		for (t = 0; t < n; t++) {
			uint16_t lid = h->lid[t];
			uint16_t ahead = t + PREFETCH_ROWS < n ? h->lid[t + PREFETCH_ROWS] : 0;

			if (ahead && ahead < s->num_hops && s->hops[ahead])
				__builtin_prefetch(s->hops[ahead], 1, 3);
			rowp[t] = NULL;
			if (!lid || lid > s->max_lid_ho || lid >= s->num_hops || mine[t] == OSM_NO_PATH)
				continue;
			if (!s->hops[lid]) {
				/* as osm_switch_set_hops allocates it: OpenSM frees it with the switch */
				s->hops[lid] = malloc(s->num_ports);
				if (!s->hops[lid]) {
					free(rowp);
					return -1;
				}
			}
			rowp[t] = s->hops[lid];
			memset(rowp[t], OSM_NO_PATH, s->num_ports);
			rowp[t][0] = mine[t];
		}
		for (p = 1; p < s->num_ports; p++) {
			int32_t r = h->nbr[i * 255 + p];
			const uint8_t *via;

			if (r < 0)
				continue;
			via = h->dist + (size_t) r * n;
			if (rowp[r])
				rowp[r][p] = 1;
			if (!h->healthy[i * 255 + p])
				continue;
			for (t = 0; t < n; t++)
				if (rowp[t] && (uint32_t) r != t && via[t] < OSM_NO_PATH - 1)
					rowp[t][p] = via[t] + 1;
		}
	}
	free(rowp);
	return 0;
}

int fm_build_lid_matrices(void *context)
{
	struct fm_plugin *fm = context;
	uint32_t n = cl_qmap_count(&fm->osm->subn.sw_guid_tbl), t, searched = 0;
	struct fm_hops *now = NULL;
	struct reversed rv = { 0 };
	uint32_t *changed = NULL, *queue = NULL;
	uint8_t *row_t = NULL;
	int64_t begin = now_ms(), cpu_begin = cpu_ms(), count;
	int rc = -1;

	if (fm->osm->subn.opt.hop_weights_file) {
		fm_hops_free(fm);
		return 1;
	}
	if (!n)
		return 0;
	now = read_subnet(fm, n);
	changed = malloc(n * sizeof(*changed));
	queue = malloc(n * sizeof(*queue));
	row_t = malloc(n);
	if (!now || !changed || !queue || !row_t || reversed_links(now, &rv))
		goto done;
	count = changed_switches(fm->hops, now, changed);
	if (count >= 0 && count * FULL_BELOW_ONE_IN <= n) {
		/* the last pass's distances, checked target by target */
		memcpy(now->dist, fm->hops->dist, (size_t) n * n);
		for (t = 0; t < n; t++)
			if (!still_shortest(now, t, changed, (uint32_t) count)) {
				search(now, &rv, t, row_t, queue);
				searched++;
			}
	} else {
		for (t = 0; t < n; t++)
			search(now, &rv, t, row_t, queue);
		searched = n;
	}
	if (write_rows(now))
		goto done;
	rc = 0;
	osm_log(&fm->osm->log, OSM_LOG_INFO,
		"fabric-manager: hop matrices of %u switches built in %lld ms (cpu %lld ms; %u targets searched)\n",
		n, (long long) (now_ms() - begin), (long long) (cpu_ms() - cpu_begin), searched);
done:
	if (rc) {
		osm_log(&fm->osm->log, OSM_LOG_ERROR,
			"fabric-manager: ERR FA10: out of memory building the hop matrices; OpenSM builds them\n");
		hops_free(now);
		fm_hops_free(fm);
	} else {
		fm_hops_free(fm);
		fm->hops = now;
	}
	free(rv.start);
	free(rv.from);
	free(rv.ok);
	free(changed);
	free(queue);
	free(row_t);
	return rc ? 1 : 0;
}
