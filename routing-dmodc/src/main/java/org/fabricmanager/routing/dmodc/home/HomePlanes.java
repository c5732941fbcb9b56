package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * The refinement of {@code dmodc-home}: Dmodc's tables, with every destination sent up its <em>home plane</em>
 * by every leaf of a pod that can, and the destinations that cannot follow it spread apart.
 *
 * <p>Why: Dmodc's up choice at a leaf is {@code C[⌊d/Π⌋ mod #C]} over the leaf's candidates towards the
 * destination's leaf. On an intact tree every leaf has the same list, so a destination goes up the same plane
 * from every leaf and comes down one path: a link down carries whole destinations, which a random permutation
 * fills at most once each. A leaf that lost an uplink has a shorter list and maps <em>every</em> destination
 * differently, so destinations come down several paths from a few sources each, and random permutations fill
 * those links like links up; the pairs its shorter list sends up together also travel on together, since the
 * switch above chooses by {@code ⌊d/Π⌋}, the same for destinations of one leaf, which raises the shift maximum.
 *
 * <p>Here a pod is a set of leaves and level-1 switches joined by their links (in a PGFT, a level-2 subtree), its
 * level-1 switches in id order {@code M}. A leaf of the pod sends destination {@code d} to its home
 * {@code M[⌊d/Π⌋ mod #M]} whenever that switch is one of its candidates (Dmodc's choice on an intact tree, where
 * every leaf is linked to all of {@code M}); otherwise it spreads it over its candidates by source,
 * {@code C[(⌊d/Π⌋ + k) mod #C]} ({@code k} the leaf's number), so that the leaves that cannot reach a
 * destination's home do not all pile it on the same other plane. Such a destination reaches a level-1 switch
 * that is not its home, an <em>extra</em>; there it goes up {@code C[(⌊d/Π⌋ + ⌊#C/2⌋) mod #C]} over that
 * switch's up candidates, half the list away from Dmodc's choice, which the home destinations of the same leaf
 * take. Ports inside a group follow formula (4) with the list used. Pods where no leaf is linked to all of
 * {@code M} (not a PGFT's) keep Dmodc's tables.
 *
 * <p>Every entry is one of Dmodc's candidates, so the tables route exactly Dmodc's leaf pairs over shortest
 * up*&#47;down* paths and are deadlock-free as Dmodc's are; on an intact PGFT nothing changes. Leaves are taken
 * pod by pod in parallel (a pod's leaves mark extras on its own level-1 switches only), then level-1 switches in
 * parallel; the work is one pass over the leaves' entries and one over the extras.
 */
final class HomePlanes {
    /** Pods a worker takes at a time (a pod is a few thousand entries' work per leaf). */
    private static final int PODS_PER_CHUNK = 1;
    /** Level-1 switches a worker takes at a time. */
    private static final int SWITCHES_PER_CHUNK = 16;

    private final FabricIndex index;
    private final ForwardingTables dmodc;
    private final byte[] costs;
    private final int leaves;
    private final int[] ranks;
    private final int[] dividers;
    private final Pods pods;
    /** Per level-1 switch, the destinations that reach it as extras (bit per destination), or {@code null}. */
    private final long[][] extras;
    private final byte[][] rows;

    private HomePlanes(DmodcRouting routing) {
        this.index = routing.index();
        this.dmodc = routing.result().tables();
        this.costs = routing.costs().array();
        this.leaves = index.leafCount();
        int switches = index.switchCount();
        this.ranks = new int[switches];
        this.dividers = new int[switches];
        for (int s = 0; s < switches; s++) {
            ranks[s] = routing.rank(s);
            dividers[s] = routing.divider(s);
        }
        this.pods = Pods.of(index, ranks);
        this.extras = new long[switches][];
        this.rows = new byte[switches][];
    }

    /**
     * Runs the pass over {@code routing}'s tables on {@code pool}'s workers; returns the rows after it, {@code null}
     * where no entry of a row was written (Dmodc's unchanged).
     */
    static byte[][] apply(DmodcRouting routing, RoutingPool pool) {
        HomePlanes pass = new HomePlanes(routing);
        pool.forRange(pass.pods.count(), PODS_PER_CHUNK, (worker, from, to) -> {
            for (int p = from; p < to; p++) {
                pass.homeLeaves(p);
            }
        });
        int[] levelOne = pass.pods.levelOneSwitches();
        pool.forRange(levelOne.length, SWITCHES_PER_CHUNK, (worker, from, to) -> {
            for (int i = from; i < to; i++) {
                pass.spreadExtras(levelOne[i]);
            }
        });
        return pass.rows;
    }

    /** The up choices of the leaves of pod {@code p}, marking the extras they send to its level-1 switches. */
    private void homeLeaves(int p) {
        int[] members = pods.members(p);
        int n = members.length;
        if (n == 0 || !pods.complete(p)) {
            return;
        }
        LeafScratch scratch = new LeafScratch(n, n <= Long.SIZE ? reachable(members) : null);
        for (int s : pods.leaves(p)) {
            homeLeaf(s, p, members, scratch);
        }
    }

    /**
     * Per leaf number, the pod's members closest to that leaf (a bit per member) in the first {@code leaves}
     * entries, their cost in the next {@code leaves}: one pass along each member's cost row.
     */
    private long[] reachable(int[] members) {
        long[] reach = new long[2 * leaves];
        Arrays.fill(reach, leaves, 2 * leaves, CostTable.INFINITE);
        for (int i = 0; i < members.length; i++) {
            int row = members[i] * leaves;
            for (int l = 0; l < leaves; l++) {
                int cost = costs[row + l];
                if (cost < reach[leaves + l]) {
                    reach[leaves + l] = cost;
                    reach[l] = 1L << i;
                } else if (cost == reach[leaves + l] && cost != CostTable.INFINITE) {
                    reach[l] |= 1L << i;
                }
            }
        }
        return reach;
    }

    /** A worker's arrays for one pod's leaves. */
    private static final class LeafScratch {
        final int[] slotGroup;
        final boolean[] candidate;
        final int[] candidates;
        final long[] reach;
        /** The leaf's ports to its linked slots, twice over (any rotation is one copy); unlinked slots 0. */
        final byte[] base;
        /** The leaf's linked slots in order. */
        final int[] linkedSlots;

        LeafScratch(int n, long[] reach) {
            this.slotGroup = new int[n];
            this.candidate = new boolean[n];
            this.candidates = new int[n];
            this.base = new byte[2 * n];
            this.linkedSlots = new int[n];
            this.reach = reach;
        }
    }

    private void homeLeaf(int s, int p, int[] members, LeafScratch x) {
        int n = members.length;
        int k = index.leafNumber(s);
        Arrays.fill(x.slotGroup, -1);
        int others = 0;
        long linked = 0;
        boolean single = true;
        for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
            int u = index.groupNeighbour(g);
            if (pods.slot(u) >= 0 && pods.podOf(u) == p) {
                x.slotGroup[pods.slot(u)] = g;
                linked |= n <= Long.SIZE ? 1L << pods.slot(u) : 0;
                single &= index.groupSize(g) == 1;
            } else {
                others++;
            }
        }
        boolean fast = x.reach != null && others == 0 && single && dividers[s] == 1;
        if (fast) {
            int linkedCount = 0;
            for (int i = 0; i < n; i++) {
                byte port = x.slotGroup[i] >= 0 ? (byte) index.groupPort(x.slotGroup[i], 0) : 0;
                x.base[i] = port;
                x.base[n + i] = port;
                if (x.slotGroup[i] >= 0) {
                    x.linkedSlots[linkedCount++] = i;
                }
            }
        }
        for (int l = 0; l < leaves; l++) {
            int own = costs[s * leaves + l];
            if (l == k || own == CostTable.INFINITE || (others > 0 && otherCandidate(s, l, own, p))) {
                continue;
            }
            long mask = fast ? linked & x.reach[l] : 0;
            if (mask != 0 && own == x.reach[leaves + l] + 1 && consecutive(l)) {
                if (Long.bitCount(mask) < n) {
                    homeSegment(s, l, members, linked, mask, x);
                }
            } else {
                homePair(s, l, own, members, x);
            }
        }
    }

    /** True when leaf {@code l}'s destination indices are consecutive. */
    private boolean consecutive(int l) {
        int first = index.leafNodeStart(l);
        int end = index.leafNodeStart(l + 1);
        int[] nodes = index.leafNodeArray();
        return end > first && index.nodeIndex(nodes[end - 1]) - index.nodeIndex(nodes[first]) == end - first - 1;
    }

    /**
     * The fast way (single-port groups, divider 1, consecutive destinations): the leaf's ports to its homes are
     * copied as one pattern, then the destinations whose home is not in {@code mask} (not linked, or not closest)
     * are spread over the {@code mask} slots.
     */
    private void homeSegment(int s, int l, int[] members, long linked, long mask, LeafScratch x) {
        int n = members.length;
        long all = n == Long.SIZE ? -1L : (1L << n) - 1;
        long unreachable = linked & ~mask;
        int c = Long.bitCount(mask);
        byte[] row = row(s);
        int[] nodes = index.leafNodeArray();
        int first = index.nodeIndex(nodes[index.leafNodeStart(l)]);
        int count = index.leafNodeStart(l + 1) - index.leafNodeStart(l);
        int k = index.leafNumber(s);
        int h0 = first % n;
        for (int done = 0; done < count; ) {
            int chunk = Math.min(n, count - done);
            System.arraycopy(x.base, h0, row, first + done, chunk);
            done += chunk;
        }
        for (long missing = all & ~mask; missing != 0; missing &= missing - 1) {
            int f = Long.numberOfTrailingZeros(missing);
            for (int d = first + (f - h0 + n) % n; d < first + count; d += n) {
                int slot = select(x.linkedSlots, unreachable, (int) ((d + (long) k) % c));
                row[d] = (byte) index.groupPort(x.slotGroup[slot], 0);
                markExtra(members[slot], d);
            }
        }
    }

    /**
     * The {@code p}-th of {@code linkedSlots} (ascending) not in {@code removed} (a subset of them): from slot
     * index {@code j}, the count of slots kept up to it is short of {@code p + 1} by at least the jump to the next
     * index that could be it.
     */
    private static int select(int[] linkedSlots, long removed, int p) {
        for (int j = p; ; ) {
            int slot = linkedSlots[j];
            int kept = j + 1 - Long.bitCount(removed & (slot == Long.SIZE - 1 ? -1L : (2L << slot) - 1));
            if (kept == p + 1) {
                return slot;
            }
            j += p + 1 - kept;
        }
    }

    /** The general way, one destination at a time over the candidates worked out for this pair. */
    private void homePair(int s, int l, int own, int[] members, LeafScratch x) {
        int n = members.length;
        int c = 0;
        for (int i = 0; i < n; i++) {
            x.candidate[i] = x.slotGroup[i] >= 0 && costs[members[i] * leaves + l] < own;
            if (x.candidate[i]) {
                x.candidates[c++] = i;
            }
        }
        if (c == 0 || c == n) {
            return; // no up choice here, or every home available: Dmodc's choice is the home
        }
        int k = index.leafNumber(s);
        int div = dividers[s];
        byte[] row = row(s);
        int[] nodes = index.leafNodeArray();
        for (int i = index.leafNodeStart(l), end = index.leafNodeStart(l + 1); i < end; i++) {
            int d = index.nodeIndex(nodes[i]);
            int q = d / div;
            int home = q % n;
            if (x.candidate[home]) {
                row[d] = (byte) port(x.slotGroup[home], q, n);
            } else {
                int slot = x.candidates[(int) ((q + (long) k) % c)];
                row[d] = (byte) port(x.slotGroup[slot], q, c);
                markExtra(members[slot], d);
            }
        }
    }

    /** True when {@code s} has a candidate towards leaf {@code l} outside pod {@code p} (then Dmodc's choice stays). */
    private boolean otherCandidate(int s, int l, int own, int p) {
        for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
            int u = index.groupNeighbour(g);
            if ((pods.slot(u) < 0 || pods.podOf(u) != p) && costs[u * leaves + l] < own) {
                return true;
            }
        }
        return false;
    }

    private void markExtra(int u, int d) {
        long[] bits = extras[u];
        if (bits == null) {
            bits = new long[(index.destinationCount() + 63) >>> 6];
            extras[u] = bits;
        }
        bits[d >>> 6] |= 1L << d;
    }

    /**
     * The up choices of level-1 switch {@code u} for the extras that reach it, over its up candidates. Those are
     * worked out for every leaf at once, one pass along each up neighbour's cost row.
     */
    private void spreadExtras(int u) {
        long[] bits = extras[u];
        if (bits == null) {
            return;
        }
        int[] up = new int[index.groupCount(u)];
        int ups = 0;
        for (int g = index.groupStart(u), to = g + index.groupCount(u); g < to; g++) {
            if (ranks[index.groupNeighbour(g)] > ranks[u]) {
                up[ups++] = g;
            }
        }
        if (ups == 0 || ups > Long.SIZE) {
            return;
        }
        int[] identity = new int[ups];
        for (int j = 0; j < ups; j++) {
            identity[j] = j;
        }
        long upAll = ups == Long.SIZE ? -1L : (1L << ups) - 1;
        long[] candidates = new long[leaves];
        int own = u * leaves;
        for (int j = 0; j < ups; j++) {
            int row = index.groupNeighbour(up[j]) * leaves;
            for (int l = 0; l < leaves; l++) {
                if (costs[row + l] < costs[own + l]) {
                    candidates[l] |= 1L << j;
                }
            }
        }
        byte[] table = row(u);
        int div = dividers[u];
        for (int w = 0; w < bits.length; w++) {
            for (long word = bits[w]; word != 0; word &= word - 1) {
                int d = (w << 6) + Long.numberOfTrailingZeros(word);
                long mask = candidates[index.leafNumber(index.nodeLeaf(index.nodeByDestination(d)))];
                if (mask == 0) {
                    continue;
                }
                int c = Long.bitCount(mask);
                int q = d / div;
                int slot = select(identity, upAll & ~mask, (int) ((q + (long) (c / 2)) % c));
                table[d] = (byte) port(up[slot], q, c);
            }
        }
    }

    /** Formula (4): the port of group {@code g} for {@code q = ⌊d/Π⌋} over a list of {@code n} groups. */
    private int port(int g, int q, int n) {
        int size = index.groupSize(g);
        return index.groupPort(g, size == 1 ? 0 : (q / n) % size);
    }

    /** Switch {@code s}'s row, copied from Dmodc's the first time it is written. */
    private byte[] row(int s) {
        byte[] row = rows[s];
        if (row == null) {
            row = dmodc.copyRow(s);
            rows[s] = row;
        }
        return row;
    }
}
