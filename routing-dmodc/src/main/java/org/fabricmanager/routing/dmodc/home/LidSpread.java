package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;

/**
 * The last step of {@code dmodc-home}'s refinement under an LMC ({@link FabricIndex#lmc()}): the LIDs of one port are
 * destinations of their own, and Dmodc sends them up a leaf's consecutive candidates, so through distinct uplinks
 * where the leaf has enough. The home planes move some of a degraded leaf's entries to another candidate, by the
 * destination's home alone, which can put two LIDs of one port on one uplink again. Here, at every leaf and for every
 * port on another leaf with an entry the home planes moved, a LID that shares an uplink with a sibling LID while a candidate uplink towards that leaf is
 * free of them moves to the first such candidate from its own place in the list. Every entry stays one of Dmodc's
 * candidates, so validity and deadlock freedom are Dmodc's; without an LMC nothing is done.
 */
final class LidSpread {
    private LidSpread() {
    }

    /** Spreads the LIDs of each port over distinct uplinks in {@code rows} (null: Dmodc's row, left as it is). */
    static void apply(DmodcRouting routing, byte[][] rows, RoutingPool pool) {
        FabricIndex index = routing.index();
        if (index.lmc() == 0) {
            return;
        }
        int[] leaves = index.leaves();
        pool.forRange(leaves.length, 1, (worker, from, to) -> {
            byte[] dmodcRow = new byte[index.destinationCount()];
            for (int k = from; k < to; k++) {
                if (rows[leaves[k]] != null) {
                    spreadLeaf(routing, rows[leaves[k]], leaves[k], dmodcRow);
                }
            }
        });
    }

    /**
     * Leaf switch {@code s}'s row as the home planes left it. Dmodc's own entries keep a port's LIDs apart, so only the
     * ports with an entry the home planes changed are looked at (none on an intact PGFT). Only this leaf's row is
     * written, so leaves run in parallel.
     */
    private static void spreadLeaf(DmodcRouting routing, byte[] row, int s, byte[] dmodcRow) {
        FabricIndex index = routing.index();
        routing.result().tables().copyEntries(s, 0, dmodcRow, 0, dmodcRow.length);
        int lids = 1 << index.lmc();
        int[] ports = new int[lids];
        int[][] candidates = new int[index.leafCount()][];
        int done = -1;
        for (int d = mismatch(row, dmodcRow, 0); d < row.length; d = mismatch(row, dmodcRow, d + 1)) {
            int first = d & -lids;
            int pos = index.nodeByDestination(first);
            if (first <= done || pos == FabricIndex.NONE || index.nodeLeaf(pos) == s
                    || index.nodeLeaf(pos) == FabricIndex.NONE) {
                continue;
            }
            done = first;
            boolean shared = false;
            for (int b = 0; b < lids; b++) {
                ports[b] = row[first + b] & 0xff;
                shared |= ports[b] != ForwardingTables.NO_ROUTE && usedBefore(ports, b, ports[b]);
            }
            if (!shared) {
                continue;
            }
            int l = index.leafNumber(index.nodeLeaf(pos));
            if (candidates[l] == null) {
                candidates[l] = candidatePorts(routing, s, l);
            }
            for (int b = 1; b < lids; b++) {
                if (ports[b] == ForwardingTables.NO_ROUTE || !usedBefore(ports, b, ports[b])) {
                    continue;
                }
                int free = firstFree(candidates[l], ports, lids, first + b);
                if (free < 0) {
                    break; // every candidate carries a sibling already: as distinct as the leaf allows
                }
                row[first + b] = (byte) free;
                ports[b] = free;
            }
        }
    }

    /** The first index from {@code from} where the rows differ, else their length. */
    private static int mismatch(byte[] a, byte[] b, int from) {
        int at = Arrays.mismatch(a, from, a.length, b, from, b.length);
        return at < 0 ? a.length : from + at;
    }

    private static boolean usedBefore(int[] ports, int b, int port) {
        for (int c = 0; c < b; c++) {
            if (ports[c] == port) {
                return true;
            }
        }
        return false;
    }

    /** The first candidate from position {@code d mod count} that no LID of the port uses, or -1. */
    private static int firstFree(int[] candidates, int[] ports, int lids, int d) {
        for (int j = 0; j < candidates.length; j++) {
            int port = candidates[(d + j) % candidates.length];
            boolean used = false;
            for (int c = 0; c < lids && !used; c++) {
                used = ports[c] == port;
            }
            if (!used) {
                return port;
            }
        }
        return -1;
    }

    /** Every port of the candidate groups of {@code s} towards leaf number {@code l}, in group and port order. */
    private static int[] candidatePorts(DmodcRouting routing, int s, int l) {
        FabricIndex index = routing.index();
        int[] groups = routing.candidateGroups(s, l);
        int count = 0;
        for (int g : groups) {
            count += index.groupSize(g);
        }
        int[] out = new int[count];
        int n = 0;
        for (int g : groups) {
            for (int i = 0; i < index.groupSize(g); i++) {
                out[n++] = index.groupPort(g, i);
            }
        }
        return out;
    }
}
