package org.fabricmanager.routing.dmodc.weighted;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * The refinement of {@code dmodc-weighted}: Dmodc's tables, with the up choices that failures made alike on
 * many switches spread out, at the leaves by the load already placed (as dfsssp weighs its paths), above them
 * by switch block.
 *
 * <p>Why: Dmodc picks {@code C[⌊d/Π⌋ mod #C]}, a function of the destination and the candidate list alone.
 * When a leaf lost an uplink, every other leaf sees the same shorter list towards it (one plane of the tree no
 * longer reaches it) and maps its destinations over it alike: all of them put the same two destinations on the
 * same plane, whose last link into that leaf carries twice the all-to-all load of the others. Likewise every
 * switch that lost an up link maps all destinations over its shorter list alike, so all of them send the same
 * extra destinations to their first candidate.
 *
 * <p>At the leaves: destination leaves are taken one at a time, in leaf order, and for each the source leaves in
 * leaf order. A source leaf is <em>free</em> towards a destination leaf when its candidate groups there are up
 * groups only, at least two, but not all its up groups. A free leaf keeps Dmodc's spread (consecutive
 * destinations on consecutive candidates, {@code C[(⌊d/Π⌋ + ρ) mod #C]}, the port inside the group by formula
 * (4)) but takes the rotation {@code ρ} whose paths, summed over the destination leaf's nodes, carry the least
 * all-to-all load so far ({@code ρ = 0}, Dmodc's own, on a tie); a path is the leaf's link, then the ports of the
 * switches above. Then every source leaf's nodes are added to every link of their paths, so the next source
 * leaf sees them. Above the leaves, by switch block: see {@link #rotateAboveLeaves}. Every other entry stays Dmodc's, which keeps
 * its shift balance; on an intact fabric nothing changes.
 *
 * <p>Every entry is one of Dmodc's candidates, so the tables route Dmodc's leaf pairs over shortest
 * up*&#47;down* paths and are deadlock-free as Dmodc's are. The pass is sequential (each choice sees the loads
 * of those before), deterministic, and works on primitive arrays: O(leaf pairs × nodes per leaf × path length)
 * for the loads, times the number of candidates for the free pairs.
 */
final class LoadWeighting {
    private final FabricIndex index;
    private final ForwardingTables dmodc;
    private final byte[] costs;
    private final int leaves;
    private final int[] leafSwitches;
    private final int[] ranks;
    private final int[] upGroups;
    private final int[] dividers;
    private final int[][] peers;
    /** Per switch, its first link slot: slot {@code linkBase[s] + port} is the link out of port {@code port}. */
    private final int[] linkBase;
    /** All-to-all load placed so far, per link slot. */
    private final long[] load;
    /** Per source leaf (leaf number), its candidate groups towards the current destination leaf when free. */
    private final int[] candStart;
    private int[] candGroups;
    private final byte[][] rows;
    private long changed;

    private LoadWeighting(DmodcRouting routing) {
        this.index = routing.index();
        this.dmodc = routing.result().tables();
        this.costs = routing.costs().array();
        this.leaves = index.leafCount();
        this.leafSwitches = index.leaves();
        int switches = index.switchCount();
        this.ranks = new int[switches];
        this.dividers = new int[switches];
        this.upGroups = new int[switches];
        this.peers = new int[switches][];
        this.linkBase = new int[switches + 1];
        for (int s = 0; s < switches; s++) {
            ranks[s] = routing.rank(s);
            dividers[s] = routing.divider(s);
            peers[s] = index.peerSwitches(s);
            linkBase[s + 1] = linkBase[s] + peers[s].length;
        }
        for (int s = 0; s < switches; s++) {
            for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
                if (ranks[index.groupNeighbour(g)] > ranks[s]) {
                    upGroups[s]++;
                }
            }
        }
        this.load = new long[linkBase[switches]];
        this.candStart = new int[leaves + 1];
        this.candGroups = new int[64];
        this.rows = new byte[switches][];
    }

    /** The tables' rows after the pass, {@code null} where a row is Dmodc's unchanged; and the entries changed. */
    record Result(byte[][] rows, long changed) {
    }

    /** Runs the pass over {@code routing}'s tables. */
    static Result apply(DmodcRouting routing) {
        LoadWeighting pass = new LoadWeighting(routing);
        pass.rotateAboveLeaves();
        for (int l = 0; l < pass.leaves; l++) {
            pass.prepareLeaf(l);
            for (int k = 0; k < pass.leaves; k++) {
                if (k != l && pass.costs[pass.leafSwitches[k] * pass.leaves + l] != CostTable.INFINITE) {
                    pass.routeLeafPair(k, l);
                }
            }
        }
        return new Result(pass.rows, pass.changed);
    }

    /**
     * Above the leaves, the thinned up choices (candidates up groups only, at least two, not all the switch's
     * up groups), and all the up choices of a switch with fewer up groups than another of its rank (a failure
     * took some of its up links), rotated by the switch's block: {@code ρ = ⌊i/u⌋}, {@code i} the switch's
     * position among the switches of its rank (id order), {@code u} its number of up groups (in a PGFT, its
     * pod). Dmodc maps the destinations of all such switches alike over their shorter lists, so their extra
     * destinations all land on the same candidate, and the links below it carry them from every pod; rotated,
     * switches of different blocks put them on different candidates. (Rotating by load here, as at the leaves,
     * is not done: all switches of a plane would choose at once, before any of their loads were placed.)
     */
    private void rotateAboveLeaves() {
        int[] position = new int[ranks.length];
        int[] next = new int[ranks.length + 1];
        int[] mostUp = new int[ranks.length + 1];
        int[] nodes = index.leafNodeArray();
        for (int s = 0; s < ranks.length; s++) {
            if (ranks[s] >= 0) {
                position[s] = next[ranks[s]]++;
                mostUp[ranks[s]] = Math.max(mostUp[ranks[s]], upGroups[s]);
            }
        }
        for (int s = 0; s < ranks.length; s++) {
            if (ranks[s] <= 0 || upGroups[s] < 2) {
                continue;
            }
            int rho = position[s] / upGroups[s];
            boolean weak = upGroups[s] < mostUp[ranks[s]];
            for (int l = 0; l < leaves; l++) {
                int n = upCandidates(s, l, 0, weak);
                if (n == 0) {
                    continue;
                }
                for (int i = index.leafNodeStart(l), end = index.leafNodeStart(l + 1); i < end; i++) {
                    int d = index.nodeIndex(nodes[i]);
                    int port = rotated(s, d, 0, n, rho % n);
                    if (port != dmodc.port(s, d)) {
                        set(s, d, port);
                    }
                }
            }
        }
    }

    /** Switch {@code s}'s port for {@code d} as the pass has it so far. */
    private int port(int s, int d) {
        byte[] row = rows[s];
        return row != null ? row[d] & 0xff : dmodc.port(s, d);
    }

    /** Lists, per source leaf, its candidate groups towards leaf {@code l} when it is free for it. */
    private void prepareLeaf(int l) {
        int n = 0;
        for (int k = 0; k < leaves; k++) {
            candStart[k] = n;
            int s = leafSwitches[k];
            if (k != l && ranks[s] == 0) {
                n = upCandidates(s, l, n, false);
            }
        }
        candStart[leaves] = n;
    }

    /**
     * Appends the candidate groups of switch {@code s} towards leaf {@code l} at {@code n} when they are up
     * groups only, at least two, and either not all of {@code s}'s up groups or {@code weak} (the switch lost
     * some itself); returns the new end (unchanged otherwise).
     */
    private int upCandidates(int s, int l, int n, boolean weak) {
        int own = costs[s * leaves + l];
        int candidates = 0;
        for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
            int u = index.groupNeighbour(g);
            if (costs[u * leaves + l] < own) {
                if (ranks[u] <= ranks[s]) {
                    return n; // a down (or sideways) candidate: not a thinned up choice
                }
                candidates++;
            }
        }
        if (candidates < 2 || (candidates == upGroups[s] && !weak)) {
            return n;
        }
        if (n + candidates > candGroups.length) {
            candGroups = Arrays.copyOf(candGroups, Math.max(candGroups.length * 2, n + candidates));
        }
        for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
            if (costs[index.groupNeighbour(g) * leaves + l] < own) {
                candGroups[n++] = g;
            }
        }
        return n;
    }

    /**
     * Routes the nodes of source leaf {@code k} to the nodes of leaf {@code l}: a free leaf's rotation first,
     * then the loads of its paths.
     */
    private void routeLeafPair(int k, int l) {
        int s = leafSwitches[k];
        int target = leafSwitches[l];
        int from = candStart[k];
        int n = candStart[k + 1] - from;
        int[] nodes = index.leafNodeArray();
        int first = index.leafNodeStart(l);
        int end = index.leafNodeStart(l + 1);
        if (n > 0) {
            int base = linkBase[s];
            int[] peer = peers[s];
            long best = Long.MAX_VALUE;
            int bestRho = 0;
            for (int rho = 0; rho < n; rho++) {
                long sum = 0;
                for (int i = first; i < end && sum < best; i++) {
                    int d = index.nodeIndex(nodes[i]);
                    int port = rotated(s, d, from, n, rho);
                    sum += load[base + port] + pathLoad(peer[port], target, d);
                }
                if (sum < best) {
                    best = sum;
                    bestRho = rho;
                }
            }
            for (int i = first; i < end; i++) {
                int d = index.nodeIndex(nodes[i]);
                int port = rotated(s, d, from, n, bestRho);
                if (port != port(s, d)) {
                    set(s, d, port);
                }
            }
        }
        long below = index.leafNodeStart(k + 1) - index.leafNodeStart(k);
        for (int i = first; i < end; i++) {
            int d = index.nodeIndex(nodes[i]);
            int port = port(s, d);
            if (port == ForwardingTables.NO_ROUTE) {
                continue;
            }
            load[linkBase[s] + port] += below;
            for (int u = peers[s][port]; u != target; ) {
                int p = port(u, d);
                load[linkBase[u] + p] += below;
                u = peers[u][p];
            }
        }
    }

    /**
     * {@code g = C[(⌊d/Π⌋ + ρ) mod #C]}, {@code p = g[⌊d/(Π·#C)⌋ mod #g]} over the {@code n} candidate groups
     * of {@code s} listed at {@code from}: Dmodc's formulas (3) and (4) with the choice rotated by {@code rho}.
     */
    private int rotated(int s, int d, int from, int n, int rho) {
        int q = d / dividers[s];
        int g = candGroups[from + (int) ((q + (long) rho) % n)];
        int size = index.groupSize(g);
        return index.groupPort(g, size == 1 ? 0 : (q / n) % size);
    }

    /** The load on the links of Dmodc's path from switch {@code u} to leaf switch {@code target} for {@code d}. */
    private long pathLoad(int u, int target, int d) {
        long sum = 0;
        while (u != target) {
            int p = port(u, d);
            sum += load[linkBase[u] + p];
            u = peers[u][p];
        }
        return sum;
    }

    private void set(int s, int d, int port) {
        byte[] row = rows[s];
        if (row == null) {
            row = dmodc.copyRow(s);
            rows[s] = row;
        }
        row[d] = (byte) port;
        changed++;
    }
}
