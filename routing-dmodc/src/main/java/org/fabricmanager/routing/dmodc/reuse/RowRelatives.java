package org.fabricmanager.routing.dmodc.reuse;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.BitRanges;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.fabricmanager.topology.FabricIndex;

/**
 * Switches whose forwarding rows are another switch's row but for a few chunks of destination leaves
 * ("relatives"), which may have other neighbours.
 *
 * <p>By formulas (1)-(4) the ports a switch gives the destinations of leaf {@code λ} depend only on its
 * own cost to {@code λ}, its neighbours' costs to {@code λ} (which groups are closer), its groups' ports
 * and its divider. So two switches {@code s} and {@code r} with the same number of groups, the same
 * ports group by group and the same divider give the same ports wherever their own costs are equal and
 * their {@code i}-th neighbours' costs are equal for every {@code i}. In a degraded fat tree a leaf that
 * lost uplinks {@code j} and {@code j'} often has a relative in another pod that lost the same two: their
 * rows differ only at the two pods, where their own costs differ, and at the few destination leaves where
 * the two pods' switches see different costs. Such a row is the relative's row copied, with the leaves of
 * the differing chunks recomputed, instead of thousands of runs (one per destination leaf) written one by one.
 *
 * <p>Rows are compared chunk by chunk ({@link ChunkClasses}). A switch is taken as a relative only when at
 * most {@link #maxChunks} chunks differ; its representative is a switch routed on its own.
 */
public final class RowRelatives {
    private static final int NONE = -1;

    private final int[] relativeOf;
    private final long[][] leaves;
    // The relatives of each representative: relative[first[s] .. first[s + 1]), ascending.
    private final int[] first;
    private final int[] relative;

    private RowRelatives(int[] relativeOf, long[][] leaves) {
        this.relativeOf = relativeOf;
        this.leaves = leaves;
        int n = relativeOf.length;
        first = new int[n + 1];
        for (int r : relativeOf) {
            if (r >= 0) {
                first[r + 1]++;
            }
        }
        for (int s = 0; s < n; s++) {
            first[s + 1] += first[s];
        }
        relative = new int[first[n]];
        int[] fill = Arrays.copyOf(first, n);
        for (int s = 0; s < n; s++) {
            if (relativeOf[s] >= 0) {
                relative[fill[relativeOf[s]]++] = s;
            }
        }
    }

    /** Most chunks a relative may differ in: an eighth of the row, and at least two (the two pods). */
    public static int maxChunks(int chunks) {
        return Math.max(2, chunks / 8);
    }

    /**
     * Finds relatives among the switches with {@code candidate[s]} set: each is compared with the first
     * candidate (in switch order) of the same group count, divider and ports, its representative, and
     * becomes its relative when they differ in few enough chunks; any other is routed on its own. Only the
     * candidates' and their neighbours' rows are classified; the comparisons run in parallel, each
     * depending on its own two switches only, so the result does not depend on the threads.
     */
    public static RowRelatives of(FabricIndex index, CostTable costs, int[] divider, RowProfiles profiles,
                           boolean[] candidate, RoutingPool pool) {
        int n = index.switchCount();
        int[] relativeOf = new int[n];
        Arrays.fill(relativeOf, NONE);
        long[][] leaves = new long[n][];
        int[] groupStart = index.groupStartArray();
        int[] neighbour = index.groupNeighbourArray();
        int[] portStart = index.groupPortStartArray();
        int[] ports = index.groupPortArray();
        // Each candidate's representative, by key; the candidates that are not one are compared below.
        Map<Key, Integer> first = new HashMap<>();
        int[] pending = new int[n];
        int[] representative = new int[n];
        int count = 0;
        for (int s = 0; s < n; s++) {
            int g0 = groupStart[s];
            int k = groupStart[s + 1] - g0;
            if (!candidate[s] || k == 0) {
                continue;
            }
            Key key = new Key(k, divider[s], Arrays.copyOfRange(ports, portStart[g0], portStart[g0 + k]),
                    Arrays.copyOfRange(portStart, g0, g0 + k + 1));
            Integer r = first.putIfAbsent(key, s);
            if (r != null) {
                pending[count] = s;
                representative[count++] = r;
            }
        }
        if (count == 0) {
            return new RowRelatives(relativeOf, leaves);
        }
        boolean[] wanted = new boolean[n];
        for (int p = 0; p < count; p++) {
            for (int s : new int[] {pending[p], representative[p]}) {
                wanted[s] = true;
                for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                    wanted[neighbour[g]] = true;
                }
            }
        }
        ChunkClasses classes = ChunkClasses.of(costs, profiles, wanted, pool);
        int chunks = classes.chunks();
        int limit = maxChunks(chunks);
        pool.forRange(count, 32, (w, from, to) -> {
            long[] differ = new long[(chunks + 63) >>> 6];
            for (int p = from; p < to; p++) {
                int s = pending[p];
                int r = representative[p];
                Arrays.fill(differ, 0L);
                int differing = classes.addDifferences(s, r, differ);
                int g0 = groupStart[s];
                int gr = groupStart[r];
                int k = groupStart[s + 1] - g0;
                for (int i = 0; i < k && differing <= limit; i++) {
                    if (neighbour[g0 + i] != neighbour[gr + i]) {
                        differing = classes.addDifferences(neighbour[g0 + i], neighbour[gr + i], differ);
                    }
                }
                if (differing <= limit) {
                    relativeOf[s] = r;
                    leaves[s] = leafBits(differ, classes, costs.leafCount());
                }
            }
        });
        return new RowRelatives(relativeOf, leaves);
    }

    /** The switch whose row {@code s} copies, or -1. */
    public int relativeOf(int s) {
        return relativeOf[s];
    }

    /** The leaves (bits) whose destinations {@code s} recomputes in the copy, or null when it is no relative. */
    public long[] leaves(int s) {
        return leaves[s];
    }

    /** Start of representative {@code s}'s relatives in {@link #relative}; they end at {@code firstRelative(s + 1)}. */
    public int firstRelative(int s) {
        return first[s];
    }

    /** The {@code i}-th relative, representatives in turn. */
    public int relative(int i) {
        return relative[i];
    }

    /** Number of relatives. */
    public int count() {
        return relative.length;
    }

    private static long[] leafBits(long[] differ, ChunkClasses classes, int leafCount) {
        long[] bits = new long[(leafCount + 63) >>> 6];
        for (int word = 0; word < differ.length; word++) {
            for (long b = differ[word]; b != 0; b &= b - 1) {
                int c = (word << 6) + Long.numberOfTrailingZeros(b);
                BitRanges.set(bits, c * ChunkClasses.CHUNK, classes.chunkEnd(c));
            }
        }
        return bits;
    }

    /** Group count, divider and ports group by group: what a relative must share. */
    private record Key(int groups, int divider, int[] ports, int[] portStart) {
        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key other)) {
                return false;
            }
            if (groups != other.groups || divider != other.divider || !Arrays.equals(ports, other.ports)) {
                return false;
            }
            // the group sizes, whatever the offsets of the groups' ports in the index
            for (int i = 0; i < groups; i++) {
                if (portStart[i + 1] - portStart[i] != other.portStart[i + 1] - other.portStart[i]) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public int hashCode() {
            return (31 * groups + divider) * 31 + Arrays.hashCode(ports);
        }
    }
}
