package org.fabricmanager.routing.dmodc.incremental;

import java.util.Arrays;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.Preprocessed;
import org.fabricmanager.topology.FabricIndex;

/**
 * What a new snapshot changes in the tables of a previous Dmodc routing: for every switch of the
 * new snapshot, whether its row is the previous one unchanged ({@link #REUSE}), the previous one
 * with some leaves' destinations recomputed ({@link #PATCH}), or to be computed whole
 * ({@link #FULL}). Switches and leaves are matched by GUID, since ids are dense and sorted by GUID
 * and shift when a switch comes or goes.
 *
 * <p>Formulas (1)-(4) give the entries of switch {@code s} for the destinations of leaf {@code l}
 * from {@code Π_s}, the port groups of {@code s}, {@code c[s][l]}, {@code c[n][l]} for each
 * neighbour {@code n} of {@code s}, and which destinations are on {@code l} (on which port). So a
 * row is whole-new when the switch, its divider, its groups (neighbour GUIDs and ports) or its
 * being a leaf changed; otherwise it changes at most at the leaves where its own cost or a
 * neighbour's changed, and at destinations that moved to another leaf or port, appeared or
 * vanished. Everything else is reused as it is.
 */
public final class RouteChanges {
    public static final byte REUSE = 0;
    public static final byte PATCH = 1;
    public static final byte FULL = 2;

    /** A row with changes at more than this share of the leaves is cheaper to compute whole. */
    private static final int PATCH_LIMIT_DIVISOR = 8;

    private final byte[] kind;
    private final int[] previousRow;
    private final long[][] dirtyLeaves;
    private final int[] dirtyDestinations;
    private final boolean everything;

    private RouteChanges(byte[] kind, int[] previousRow, long[][] dirtyLeaves, int[] dirtyDestinations,
                         boolean everything) {
        this.kind = kind;
        this.previousRow = previousRow;
        this.dirtyLeaves = dirtyLeaves;
        this.dirtyDestinations = dirtyDestinations;
        this.everything = everything;
    }

    /**
     * Compares {@code next} (with its costs and dividers) to {@code previous}.
     *
     * @param known the leaves at which each row's costs changed, when the cost update knows them
     *              (indexed by the switches of {@code next}); null to compare the rows
     * @param pool runs the per-switch comparisons in parallel
     */
    public static RouteChanges between(Preprocessed previous, FabricIndex next, CostTable costs, int[] divider,
                                long[][] known, RoutingPool pool) {
        FabricIndex before = previous.index();
        int switches = next.switchCount();
        byte[] kind = new byte[switches];
        int[] previousRow = new int[switches];
        long[][] dirty = new long[switches][];
        if (before.destinationCount() != next.destinationCount()) {
            // Every row changes length: nothing can be reused.
            Arrays.fill(kind, FULL);
            Arrays.fill(previousRow, -1);
            return new RouteChanges(kind, previousRow, dirty, new int[0], true);
        }
        int leaves = next.leafCount();
        int words = (leaves + 63) >>> 6;
        int[] leafBefore = leafMap(before, next);
        boolean sameLeaves = before.leafCount() == leaves;
        for (int l = 0; l < leaves && sameLeaves; l++) {
            sameLeaves = leafBefore[l] == l;
        }
        boolean leavesAligned = sameLeaves;
        for (int s = 0; s < switches; s++) {
            previousRow[s] = before.switchId(next.switchGuid(s));
        }
        CostTable costsBefore = previous.costs();
        // Leaves at which each switch's own cost changed (null: none; all bits: a new switch), as
        // the cost update found them, or by comparing the rows.
        long[][] changed = known != null ? known : new long[switches][];
        if (known == null) {
            pool.forRange(switches, 64, (worker, from, to) -> {
                for (int s = from; s < to; s++) {
                    changed[s] = changedCosts(costs, costsBefore, s, previousRow[s], leafBefore, leavesAligned, words);
                }
            });
        }
        int[] destinations = movedDestinations(before, next);
        pool.forRange(switches, 64, (worker, from, to) -> {
            long[] scratch = new long[words];
            for (int s = from; s < to; s++) {
                int p = previousRow[s];
                if (p < 0 || divider[s] != previous.divider(p) || !sameGroups(before, p, next, s)
                        || next.isLeaf(s) != before.isLeaf(p)) {
                    kind[s] = FULL;
                    continue;
                }
                Arrays.fill(scratch, 0L);
                boolean any = or(scratch, changed[s]);
                for (int g = next.groupStart(s); g < next.groupStart(s + 1); g++) {
                    any |= or(scratch, changed[next.groupNeighbour(g)]);
                }
                if (!any) {
                    kind[s] = destinations.length == 0 ? REUSE : PATCH;
                    continue;
                }
                int count = 0;
                for (long word : scratch) {
                    count += Long.bitCount(word);
                }
                if (count > Math.max(1, leaves / PATCH_LIMIT_DIVISOR)) {
                    kind[s] = FULL;
                } else {
                    kind[s] = PATCH;
                    dirty[s] = scratch.clone();
                }
            }
        });
        return new RouteChanges(kind, previousRow, dirty, destinations, false);
    }

    /** Whether row {@code s} is reused, patched or computed whole. */
    public byte kind(int s) {
        return kind[s];
    }

    /** The previous snapshot's id of switch {@code s}, or -1 for a new switch. */
    public int previousRow(int s) {
        return previousRow[s];
    }

    /** For a patched row: the leaves (new numbering) whose destinations are recomputed, as bits; null for none. */
    public long[] dirtyLeaves(int s) {
        return dirtyLeaves[s];
    }

    /** Destination indices whose leaf or port changed (recomputed in every reused row), ascending. */
    public int[] dirtyDestinations() {
        return dirtyDestinations;
    }

    /** True when nothing could be reused at all (the number of destination indices changed). */
    public boolean everything() {
        return everything;
    }

    /** The number of rows of each kind: reused, patched, whole. */
    public int[] counts() {
        int[] out = new int[3];
        for (byte k : kind) {
            out[k]++;
        }
        return out;
    }

    /** For each leaf number of {@code next}, the leaf number of the same switch in {@code before}, or -1. */
    private static int[] leafMap(FabricIndex before, FabricIndex next) {
        int[] out = new int[next.leafCount()];
        for (int l = 0; l < out.length; l++) {
            int p = before.switchId(next.switchGuid(next.leaves()[l]));
            out[l] = p == FabricIndex.NONE ? -1 : before.leafNumber(p);
        }
        return out;
    }

    /** The leaves where {@code s}'s costs differ from those of {@code p} in the previous snapshot. */
    private static long[] changedCosts(CostTable costs, CostTable costsBefore, int s, int p, int[] leafBefore,
                                       boolean aligned, int words) {
        int leaves = costs.leafCount();
        long[] out = null;
        if (p < 0) {
            out = new long[words];
            for (int l = 0; l < leaves; l++) {
                out[l >>> 6] |= 1L << l;
            }
            return out;
        }
        byte[] now = costs.array();
        byte[] then = costsBefore.array();
        int row = s * leaves;
        if (aligned) {
            int before = p * leaves;
            int at = 0;
            while (at < leaves) {
                int m = Arrays.mismatch(now, row + at, row + leaves, then, before + at, before + leaves);
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
        int before = p * costsBefore.leafCount();
        for (int l = 0; l < leaves; l++) {
            int q = leafBefore[l];
            if (q < 0 || now[row + l] != then[before + q]) {
                if (out == null) {
                    out = new long[words];
                }
                out[l >>> 6] |= 1L << l;
            }
        }
        return out;
    }

    /** Same neighbours (by GUID) in the same group order, with the same ports. */
    private static boolean sameGroups(FabricIndex before, int p, FabricIndex next, int s) {
        int k = next.groupCount(s);
        if (k != before.groupCount(p)) {
            return false;
        }
        int g = next.groupStart(s);
        int h = before.groupStart(p);
        for (int i = 0; i < k; i++, g++, h++) {
            if (next.switchGuid(next.groupNeighbour(g)) != before.switchGuid(before.groupNeighbour(h))
                    || next.groupSize(g) != before.groupSize(h)) {
                return false;
            }
            for (int j = 0; j < next.groupSize(g); j++) {
                if (next.groupPort(g, j) != before.groupPort(h, j)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Destination indices (same count in both) whose leaf switch (by GUID) or leaf port differs. */
    private static int[] movedDestinations(FabricIndex before, FabricIndex next) {
        int count = next.destinationCount();
        int[] out = new int[16];
        int n = 0;
        for (int d = 0; d < count; d++) {
            int a = next.nodeByDestination(d);
            int b = before.nodeByDestination(d);
            int leafA = a == FabricIndex.NONE ? FabricIndex.NONE : next.nodeLeaf(a);
            int leafB = b == FabricIndex.NONE ? FabricIndex.NONE : before.nodeLeaf(b);
            boolean same;
            if (leafA == FabricIndex.NONE || leafB == FabricIndex.NONE) {
                same = leafA == leafB;
            } else {
                same = next.switchGuid(leafA) == before.switchGuid(leafB) && next.nodeLeafPort(a) == before.nodeLeafPort(b);
            }
            if (!same) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, n * 2);
                }
                out[n++] = d;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** {@code acc |= bits}; true when {@code bits} has any bit. */
    private static boolean or(long[] acc, long[] bits) {
        if (bits == null) {
            return false;
        }
        for (int i = 0; i < acc.length; i++) {
            acc[i] |= bits[i];
        }
        return true;
    }
}
