package org.fabricmanager.routing.dmodc.preprocess;

import java.util.Arrays;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Procedure 1 after faults: the costs and dividers of {@link CostDivider} for a snapshot, from the
 * routing of an earlier snapshot with exactly the same leaves (GUIDs, in the same order). Rows whose
 * inputs did not change are copied (with their profiles), the others recomputed, rank by rank, with
 * the full computation's down pass ({@link DownPass}); the result is exactly what
 * {@link CostDivider#compute} gives, plus the leaves at which each row changed, which
 * {@code RouteChanges} takes instead of comparing the cost tables again.
 *
 * <p>Going up, a row of rank {@code r} holds {@code r} at the leaves below it (reached by a
 * strictly descending path) and infinity elsewhere, so the up-pass row of any switch can be read
 * off its final row: the leaves where the final cost equals its rank. A switch is recomputed
 * going up when it is new, changed rank, changed down neighbours or one of them changed the
 * leaves below it; going down when its leaves below, its up neighbours or one of their final
 * rows changed. Dividers are recomputed for all switches (they cost no per-leaf work).
 */
public final class CostDividerUpdate extends CostRows {
    private CostDividerUpdate(FabricIndex index, Ranks ranks, Neighbours neighbours) {
        super(index, ranks, neighbours);
    }

    /** The costs and dividers of {@code index} updated from {@code previous}: see the class comment. */
    public static CostDivider.Result update(FabricIndex index, Ranks ranks, Neighbours neighbours, RoutingPool pool,
                                     Preprocessed previous) {
        return new CostDividerUpdate(index, ranks, neighbours).update(pool, previous);
    }

    private CostDivider.Result update(RoutingPool pool, Preprocessed previous) {
        int switches = index.switchCount();
        int[] rank = ranks.array();
        int top = ranks.top();
        FabricIndex before = previous.index();
        byte[] then = previous.costs().array();
        int[] rankBefore = previous.ranks();
        RowProfiles profilesBefore = previous.profiles();
        Neighbours neighboursBefore = Neighbours.of(before, rankBefore);
        int words = (leaves + 63) >>> 6;
        int[] map = new int[switches];
        for (int s = 0; s < switches; s++) {
            map[s] = before.switchId(index.switchGuid(s));
        }
        dividers(rank, top);
        boolean[] upRow = new boolean[switches];
        boolean[] coneChanged = new boolean[switches];
        long[][] changed = new long[switches][];
        DownScratch[] scratches = new DownScratch[pool.threads()];
        long[][] columnsOf = new long[pool.threads()][];
        pool.forRange(switches, 64, (worker, from, to) -> {
            for (int s = from; s < to; s++) {
                if (rank[s] == Ranking.UNREACHED) {
                    Arrays.fill(c, s * leaves, (s + 1) * leaves, (byte) CostTable.INFINITE);
                    profiles.setUnreachable(s);
                    changed[s] = differences(s, map[s], then, words);
                }
            }
        });
        // Up: the leaves below each switch, where they may have changed.
        for (int r = 0; r <= top; r++) {
            int level = r;
            pool.forRange(ranks.levelSize(r), CostDivider.GRAIN, (worker, from, to) -> {
                for (int i = from; i < to; i++) {
                    int s = ranks.levelSwitch(level, i);
                    int p = map[s];
                    boolean dirty = p < 0 || rankBefore[p] != level
                            || !sameSwitches(neighbours.downStart(s), neighbours.downEnd(s), true, neighboursBefore,
                                    p, before);
                    for (int k = neighbours.downStart(s); k < neighbours.downEnd(s) && !dirty; k++) {
                        dirty = coneChanged[neighbours.down(k)];
                    }
                    if (!dirty) {
                        continue;
                    }
                    cone(s, level, map, upRow, then);
                    upRow[s] = true;
                    coneChanged[s] = p < 0 || rankBefore[p] != level || !sameCone(s, p * leaves, level, then);
                }
            });
        }
        // Down: final rows, copied where nothing they depend on changed.
        for (int r = top; r >= 0; r--) {
            int level = r;
            pool.forRange(ranks.levelSize(r), CostDivider.GRAIN, (worker, from, to) -> {
                DownScratch scratch = DownScratch.of(scratches, worker, leaves);
                for (int i = from; i < to; i++) {
                    int s = ranks.levelSwitch(level, i);
                    int p = map[s];
                    boolean whole = p < 0 || rankBefore[p] != level || coneChanged[s]
                            || !sameSwitches(neighbours.upStart(s), neighbours.upEnd(s), false, neighboursBefore, p,
                                    before);
                    if (!whole) {
                        // Only the leaves where an up neighbour's final row changed can change.
                        long[] columns = columns(columnsOf, worker, words);
                        int count = 0;
                        for (int k = neighbours.upStart(s); k < neighbours.upEnd(s); k++) {
                            long[] theirs = changed[neighbours.up(k)];
                            if (theirs != null) {
                                for (int w = 0; w < words; w++) {
                                    columns[w] |= theirs[w];
                                }
                                count = -1;
                            }
                        }
                        if (count < 0) {
                            count = 0;
                            for (long bits : columns) {
                                count += Long.bitCount(bits);
                            }
                        }
                        if (count <= leaves / 8) {
                            System.arraycopy(then, p * leaves, c, s * leaves, leaves);
                            if (count > 0) {
                                changed[s] = recomputeColumns(s, level, columns, then, p * leaves, words);
                            }
                            if (changed[s] == null) {
                                profiles.copy(s, profilesBefore, p);
                            } else {
                                profiles.profile(table, s, scratch.histogram, scratch.segments);
                            }
                            continue;
                        }
                    }
                    if (!upRow[s]) {
                        coneFromFinal(s, p * leaves, level, then);
                    }
                    if (level < top) {
                        down.pullDown(s, scratch);
                    }
                    profiles.profile(table, s, scratch.histogram, scratch.segments);
                    changed[s] = differences(s, p, then, words);
                }
            });
        }
        return new CostDivider.Result(table, divider, profiles, changed);
    }

    /**
     * Procedure 1 at the leaves {@code columns} of {@code s} (rank {@code r}), whose row holds the
     * previous one: {@code min(r if the leaf is below s, c[u][l] + 1 over its up neighbours)}.
     * Returns the leaves whose cost changed, or null.
     */
    private long[] recomputeColumns(int s, int r, long[] columns, byte[] then, int before, int words) {
        int row = s * leaves;
        long[] out = null;
        for (int w = 0; w < words; w++) {
            long bits = columns[w];
            while (bits != 0) {
                int l = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                int best = then[before + l] == r ? r : CostTable.INFINITE;
                for (int k = neighbours.upStart(s); k < neighbours.upEnd(s); k++) {
                    int v = c[neighbours.up(k) * leaves + l];
                    if (v != CostTable.INFINITE && v + 1 < best) {
                        best = v + 1;
                    }
                }
                if (best != c[row + l]) {
                    c[row + l] = (byte) best;
                    if (out == null) {
                        out = new long[words];
                    }
                    out[w] |= 1L << l;
                }
            }
        }
        return out;
    }

    /** The dividers of every switch, by ranks going up (the divider part of the full computation's up pass). */
    private void dividers(int[] rank, int top) {
        Arrays.fill(divider, 1);
        for (int r = 1; r <= top; r++) {
            for (int i = 0; i < ranks.levelSize(r); i++) {
                int s = ranks.levelSwitch(r, i);
                long pi = 1;
                for (int k = neighbours.downStart(s); k < neighbours.downEnd(s); k++) {
                    int t = neighbours.down(k);
                    pi = Math.max(pi, (long) divider[t] * neighbours.upCount(t));
                }
                divider[s] = (int) Math.min(pi, Integer.MAX_VALUE);
            }
        }
    }

    /**
     * The up-pass row of {@code s} of rank {@code r}: {@code r} at the leaves below one of its
     * down neighbours, infinity elsewhere (its own leaf at 0 for a leaf). A down neighbour's
     * leaves below are where its row holds its rank: the up-pass row when recomputed in this
     * update, else its previous final row.
     */
    private void cone(int s, int r, int[] map, boolean[] upRow, byte[] then) {
        int row = s * leaves;
        Arrays.fill(c, row, row + leaves, (byte) CostTable.INFINITE);
        if (r == 0) {
            c[row + index.leafNumber(s)] = 0;
            return;
        }
        long mine = ByteLanes.ONES * r;
        long theirs = ByteLanes.ONES * (r - 1);
        for (int k = neighbours.downStart(s); k < neighbours.downEnd(s); k++) {
            int t = neighbours.down(k);
            byte[] source = upRow[t] ? c : then;
            int other = upRow[t] ? t * leaves : map[t] * leaves;
            for (int l = 0; l < wide; l += 8) {
                long equal = equalLanes(ByteLanes.get(source, other + l), theirs);
                if (equal != 0) {
                    long v = ByteLanes.get(c, row + l);
                    ByteLanes.set(c, row + l, (v & ~equal) | (mine & equal));
                }
            }
            for (int l = wide; l < leaves; l++) {
                if (source[other + l] == r - 1) {
                    c[row + l] = (byte) r;
                }
            }
        }
    }

    /** The up-pass row of {@code s} (rank {@code r}) read off its previous final row at {@code before}. */
    private void coneFromFinal(int s, int before, int r, byte[] then) {
        int row = s * leaves;
        long mine = ByteLanes.ONES * r;
        long inf = ByteLanes.ONES * CostTable.INFINITE;
        for (int l = 0; l < wide; l += 8) {
            long equal = equalLanes(ByteLanes.get(then, before + l), mine);
            ByteLanes.set(c, row + l, (mine & equal) | (inf & ~equal));
        }
        for (int l = wide; l < leaves; l++) {
            c[row + l] = then[before + l] == r ? (byte) r : (byte) CostTable.INFINITE;
        }
    }

    /** True when the up-pass row of {@code s} has the same leaves below as the previous final row at {@code before}. */
    private boolean sameCone(int s, int before, int r, byte[] then) {
        int row = s * leaves;
        long mine = ByteLanes.ONES * r;
        for (int l = 0; l < wide; l += 8) {
            if (equalLanes(ByteLanes.get(c, row + l), mine) != equalLanes(ByteLanes.get(then, before + l), mine)) {
                return false;
            }
        }
        for (int l = wide; l < leaves; l++) {
            if ((c[row + l] == r) != (then[before + l] == r)) {
                return false;
            }
        }
        return true;
    }

    /** The leaves where the final row of {@code s} differs from the previous row {@code p} (all for a new switch); null when none. */
    private long[] differences(int s, int p, byte[] then, int words) {
        long[] out = null;
        int row = s * leaves;
        if (p < 0) {
            out = new long[words];
            for (int l = 0; l < leaves; l++) {
                out[l >>> 6] |= 1L << l;
            }
            return out;
        }
        int before = p * leaves;
        int at = 0;
        while (at < leaves) {
            int m = Arrays.mismatch(c, row + at, row + leaves, then, before + at, before + leaves);
            if (m < 0) {
                break;
            }
            if (out == null) {
                out = new long[words];
            }
            out[(at + m) >>> 6] |= 1L << (at + m);
            at += m + 1;
        }
        return out;
    }

    /**
     * True when the down ({@code down}) or up neighbours {@code [from, to)} of a switch are,
     * GUID for GUID in order, those of switch {@code p} of the previous snapshot.
     */
    private boolean sameSwitches(int from, int to, boolean down, Neighbours before, int p, FabricIndex previous) {
        int pf = down ? before.downStart(p) : before.upStart(p);
        int pt = down ? before.downEnd(p) : before.upEnd(p);
        if (to - from != pt - pf) {
            return false;
        }
        for (int k = 0; k < to - from; k++) {
            int mine = down ? neighbours.down(from + k) : neighbours.up(from + k);
            int theirs = down ? before.down(pf + k) : before.up(pf + k);
            if (index.switchGuid(mine) != previous.switchGuid(theirs)) {
                return false;
            }
        }
        return true;
    }

    /** Per byte: all ones where {@code a} and {@code b} are equal (bytes in [0, 127]), zero elsewhere. */
    private static long equalLanes(long a, long b) {
        return ((~((a ^ b) + 0x7F7F7F7F7F7F7F7FL) & ByteLanes.HIGH) >>> 7) * 0xFF;
    }

    /** Worker {@code worker}'s bits of the leaves to recompute in a row, cleared, of at least {@code words} words. */
    private static long[] columns(long[][] columns, int worker, int words) {
        if (columns[worker] == null || columns[worker].length < words) {
            columns[worker] = new long[words];
        }
        Arrays.fill(columns[worker], 0, words, 0L);
        return columns[worker];
    }
}
