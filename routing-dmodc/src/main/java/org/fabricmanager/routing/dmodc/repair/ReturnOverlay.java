package org.fabricmanager.routing.dmodc.repair;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * What an element that comes back takes back. A link between two switches over which the tables in force route
 * nothing from either end is <em>returned</em> (a cable or a switch that came back, or a link no route used); every
 * entry whose route in a full routing of the fabric now crosses a returned link takes that routing's port, hop by
 * hop up to the link, so the returned element carries exactly the routes a full routing gives it and the entries
 * that moved away for it come back. The other entries keep their repair ({@link TableRepair}): a {@link TableMix},
 * valid and deadlock-free as a repair is. Which entries cross a returned link follows from the full routing alone,
 * destination by destination, switches in increasing cost to the destination's leaf: an entry crosses one when its
 * own port's link is returned or its next hop's entry crosses one.
 */
public final class ReturnOverlay {
    /** Words of a switch's port mask (ports 0 to 255). */
    private static final int WORDS = 4;
    /** Leaves a worker takes at a time. */
    private static final int GRAIN = 4;

    private ReturnOverlay() {
    }

    /**
     * Per switch of {@code next}, its returned ports ({@link #WORDS} words, bit {@code p} for port {@code p}):
     * ports to a switch such that {@code inForce} routes nothing over the link from either end (a switch without a
     * row in {@code inForce} routes nothing). {@code null} when there is none.
     */
    public static long[] returnedPorts(FabricIndex next, ForwardingTables inForce, RoutingPool pool) {
        int switches = next.switchCount();
        int[] rowOf = TableRepair.rowsByGuid(next, inForce);
        long[] used = new long[switches * WORDS];
        pool.forRange(switches, 16, (worker, from, to) -> {
            for (int s = from; s < to; s++) {
                if (rowOf[s] >= 0) {
                    markUsed(inForce, rowOf[s], used, s * WORDS);
                }
            }
        });
        long[] returned = new long[switches * WORDS];
        boolean any = false;
        for (int s = 0; s < switches; s++) {
            int[] peers = next.peerSwitches(s);
            int[] peerPorts = next.peerPorts(s);
            for (int p = 1; p < peers.length && p < WORDS * 64; p++) {
                int t = peers[p];
                if (t != FabricIndex.NONE && !isSet(used, s * WORDS, p) && !isSet(used, t * WORDS, peerPorts[p])) {
                    returned[s * WORDS + (p >>> 6)] |= 1L << p;
                    any = true;
                }
            }
        }
        return any ? returned : null;
    }

    /** Sets in {@code used} (from {@code base}) the port of every routed entry of row {@code row}. */
    private static void markUsed(ForwardingTables tables, int row, long[] used, int base) {
        byte[] entries = tables.copyRow(row);
        long[] seen = new long[WORDS];
        for (byte e : entries) {
            int port = e & 0xff;
            seen[port >>> 6] |= 1L << port;
        }
        // NO_ROUTE (255) is not a port
        seen[ForwardingTables.NO_ROUTE >>> 6] &= ~(1L << ForwardingTables.NO_ROUTE);
        System.arraycopy(seen, 0, used, base, WORDS);
    }

    private static boolean isSet(long[] bits, int base, int p) {
        return p < WORDS * 64 && (bits[base + (p >>> 6)] & (1L << p)) != 0;
    }

    /**
     * {@code repaired} with, at every entry whose route in {@code full} crosses a returned port, {@code full}'s
     * port. Both tables are of {@code next} (same switches, same order), whose costs are {@code costs}; rows that
     * take nothing are {@code repaired}'s own arrays.
     */
    public static TableMix.Result overlay(FabricIndex next, CostTable costs, ForwardingTables repaired,
                                          ForwardingTables full, long[] returned, RoutingPool pool) {
        int switches = next.switchCount();
        int destinations = next.destinationCount();
        int leaves = next.leafCount();
        // each worker (a range of leaves) lists the entries it finds to take in its own Changes; leaf by leaf,
        // switches in increasing cost, each switch's entries for the leaf's destinations together: a row is read a
        // segment at a time, not an entry per destination across all rows
        Changes[] found = new Changes[pool.threads()];
        pool.forRange(leaves, GRAIN, (worker, from, to) -> {
            Changes mine = found[worker] != null ? found[worker] : (found[worker] = new Changes());
            int[] order = new int[switches];
            int[] nodes = next.leafNodeArray();
            int[] dests = new int[0];
            boolean[] crosses = new boolean[0];
            for (int l = from; l < to; l++) {
                int n = byCost(next, costs, l, order);
                int m = next.leafNodeStart(l + 1) - next.leafNodeStart(l);
                if (dests.length < m) {
                    dests = new int[m];
                    crosses = new boolean[switches * m];
                }
                for (int i = 0; i < m; i++) {
                    dests[i] = next.nodeIndex(nodes[next.leafNodeStart(l) + i]);
                }
                Arrays.fill(crosses, next.leaves()[l] * m, next.leaves()[l] * m + m, false);
                for (int k = 0; k < n; k++) {
                    int sw = order[k];
                    int[] peers = next.peerSwitches(sw);
                    for (int i = 0; i < m; i++) {
                        int d = dests[i];
                        int port = d < destinations ? full.port(sw, d) : ForwardingTables.NO_ROUTE;
                        boolean c = false;
                        if (port != ForwardingTables.NO_ROUTE && port < peers.length) {
                            int t = peers[port];
                            c = isSet(returned, sw * WORDS, port) || (t != FabricIndex.NONE && crosses[t * m + i]);
                        }
                        crosses[sw * m + i] = c;
                        if (c && port != repaired.port(sw, d)) {
                            mine.add(sw, d);
                        }
                    }
                }
            }
        });
        // the changes by switch (a counting sort), then each changed row copied once
        int[] start = new int[switches + 1];
        long total = 0;
        for (Changes c : found) {
            if (c != null) {
                for (int i = 0; i < c.size; i++) {
                    start[(int) (c.entries[i] >>> 32) + 1]++;
                }
                total += c.size;
            }
        }
        for (int sw = 0; sw < switches; sw++) {
            start[sw + 1] += start[sw];
        }
        int[] at = Arrays.copyOf(start, switches);
        int[] byDest = new int[(int) total];
        for (Changes c : found) {
            if (c != null) {
                for (int i = 0; i < c.size; i++) {
                    byDest[at[(int) (c.entries[i] >>> 32)]++] = (int) c.entries[i];
                }
            }
        }
        return TableMix.of(repaired, full, pool, (sw, row) -> {
            for (int i = start[sw]; i < start[sw + 1]; i++) {
                row.take(byDest[i]);
            }
        });
    }

    /** A worker's entries to take, {@code (switch << 32) | destination}, in a growing array. */
    private static final class Changes {
        long[] entries = new long[64];
        int size;

        void add(int sw, int d) {
            if (size == entries.length) {
                entries = Arrays.copyOf(entries, size * 2);
            }
            entries[size++] = (long) sw << 32 | d;
        }
    }

    /**
     * {@code full}'s entries, for a whole fabric: every entry where {@code repaired} differs is taken back. Both
     * tables are of the same fabric (same switches, same order); rows that are equal stay {@code repaired}'s arrays.
     */
    public static TableMix.Result whole(ForwardingTables repaired, ForwardingTables full, RoutingPool pool) {
        return TableMix.of(repaired, full, pool, (s, row) -> {
            for (int d = repaired.mismatch(s, full, s, 0); d >= 0; d = repaired.mismatch(s, full, s, d + 1)) {
                row.take(d);
            }
        });
    }

    /**
     * Fills {@code order} with the switches other than leaf {@code l}'s own that reach it, by increasing cost (a
     * counting sort over the small costs), and returns how many.
     */
    private static int byCost(FabricIndex next, CostTable costs, int l, int[] order) {
        int switches = next.switchCount();
        int[] count = new int[CostTable.MAX_FINITE + 2];
        int leafSwitch = next.leaves()[l];
        for (int s = 0; s < switches; s++) {
            int c = costs.cost(s, l);
            if (s != leafSwitch && c != CostTable.INFINITE) {
                count[c + 1]++;
            }
        }
        for (int c = 1; c < count.length; c++) {
            count[c] += count[c - 1];
        }
        int n = count[count.length - 1];
        for (int s = 0; s < switches; s++) {
            int c = costs.cost(s, l);
            if (s != leafSwitch && c != CostTable.INFINITE) {
                order[count[c]++] = s;
            }
        }
        return n;
    }
}
