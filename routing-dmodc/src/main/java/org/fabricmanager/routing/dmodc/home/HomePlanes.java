package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.DmodcFormula;
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
 * every leaf is linked to all of {@code M}); otherwise it sends it to a candidate by the pod's shares
 * ({@link ExtraShares}: more to the level-1 switches with more links up, each leaf's own links weighed, the leaves
 * starting apart so that those that cannot reach a destination's home do not all pile it on the same other plane;
 * {@code C[(⌊d/Π⌋ + k) mod #C]}, {@code k} the leaf's number, where the shares have no candidate); a few sources
 * outside a pod send a <em>weak</em> home (its switch lost links up) by its detour instead ({@link Detours}). Such a
 * destination reaches a level-1 switch that is not its home, an <em>extra</em>; there it goes up
 * {@code C[(⌊d/Π⌋ + ⌊#C/2⌋) mod #C]} over that switch's up candidates, half the list away from Dmodc's choice,
 * which the home destinations of the same leaf take. Ports inside a group follow formula (4) with the list used.
 * Pods with more level-1 switches than any leaf is linked to in its pod (not a PGFT's, {@link Pods#regular}) keep
 * Dmodc's tables.
 *
 * <p>Every entry is one of Dmodc's candidates, so the tables route exactly Dmodc's leaf pairs over shortest
 * up*&#47;down* paths and are deadlock-free as Dmodc's are; on an intact PGFT nothing changes. Leaves are taken
 * pod by pod in parallel (a pod's leaves mark extras on its own level-1 switches only), then the level-1 switches
 * plane by plane ({@link ExtraSpread}). A leaf's row is its home pattern copied over the whole row, then only the
 * entries that leave it are written one by one: where work goes is the entries a failure moves.
 */
final class HomePlanes {
    /** Pods a worker takes at a time (a pod is a few thousand entries' work per leaf). */
    private static final int PODS_PER_CHUNK = 1;
    /** Planes a worker takes at a time (a plane is a level-1 switch of every pod). */
    private static final int PLANES_PER_CHUNK = 1;

    private final FabricIndex index;
    private final ForwardingTables dmodc;
    private final byte[] costs;
    private final int leaves;
    private final int destinations;
    private final int[] ranks;
    private final int[] dividers;
    private final Pods pods;
    private final LeafDestinations layout;
    /** Per destination, its leaf's number ({@code -1}: unused index). */
    private final int[] destinationLeaf;
    /** Per leaf number, its first destination when its destinations are consecutive, else {@code -1}. */
    private final int[] leafFirst;
    /** True when every destination index is a leaf's and every leaf's are consecutive (see {@link #tile}). */
    private final boolean tiled;
    /** The destinations of each leaf in ascending order, at the leaf's node positions; empty when all consecutive. */
    private final int[] sorted;
    /** Per level-1 switch, the destinations that reach it as extras (bit per destination), or {@code null}. */
    private final long[][] extras;
    private final byte[][] rows;
    /** Where sources outside a pod send part of the traffic for its weak homes. */
    private final Detours detours;

    private HomePlanes(DmodcRouting routing) {
        this.index = routing.index();
        this.dmodc = routing.result().tables();
        this.costs = routing.costs().array();
        this.leaves = index.leafCount();
        this.destinations = index.destinationCount();
        int switches = index.switchCount();
        this.ranks = new int[switches];
        this.dividers = new int[switches];
        for (int s = 0; s < switches; s++) {
            ranks[s] = routing.rank(s);
            dividers[s] = routing.divider(s);
        }
        this.pods = Pods.of(index, ranks, 0);
        LeafDestinations layout = LeafDestinations.of(index);
        this.layout = layout;
        this.destinationLeaf = layout.leafOf();
        this.leafFirst = layout.first();
        this.tiled = layout.tiled();
        this.sorted = layout.sorted();
        this.extras = new long[switches][];
        this.rows = new byte[switches][];
        this.detours = Detours.of(index, ranks, pods);
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
        ExtraSpread spread = new ExtraSpread(pass.index, pass.costs, pass.ranks, pass.dividers, pass.layout,
                pass.pods);
        pool.forRange(spread.planeCount(), PLANES_PER_CHUNK, (worker, from, to) -> {
            for (int p = from; p < to; p++) {
                spread.spread(p, pass.extras, pass::row);
            }
        });
        LidSpread.apply(routing, pass.rows, pool); // under an LMC: a port's LIDs apart again where a leaf can
        return pass.rows;
    }

    /** The up choices of the leaves of pod {@code p}, marking the extras they send to its level-1 switches. */
    private void homeLeaves(int p) {
        int[] members = pods.upper(p);
        int n = members.length;
        if (n == 0 || !pods.regular(p)) {
            return;
        }
        LeafScratch scratch = n <= Long.SIZE ? new LeafScratch(n, pods.closest(p, costs, leaves), leafFirst)
                : new LeafScratch(n, null, null);
        if (n <= Long.SIZE) {
            int inside = 0;
            for (int s : pods.lower(p)) {
                inside += index.leafNodeStart(index.leafNumber(s) + 1) - index.leafNodeStart(index.leafNumber(s));
            }
            scratch.shares = new ExtraShares(index, ranks, members, destinations - inside);
        }
        for (int s : pods.lower(p)) {
            homeLeaf(s, p, members, scratch);
        }
    }

    /** A worker's arrays for one pod's leaves. */
    private final class LeafScratch {
        final int[] slotGroup;
        final boolean[] candidate;
        final int[] candidates;
        /** Per leaf number, the pod's closest slots and their cost ({@link Pods#closest}); {@code null} above 64. */
        final long[] reach;
        /** The leaf's ports to its linked slots, twice over (any rotation is one copy); unlinked slots 0. */
        final byte[] base;
        /** Every slot's bit. */
        final long all;
        /** Per leaf number, its first destination's home slot; per candidate count {@code c}, {@code n mod c}. */
        final int[] phase;
        final int[] steps;
        /**
         * The last home pattern tiled over a whole row ({@link #tile}), copied for every leaf whose linked slots have
         * the same ports: an unlinked slot's entries are all written again (to another slot, or Dmodc's).
         */
        byte[] pattern;
        /** Per slot, its switch's extras ({@link #extras}), once looked up. */
        final long[][] slotExtras;
        /** Where the pod's leaves send their extras ({@code null}: more level-1 positions than a mask holds). */
        ExtraShares shares;

        LeafScratch(int n, long[] reach, int[] leafFirst) {
            this.slotExtras = new long[n][];
            this.slotGroup = new int[n];
            this.candidate = new boolean[n];
            this.candidates = new int[n];
            this.base = new byte[2 * n];
            this.reach = reach;
            this.all = n >= Long.SIZE ? -1L : (1L << n) - 1;
            this.phase = new int[leafFirst == null ? 0 : leafFirst.length];
            for (int l = 0; l < phase.length; l++) {
                phase[l] = Math.max(leafFirst[l], 0) % n;
            }
            this.steps = new int[n + 1];
            for (int c = 1; c <= n; c++) {
                steps[c] = n % c;
            }
        }

        /**
         * Per slot, the extras of the pod's upper switch there, all allocated the first time one is marked (a pod
         * whose leaves move anything sends extras to most of its upper switches).
         */
        long[][] extras(int[] members) {
            if (slotExtras[0] == null) {
                for (int i = 0; i < members.length; i++) {
                    slotExtras[i] = members[i] < 0 ? null : extrasOf(members[i]);
                }
            }
            return slotExtras;
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
        if (x.shares != null) {
            x.shares.startLeaf(linked, k);
        }
        if (x.reach == null || others > 0 || !single || dividers[s] != 1) {
            for (int l = 0; l < leaves; l++) {
                int own = costs[s * leaves + l];
                if (l != k && own != CostTable.INFINITE && (others == 0 || !otherCandidate(s, l, own, p))) {
                    homePair(s, p, l, own, members, x);
                }
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            byte port = x.slotGroup[i] >= 0 ? (byte) index.groupPort(x.slotGroup[i], 0) : 0;
            x.base[i] = port;
            x.base[n + i] = port;
        }
        byte[] row = tiled ? tile(s, x.base, n, x) : row(s);
        for (int l = 0; l < leaves; l++) {
            int own = costs[s * leaves + l];
            long mask = linked & x.reach[l];
            boolean open = l != k && own != CostTable.INFINITE;
            if (open && mask != 0 && own == x.reach[leaves + l] + 1 && leafFirst[l] >= 0) {
                long sent = detours.of(k, l, p, mask, n);
                if (Long.bitCount(mask) < n || sent != 0) {
                    homeSegment(s, l, members, mask, sent, row, !tiled, x);
                }
            } else {
                if (tiled && leafFirst[l] >= 0) {
                    int first = leafFirst[l];
                    dmodc.copyEntries(s, first, row, first, index.leafNodeStart(l + 1) - index.leafNodeStart(l));
                }
                if (open) {
                    homePair(s, p, l, own, members, x);
                }
            }
        }
    }

    /**
     * A new row for leaf {@code s} holding its home pattern everywhere, {@code base[d mod n]} for destination
     * {@code d}: what Dmodc chooses wherever all {@code n} homes are candidates (its list is in group order, which
     * is switch id order as the homes are; the caller puts Dmodc's entries back for the leaves where its choice is
     * not this). Written by doubling copies, not entry by entry.
     */
    private byte[] tile(int s, byte[] base, int n, LeafScratch x) {
        boolean same = x.pattern != null;
        for (int i = 0; i < n && same; i++) {
            same = x.slotGroup[i] < 0 || x.pattern[i] == base[i];
        }
        if (!same) {
            byte[] pattern = x.pattern == null ? new byte[destinations] : x.pattern;
            System.arraycopy(base, 0, pattern, 0, Math.min(n, destinations));
            for (int done = n; done < destinations; done *= 2) {
                System.arraycopy(pattern, 0, pattern, done, Math.min(done, destinations - done));
            }
            x.pattern = pattern;
        }
        byte[] row = x.pattern.clone();
        rows[s] = row;
        return row;
    }

    /**
     * The fast way (single-port groups, divider 1, consecutive destinations): the leaf's ports to its homes as one
     * pattern (copied here unless {@code row} holds it already), then the destinations whose home is not in
     * {@code mask} (not linked, or not closest) spread over the {@code mask} slots, and those whose home is in
     * {@code sent} to its detour ({@link Detours#of}).
     */
    private void homeSegment(int s, int l, int[] members, long mask, long sent, byte[] row, boolean copyPattern,
            LeafScratch x) {
        int n = members.length;
        int first = leafFirst[l];
        int count = index.leafNodeStart(l + 1) - index.leafNodeStart(l);
        int h0 = x.phase[l];
        if (copyPattern) {
            for (int done = 0; done < count; ) {
                int chunk = Math.min(n, count - done);
                System.arraycopy(x.base, h0, row, first + done, chunk);
                done += chunk;
            }
        }
        long missing = x.all & ~mask | sent;
        // the missing slots as offsets from the segment's first destination, so that each block of n is taken in
        // destination order (the order the shares take extras in)
        long offsets = h0 == 0 ? missing : (missing >>> h0 | missing << (n - h0)) & x.all;
        long[][] marks = x.extras(members);
        byte[] base = x.base;
        for (int block = 0; block < count; block += n) {
            for (long o = offsets; o != 0; o &= o - 1) {
                int offset = block + Long.numberOfTrailingZeros(o);
                if (offset >= count) {
                    break;
                }
                int d = first + offset;
                int home = h0 + offset - block;
                home = home >= n ? home - n : home;
                int slot = (sent >>> home & 1) != 0 ? x.shares.take(detours.to(l, home), d) : x.shares.choose(mask, d);
                if (slot < 0) { // the cycle has no candidate: C[(d + k) mod c]
                    int c = Long.bitCount(mask);
                    slot = x.shares.take(Bits.select(mask, Bits.mod((long) d + index.leafNumber(s), c)), d);
                }
                row[d] = base[slot];
                marks[slot][d >>> 6] |= 1L << d;
            }
        }
    }

    /** The general way, one destination at a time over the candidates worked out for this pair. */
    private void homePair(int s, int p, int l, int own, int[] members, LeafScratch x) {
        int n = members.length;
        int c = 0;
        for (int i = 0; i < n; i++) {
            x.candidate[i] = x.slotGroup[i] >= 0 && costs[members[i] * leaves + l] < own;
            if (x.candidate[i]) {
                x.candidates[c++] = i;
            }
        }
        int k = index.leafNumber(s);
        long mask = 0;
        for (int i = 0; i < c && x.shares != null; i++) {
            mask |= 1L << x.candidates[i];
        }
        long sent = x.shares == null ? 0 : detours.of(k, l, p, mask, n);
        if (c == 0 || c == n && sent == 0) {
            return; // no up choice here, or every home available and kept: Dmodc's choice is the home
        }
        int div = dividers[s];
        byte[] row = row(s);
        int[] nodes = index.leafNodeArray();
        for (int i = index.leafNodeStart(l), end = index.leafNodeStart(l + 1); i < end; i++) {
            int d = leafFirst[l] >= 0 ? index.nodeIndex(nodes[i]) : sorted[i];
            int q = d / div;
            int home = q % n;
            if (x.candidate[home] && (sent >>> home & 1) == 0) {
                row[d] = (byte) port(x.slotGroup[home], q, n);
            } else if (x.candidate[home]) {
                int slot = x.shares.take(detours.to(l, home), d);
                row[d] = (byte) port(x.slotGroup[slot], q, c);
                markExtra(members[slot], d);
            } else {
                int slot = x.shares == null ? -1 : x.shares.choose(mask, d);
                if (slot < 0) {
                    slot = x.candidates[(int) ((q + (long) k) % c)];
                    if (x.shares != null) {
                        x.shares.take(slot, d);
                    }
                }
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
        extrasOf(u)[d >>> 6] |= 1L << d;
    }

    /** Switch {@code u}'s extras, a bit per destination, allocated the first time. */
    private long[] extrasOf(int u) {
        long[] bits = extras[u];
        if (bits == null) {
            bits = new long[(index.destinationCount() + 63) >>> 6];
            extras[u] = bits;
        }
        return bits;
    }

    private int port(int g, int q, int n) {
        return port(index, g, q, n);
    }

    /**
     * Formula (4) ({@link DmodcFormula#portIndex}): the port of group {@code g} for {@code q = ⌊d/Π⌋} over a list of
     * {@code n} groups; a single-port group without the division, as most are.
     */
    static int port(FabricIndex index, int g, int q, int n) {
        int size = index.groupSize(g);
        return index.groupPort(g, size == 1 ? 0 : DmodcFormula.portIndex(q, 1, n, size));
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
