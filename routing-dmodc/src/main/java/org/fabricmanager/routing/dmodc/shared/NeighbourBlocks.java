package org.fabricmanager.routing.dmodc.shared;

import java.util.Arrays;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Splits each switch's port groups into blocks, maximal runs of consecutive groups (in group
 * order) whose neighbours are all up, or all down, and gathers the blocks whose neighbours overlap
 * into one {@link SharedRows} set: the leaves of a pod all look up at the pod's switches, the
 * switches of a plane at the plane's top switches. A switch whose groups all fall into at most
 * {@link #MAX_BLOCKS} blocks of usable sets (at most {@link SharedRows#MAX_MEMBERS} rows) is
 * routed from the sets; any other (equal-rank neighbours, sets too large) is routed on its own.
 *
 * <p>For each block: its first group (relative to the switch's first), its length, its set, which
 * of the set's rows it has (a mask) and the positions it lacks, so that a mask over the set's rows
 * is turned into a mask over the block's groups by dropping those positions.
 */
public final class NeighbourBlocks {
    /** Blocks a switch may have and still be routed from shared sets. */
    public static final int MAX_BLOCKS = 4;

    private static final int UP = 0;
    private static final int DOWN = 1;

    private final boolean[] eligible;
    private final int[] blockStart;
    private final int[] groupFrom;
    private final int[] groupCount;
    private final int[] set;
    private final long[] has;
    private final int[] missingStart;
    private final int[] missing;
    private final SharedRows[] sets;
    private final IntervalGroups[] intervalGroups;

    /**
     * Where the blocks are: per switch whether it is routed from shared sets ({@code eligible}) and
     * its first block ({@code blockStart}, {@code n + 1} entries); per block its first group relative
     * to its switch's ({@code groupFrom}), its number of groups ({@code groupCount}) and its set's id
     * ({@code set}).
     */
    record Layout(boolean[] eligible, int[] blockStart, int[] groupFrom, int[] groupCount, int[] set) {
    }

    /**
     * Per block, the rows of its set it has ({@code has}, a mask over their positions) and the
     * positions it lacks, highest first ({@code missing[missingStart[b] .. missingStart[b + 1])}).
     */
    record RowMasks(long[] has, int[] missingStart, int[] missing) {
    }

    /** The shared sets by id, and the interval groups of each (null where not built). */
    record Sets(SharedRows[] rows, IntervalGroups[] intervalGroups) {
    }

    /** Unpacks the arrays, which routing reads per block and per interval. */
    private NeighbourBlocks(Layout layout, RowMasks masks, Sets sets) {
        this.eligible = layout.eligible();
        this.blockStart = layout.blockStart();
        this.groupFrom = layout.groupFrom();
        this.groupCount = layout.groupCount();
        this.set = layout.set();
        this.has = masks.has();
        this.missingStart = masks.missingStart();
        this.missing = masks.missing();
        this.sets = sets.rows();
        this.intervalGroups = sets.intervalGroups();
    }

    /** Finds the blocks and builds their sets from the final costs, sets in parallel; no interval groups. */
    static NeighbourBlocks of(FabricIndex index, int[] rank, CostTable costs, RowProfiles profiles, RoutingPool pool) {
        return of(index, rank, costs, profiles, null, pool);
    }

    /**
     * The same, with the {@link IntervalGroups} of every set asked by a switch whose groups are one
     * block looking up (a leaf looking up at its pod: the switches routed by rotations), when
     * {@code destinations} is given.
     */
    public static NeighbourBlocks of(FabricIndex index, int[] rank, CostTable costs, RowProfiles profiles,
                              LeafDestinations destinations, RoutingPool pool) {
        return of(index, rank, costs, profiles, destinations, DmodcShortcuts.ALL, pool);
    }

    /**
     * The same, taking only the {@code shortcuts} given: {@link DmodcShortcuts.Shortcut#SPLICE} (else every
     * set is built in full) and {@link DmodcShortcuts.Shortcut#UNREACHABLE_LAST} (else no interval is dropped
     * or merged over leaves no asker reaches).
     */
    public static NeighbourBlocks of(FabricIndex index, int[] rank, CostTable costs, RowProfiles profiles,
                              LeafDestinations destinations, DmodcShortcuts shortcuts, RoutingPool pool) {
        int n = index.switchCount();
        int[] groupStart = index.groupStartArray();
        int[] neighbour = index.groupNeighbourArray();
        boolean[] eligible = new boolean[n];
        int[] blockStart = new int[n + 1];
        // Blocks of every eligible switch, in switch order: first group (absolute) and direction.
        int[] first = new int[Math.max(16, n)];
        int[] length = new int[first.length];
        int[] direction = new int[first.length];
        int blocks = 0;
        int[][] parent = {identity(n), identity(n)};
        for (int s = 0; s < n; s++) {
            blockStart[s] = blocks;
            int g0 = groupStart[s];
            int g1 = groupStart[s + 1];
            if (rank[s] == Ranking.UNREACHED || g0 == g1) {
                continue;
            }
            int mine = 0;
            boolean ok = true;
            for (int g = g0; g < g1 && ok; ) {
                int dir = direction(rank[s], rank[neighbour[g]]);
                if (dir < 0 || mine == MAX_BLOCKS) {
                    ok = false;
                    break;
                }
                int end = g + 1;
                while (end < g1 && direction(rank[s], rank[neighbour[end]]) == dir) {
                    end++;
                }
                if (blocks + mine == first.length) {
                    first = Arrays.copyOf(first, first.length * 2);
                    length = Arrays.copyOf(length, first.length);
                    direction = Arrays.copyOf(direction, first.length);
                }
                first[blocks + mine] = g;
                length[blocks + mine] = end - g;
                direction[blocks + mine] = dir;
                mine++;
                g = end;
            }
            if (!ok) {
                continue;
            }
            for (int b = blocks; b < blocks + mine; b++) {
                int[] uf = parent[direction[b]];
                int root = find(uf, neighbour[first[b]]);
                for (int g = first[b] + 1; g < first[b] + length[b]; g++) {
                    int other = find(uf, neighbour[g]);
                    if (other != root) {
                        uf[other] = root;
                    }
                }
            }
            eligible[s] = true;
            blocks += mine;
        }
        blockStart[n] = blocks;

        // One set per (direction, root); its rows are the neighbours of its blocks.
        int[][] setOfRoot = {new int[n], new int[n]};
        Arrays.fill(setOfRoot[UP], -1);
        Arrays.fill(setOfRoot[DOWN], -1);
        int[] setOfBlock = new int[blocks];
        int setCount = 0;
        int[][] rowSet = {new int[n], new int[n]};
        Arrays.fill(rowSet[UP], -1);
        Arrays.fill(rowSet[DOWN], -1);
        int[] rows = new int[16];
        for (int b = 0; b < blocks; b++) {
            int dir = direction[b];
            int root = find(parent[dir], neighbour[first[b]]);
            if (setOfRoot[dir][root] < 0) {
                setOfRoot[dir][root] = setCount++;
                if (setCount > rows.length) {
                    rows = Arrays.copyOf(rows, rows.length * 2);
                }
            }
            int id = setOfRoot[dir][root];
            setOfBlock[b] = id;
            for (int g = first[b]; g < first[b] + length[b]; g++) {
                if (rowSet[dir][neighbour[g]] < 0) {
                    rowSet[dir][neighbour[g]] = id;
                    rows[id]++;
                }
            }
        }
        int[][] members = new int[setCount][];
        for (int id = 0; id < setCount; id++) {
            members[id] = new int[rows[id]];
        }
        int[] fill = new int[setCount];
        for (int dir = UP; dir <= DOWN; dir++) {
            for (int u = 0; u < n; u++) {
                int id = rowSet[dir][u];
                if (id >= 0) {
                    members[id][fill[id]++] = u; // ascending u: rows come sorted
                }
            }
        }
        // Switches with a block in an oversized set are routed on their own.
        boolean[] usable = new boolean[setCount];
        for (int id = 0; id < setCount; id++) {
            usable[id] = members[id].length <= SharedRows.MAX_MEMBERS;
        }
        for (int s = 0; s < n; s++) {
            for (int b = blockStart[s]; b < blockStart[s + 1] && eligible[s]; b++) {
                eligible[s] = usable[setOfBlock[b]];
            }
        }
        // The most common mode among the switches asking each set: its masks are precomputed.
        int[][] modeCounts = new int[setCount][];
        boolean[] single = new boolean[setCount];
        for (int s = 0; s < n; s++) {
            if (!eligible[s]) {
                continue;
            }
            // Only a leaf (one block, looking up) is routed by rotations, the one user of IntervalGroups:
            // a top switch's one block looks down, and building its set's groups would be wasted.
            if (blockStart[s + 1] - blockStart[s] == 1 && direction[blockStart[s]] == UP) {
                single[setOfBlock[blockStart[s]]] = true;
            }
            for (int b = blockStart[s]; b < blockStart[s + 1]; b++) {
                int id = setOfBlock[b];
                if (modeCounts[id] == null) {
                    modeCounts[id] = new int[CostTable.INFINITE + 1];
                }
                modeCounts[id][profiles.mode(s)]++;
            }
        }
        UnreachedLeaves unreachedLeaves = new UnreachedLeaves(setCount, costs, profiles);
        for (int s = 0; s < n; s++) {
            if (eligible[s]) {
                unreachedLeaves.ask(s, setOfBlock, blockStart[s], blockStart[s + 1]);
            }
        }
        long[][] unreached = unreachedLeaves.bySet();
        boolean splice = shortcuts.on(DmodcShortcuts.Shortcut.SPLICE);
        boolean merge = shortcuts.on(DmodcShortcuts.Shortcut.UNREACHABLE_LAST);
        SharedRows[] sets = new SharedRows[setCount];
        IntervalGroups[] intervalGroups = new IntervalGroups[setCount];
        SharedRowsScratch[] scratch = new SharedRowsScratch[pool.threads()];
        SharedRows[] lastPod = new SharedRows[pool.threads()];
        pool.forRange(setCount, 1, (worker, from, to) -> {
            if (scratch[worker] == null) {
                scratch[worker] = new SharedRowsScratch(costs.leafCount());
            }
            for (int id = from; id < to; id++) {
                if (modeCounts[id] != null) {
                    int threshold = mostCommon(modeCounts[id]);
                    // A pod's set, asked by its leaves, from the last one this worker built: they differ on
                    // the two pods' own leaves and little else (SharedRowsSplice.splice), and each set is exact.
                    boolean pod = single[id] && unreached[id] == null;
                    sets[id] = splice && pod && lastPod[worker] != null
                            ? SharedRowsSplice.splice(lastPod[worker], members[id], costs, profiles, threshold, scratch[worker])
                            : null;
                    if (sets[id] != null) {
                        shortcuts.hit(DmodcShortcuts.Shortcut.SPLICE);
                    } else {
                        long[] over = merge ? unreached[id] : null;
                        if (over != null) {
                            shortcuts.hit(DmodcShortcuts.Shortcut.UNREACHABLE_LAST);
                        }
                        sets[id] = SharedRowsBuilder.build(members[id], costs, profiles, threshold, over, scratch[worker]);
                    }
                    if (pod) {
                        lastPod[worker] = sets[id];
                    }
                    if (destinations != null && single[id]) {
                        intervalGroups[id] = IntervalGroups.of(sets[id], destinations);
                    }
                }
            }
        });

        // Per block: which rows of its set it has, and which positions it lacks.
        int[] groupFrom = new int[blocks];
        long[] has = new long[blocks];
        int[] missingStart = new int[blocks + 1];
        int[] missing = new int[16];
        int missingCount = 0;
        for (int s = 0; s < n; s++) {
            for (int b = blockStart[s]; b < blockStart[s + 1]; b++) {
                missingStart[b] = missingCount;
                groupFrom[b] = first[b] - groupStart[s];
                SharedRows rowsOf = eligible[s] ? sets[setOfBlock[b]] : null;
                if (rowsOf == null) {
                    continue;
                }
                long mask = 0;
                for (int g = first[b]; g < first[b] + length[b]; g++) {
                    mask |= 1L << rowsOf.position(neighbour[g]);
                }
                has[b] = mask;
                // Lacking positions, highest first: removing a bit shifts only the ones above it.
                for (int j = rowsOf.size() - 1; j >= 0; j--) {
                    if ((mask & (1L << j)) == 0) {
                        if (missingCount == missing.length) {
                            missing = Arrays.copyOf(missing, missing.length * 2);
                        }
                        missing[missingCount++] = j;
                    }
                }
            }
        }
        missingStart[blocks] = missingCount;
        Layout layout = new Layout(eligible, blockStart, groupFrom, Arrays.copyOf(length, blocks), setOfBlock);
        RowMasks masks = new RowMasks(has, missingStart, Arrays.copyOf(missing, missingCount));
        return new NeighbourBlocks(layout, masks, new Sets(sets, intervalGroups));
    }

    /** True when switch {@code s} is routed from shared sets. */
    public boolean eligible(int s) {
        return eligible[s];
    }

    /** First block of switch {@code s}; its blocks end at {@code firstBlock(s + 1)}. */
    public int firstBlock(int s) {
        return blockStart[s];
    }

    /** The set of block {@code b}. */
    public SharedRows rows(int b) {
        return sets[set[b]];
    }

    /** The interval groups of block {@code b}'s set, or null when they were not built. */
    public IntervalGroups intervalGroups(int b) {
        return intervalGroups[set[b]];
    }

    /** First group of block {@code b}, relative to its switch's first group. */
    public int groupFrom(int b) {
        return groupFrom[b];
    }

    /** The rows of its set that block {@code b} has, as a mask over their positions. */
    public long has(int b) {
        return has[b];
    }

    /** Number of groups of block {@code b}. */
    public int groupCount(int b) {
        return groupCount[b];
    }

    /**
     * A mask over the rows of block {@code b}'s set turned into a mask over its groups (bit
     * {@code i} for its {@code i}-th group): rows it lacks are dropped.
     */
    public long toGroups(int b, long rowsMask) {
        long x = rowsMask & has[b];
        for (int i = missingStart[b]; i < missingStart[b + 1]; i++) {
            long low = (1L << missing[i]) - 1;
            x = (x & low) | ((x >>> 1) & ~low);
        }
        return x;
    }

    private static int direction(int from, int to) {
        if (to == from + 1) {
            return UP;
        }
        if (to == from - 1) {
            return DOWN;
        }
        return -1;
    }

    private static int mostCommon(int[] counts) {
        int best = 0;
        for (int v = 1; v < counts.length; v++) {
            if (counts[v] > counts[best]) {
                best = v;
            }
        }
        return best;
    }

    private static int[] identity(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }
}
