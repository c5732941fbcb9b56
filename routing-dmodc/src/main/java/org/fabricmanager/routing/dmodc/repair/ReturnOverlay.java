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
 * destination by destination: an entry crosses one when its own port's link is returned or its next hop's entry
 * crosses one, found back from the returned links' ends, so that only the entries near the routes over them are read.
 */
public final class ReturnOverlay {
    /** Words of a switch's port mask (ports 0 to 255). */
    private static final int WORDS = 4;
    /** Entries of a row the scan for returned ports reads at a time. */
    private static final int CHUNK = 4096;
    /** Destinations a worker takes at a time. */
    private static final int GRAIN = 64;

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
            byte[] chunk = new byte[CHUNK];
            for (int s = from; s < to; s++) {
                if (rowOf[s] >= 0) {
                    markUsed(inForce, rowOf[s], switchPorts(next, s), chunk, used, s * WORDS);
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

    /**
     * Sets in {@code used} (from {@code base}) the port of every routed entry of row {@code row}, at least those of
     * {@code wanted} (the switch's ports to switches, the only ones read): the row is read a chunk at a time and no
     * further once all of them are seen, as a leaf's uplinks are within its first destinations.
     */
    private static void markUsed(ForwardingTables tables, int row, long[] wanted, byte[] chunk, long[] used,
                                 int base) {
        long[] seen = new long[WORDS];
        int destinations = tables.destinationCount();
        for (int from = 0; from < destinations && !covers(seen, wanted); from += chunk.length) {
            int n = Math.min(chunk.length, destinations - from);
            tables.copyEntries(row, from, chunk, 0, n);
            for (int i = 0; i < n; i++) {
                int port = chunk[i] & 0xff;
                seen[port >>> 6] |= 1L << port;
            }
        }
        // NO_ROUTE (255) is not a port
        seen[ForwardingTables.NO_ROUTE >>> 6] &= ~(1L << ForwardingTables.NO_ROUTE);
        System.arraycopy(seen, 0, used, base, WORDS);
    }

    /** Switch {@code s}'s ports to switches, as a port mask. */
    private static long[] switchPorts(FabricIndex next, int s) {
        long[] mask = new long[WORDS];
        int[] peers = next.peerSwitches(s);
        for (int p = 0; p < peers.length && p < WORDS * 64; p++) {
            if (peers[p] != FabricIndex.NONE) {
                mask[p >>> 6] |= 1L << p;
            }
        }
        return mask;
    }

    private static boolean covers(long[] seen, long[] wanted) {
        for (int w = 0; w < WORDS; w++) {
            if ((wanted[w] & ~seen[w]) != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean isSet(long[] bits, int base, int p) {
        return p >= 0 && p < WORDS * 64 && (bits[base + (p >>> 6)] & (1L << p)) != 0;
    }

    /**
     * {@code repaired} with, at every entry whose route in {@code full} crosses a returned port, {@code full}'s
     * port. Both tables are of {@code next} (same switches, same order), whose costs are {@code costs}; rows that
     * take nothing are {@code repaired}'s own arrays. The entries covered are each node's own destination at every
     * switch other than its leaf that reaches that leaf.
     */
    public static TableMix.Result overlay(FabricIndex next, CostTable costs, ForwardingTables repaired,
                                          ForwardingTables full, long[] returned, RoutingPool pool) {
        int switches = next.switchCount();
        int destinations = next.destinationCount();
        int[] leafOf = leavesOfDestinations(next);
        int[] ends = returnedEnds(returned, switches);
        // Only an entry whose route reaches a returned port can cross one: per destination, the returned links' ends
        // whose own entry takes the link, then every switch whose entry leads to one that crosses (a walk back along
        // the routes, up the costs). full's next hop is always one step closer (Dmodc's routing and its refinements
        // are), so this finds exactly the entries a walk of every entry down the costs would, for a few of them.
        Changes[] found = new Changes[pool.threads()];
        pool.forRange(destinations, GRAIN, (worker, from, to) -> {
            Changes mine = found[worker] != null ? found[worker] : (found[worker] = new Changes());
            int[] seen = new int[switches];
            int[] queue = new int[switches];
            for (int d = from; d < to; d++) {
                int l = leafOf[d];
                if (l < 0) {
                    continue;
                }
                int leafSwitch = next.leaves()[l];
                int size = 0;
                for (int s : ends) {
                    if (s != leafSwitch && costs.cost(s, l) != CostTable.INFINITE
                            && isSet(returned, s * WORDS, hop(next, full, s, d))) {
                        seen[s] = d + 1;
                        queue[size++] = s;
                    }
                }
                for (int head = 0; head < size; head++) {
                    int x = queue[head];
                    if (full.port(x, d) != repaired.port(x, d)) {
                        mine.add(x, d);
                    }
                    int[] peers = next.peerSwitches(x);
                    int[] peerPorts = next.peerPorts(x);
                    for (int q = 0; q < peers.length; q++) {
                        int u = peers[q];
                        if (u != FabricIndex.NONE && seen[u] != d + 1 && u != leafSwitch
                                && costs.cost(u, l) != CostTable.INFINITE && full.port(u, d) == peerPorts[q]) {
                            seen[u] = d + 1;
                            queue[size++] = u;
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

    /** Per destination of {@code next}, the leaf number of the node it is the destination of, or {@code -1}. */
    private static int[] leavesOfDestinations(FabricIndex next) {
        int destinations = next.destinationCount();
        int[] leafOf = new int[destinations];
        Arrays.fill(leafOf, -1);
        int[] nodes = next.leafNodeArray();
        for (int l = 0; l < next.leafCount(); l++) {
            for (int i = next.leafNodeStart(l); i < next.leafNodeStart(l + 1); i++) {
                int d = next.nodeIndex(nodes[i]);
                if (d < destinations) {
                    leafOf[d] = l;
                }
            }
        }
        return leafOf;
    }

    /** The switches with a returned port. */
    private static int[] returnedEnds(long[] returned, int switches) {
        int[] ends = new int[switches];
        int n = 0;
        for (int s = 0; s < switches; s++) {
            for (int w = 0; w < WORDS; w++) {
                if (returned[s * WORDS + w] != 0) {
                    ends[n++] = s;
                    break;
                }
            }
        }
        return Arrays.copyOf(ends, n);
    }

    /** {@code full}'s port at switch {@code s} for {@code d} when it leads to a switch, else {@code -1}. */
    private static int hop(FabricIndex next, ForwardingTables full, int s, int d) {
        int port = full.port(s, d);
        int[] peers = next.peerSwitches(s);
        return port != ForwardingTables.NO_ROUTE && port < peers.length && peers[port] != FabricIndex.NONE ? port : -1;
    }
}
