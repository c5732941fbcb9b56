package org.fabricmanager.routing.dmodc.repair;

import java.util.Arrays;
import java.util.function.IntPredicate;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.topology.FabricIndex;

/**
 * Repairs forwarding tables for a changed fabric instead of routing it again: an entry keeps its port
 * while that port still leads to a neighbour strictly closer to the destination's leaf (formula (2) of
 * the Dmodc paper over the new fabric's costs), so every route that does not cross a failed element stays
 * where it is. Only the other entries change: those whose port leads into a failed link or switch or to a
 * neighbour that no longer gets closer (its own route crossed the failure), those that lose every path
 * ({@link ForwardingTables#NO_ROUTE}), and those that gain one. They get Dmodc's closed form (formulas (3)
 * and (4)) over the surviving candidates, with the new fabric's divider, which spreads the moved
 * destinations over the candidates as Dmodc spreads all of them.
 *
 * <p>Every kept or chosen port steps to a neighbour of strictly lower cost, so the result routes exactly
 * the leaf pairs with a finite cost (Dmodc's validity) over shortest up*&#47;down* paths, as Dmodc does.
 * The result depends only on the previous tables and the new fabric: repairing the tables of a full
 * routing for the fabric it was made for gives them back unchanged, which is how an element that comes
 * back takes back the entries that moved because of it.
 *
 * <p>Every entry is checked, unless the caller says where the inputs changed ({@link Changes}: the costs'
 * changed leaves per row and the fabric the previous tables were valid for); then only the entries
 * whose port leads elsewhere now, of leaves whose cost changed at the switch or a neighbour, and of
 * destinations that moved are checked, which gives the same tables when the previous ones were valid for
 * that fabric (a Dmodc routing or a repair of one): any other entry's port still leads to the same
 * neighbour, which is as much closer to the destination's leaf as before.
 *
 * <p>An entry whose previous port no longer leads closer keeps its port in the tables in force ({@code held}, when the
 * caller gives them: an earlier repair of the same previous tables) where that one still does. The previous tables
 * are the base of repairs, not the tables in force: without this, an entry moved by a first fault and still valid
 * would take the closed form again at a second fault, over the fewer candidates and another divider, and move
 * although its route crossed nothing lost.
 */
public final class TableRepair {
    /** Switches a worker takes at a time. */
    private static final int GRAIN = 8;

    private final FabricIndex next;
    private final CostTable costs;
    private final int[] dividers;
    private final ForwardingTables previous;
    private final Changes changes;
    private final int leaves;
    /** The tables in force, or {@code null}; per switch of {@code next}, its row there ({@code -1}: none). */
    private final ForwardingTables held;
    private final int[] heldRow;

    /**
     * Where the inputs of a repair changed since the previous tables were valid: the fabric they were
     * valid for, and per switch of the new fabric the leaves whose cost differs from that fabric's
     * ({@code null} rows: unchanged), as {@code CostDividerUpdate} gives them.
     */
    public record Changes(FabricIndex before, long[][] changedLeaves) {
    }

    private TableRepair(FabricIndex next, CostTable costs, int[] dividers, ForwardingTables previous,
                        Changes changes, ForwardingTables held) {
        this.next = next;
        this.costs = costs;
        this.dividers = dividers;
        this.previous = previous;
        this.changes = changes;
        this.leaves = next.leafCount();
        boolean useful = held != null && held != previous && held.destinationCount() == next.destinationCount();
        this.held = useful ? held : null;
        this.heldRow = useful ? rowsByGuid(next, held) : null;
    }

    /**
     * The repaired tables of {@code next}: each row is the previous row of the same switch (the very
     * array, shared) where no entry changed, a new array otherwise.
     *
     * @param costs    the costs of {@code next} (Procedure 1)
     * @param dividers the dividers of {@code next}
     * @param changes  where the inputs changed, or {@code null} to check every entry
     */
    public static ForwardingTables repair(FabricIndex next, CostTable costs, int[] dividers, ForwardingTables previous,
                                          Changes changes, RoutingPool pool) {
        return repair(next, costs, dividers, previous, changes, null, pool);
    }

    /**
     * The same, an entry whose previous port fails keeping its port in {@code held} (the tables in force, {@code null}:
     * none) where that port still leads closer.
     */
    public static ForwardingTables repair(FabricIndex next, CostTable costs, int[] dividers, ForwardingTables previous,
                                          Changes changes, ForwardingTables held, RoutingPool pool) {
        return new TableRepair(next, costs, dividers, previous, changes, held).run(pool);
    }

    /** Switch {@code s}'s port for destination {@code d} in the tables in force, or {@code NO_ROUTE}. */
    private int heldPort(int s, int d) {
        return held == null || heldRow[s] < 0 ? ForwardingTables.NO_ROUTE : held.port(heldRow[s], d);
    }

    private ForwardingTables run(RoutingPool pool) {
        int switches = next.switchCount();
        int[] previousRow = previousRows();
        int[] movedDestinations = changes == null ? null : movedDestinations();
        int[] unused = unusedDestinations();
        byte[][] rows = new byte[switches][];
        boolean sameLength = previous.destinationCount() == next.destinationCount();
        pool.forRange(switches, GRAIN, (worker, from, to) -> {
            Scratch scratch = new Scratch();
            for (int s = from; s < to; s++) {
                rows[s] = repairRow(s, previousRow[s], movedDestinations, unused, scratch);
            }
        });
        long[] guids = new long[switches];
        int[] reuse = new int[switches];
        for (int s = 0; s < switches; s++) {
            guids[s] = next.switchGuid(s);
            reuse[s] = rows[s] == null ? previousRow[s] : -1;
        }
        return sameLength ? ForwardingTables.ofRows(guids, rows, next.destinationCount(), previous, reuse)
                : ForwardingTables.ofRows(guids, rows, next.destinationCount());
    }

    /** Per switch of {@code next}, its row in the previous tables (same GUID), or {@code -1}. */
    private int[] previousRows() {
        return rowsByGuid(next, previous);
    }

    /** Per switch of {@code index}, the row of {@code tables} with its GUID, or {@code -1}. */
    static int[] rowsByGuid(FabricIndex index, ForwardingTables tables) {
        int[] map = new int[index.switchCount()];
        Arrays.fill(map, -1);
        for (int i = 0; i < tables.switchCount(); i++) {
            int s = index.switchId(tables.switchGuid(i));
            if (s != FabricIndex.NONE) {
                map[s] = i;
            }
        }
        return map;
    }

    /**
     * Row {@code s} repaired, from row {@code p} of the previous tables ({@code -1}: none): {@code null}
     * when it is that row unchanged.
     */
    private byte[] repairRow(int s, int p, int[] movedDestinations, int[] unused, Scratch scratch) {
        int destinations = next.destinationCount();
        RowEdit edit = new RowEdit(previous, p, destinations);
        int changedPorts = changes == null || p < 0 || previous.destinationCount() != destinations ? -1
                : changedPorts(s, scratch.changedPort);
        if (changedPorts < 0) {
            for (int l = 0; l < leaves; l++) {
                repairLeaf(s, l, edit, scratch);
            }
            for (int d : unused) {
                edit.set(d, ForwardingTables.NO_ROUTE);
            }
            return edit.result();
        }
        long[] columns = scratch.columns;
        Arrays.fill(columns, 0L);
        boolean any = orInto(columns, changes.changedLeaves()[s]);
        for (int g = next.groupStart(s), end = g + next.groupCount(s); g < end; g++) {
            any |= orInto(columns, changes.changedLeaves()[next.groupNeighbour(g)]);
        }
        if (any) {
            for (int w = 0; w < columns.length; w++) {
                for (long bits = columns[w]; bits != 0; bits &= bits - 1) {
                    repairLeaf(s, (w << 6) + Long.numberOfTrailingZeros(bits), edit, scratch);
                }
            }
        }
        if (changedPorts > 0) {
            entriesOnChangedPorts(s, p, edit, scratch);
        }
        for (int d : movedDestinations) {
            repairDestination(s, d, edit, scratch);
        }
        return edit.result();
    }

    /** Checks and repairs the entry of row {@code s} for destination {@code d}, whichever leaf it is on. */
    private void repairDestination(int s, int d, RowEdit edit, Scratch scratch) {
        int pos = next.nodeByDestination(d);
        if (pos == FabricIndex.NONE || next.nodeLeaf(pos) == FabricIndex.NONE) {
            edit.set(d, ForwardingTables.NO_ROUTE);
        } else {
            edit.set(d, scratch.towards(s, next.leafNumber(next.nodeLeaf(pos))).port(d, edit.previous(d)));
        }
    }

    /**
     * Checks and repairs the entries of row {@code s} whose previous port (row {@code p}) now leads elsewhere:
     * the only entries a port's change can invalidate where the costs did not change.
     */
    private void entriesOnChangedPorts(int s, int p, RowEdit edit, Scratch scratch) {
        byte[] old = scratch.row(next.destinationCount());
        previous.copyEntries(p, 0, old, 0, old.length);
        boolean[] changed = scratch.changedPort;
        for (int d = 0; d < old.length; d++) {
            int port = old[d] & 0xff;
            if (port < changed.length && changed[port]) {
                repairDestination(s, d, edit, scratch);
            }
        }
    }

    /** Checks and repairs the entries of row {@code s} for the nodes of leaf number {@code l}. */
    private void repairLeaf(int s, int l, RowEdit edit, Scratch scratch) {
        int[] nodes = next.leafNodeArray();
        Towards towards = scratch.towards(s, l);
        for (int i = next.leafNodeStart(l), end = next.leafNodeStart(l + 1); i < end; i++) {
            int d = next.nodeIndex(nodes[i]);
            edit.set(d, towards.port(d, edit.previous(d)));
        }
    }

    /** Destination indices without a linked node: {@link ForwardingTables#NO_ROUTE} in every row. */
    private int[] unusedDestinations() {
        return destinationsWhere(d -> {
            int pos = next.nodeByDestination(d);
            return pos == FabricIndex.NONE || next.nodeLeaf(pos) == FabricIndex.NONE;
        });
    }

    /** The destination indices of {@code next} that {@code test} accepts, ascending. */
    private int[] destinationsWhere(IntPredicate test) {
        int[] found = new int[16];
        int n = 0;
        for (int d = 0; d < next.destinationCount(); d++) {
            if (test.test(d)) {
                if (n == found.length) {
                    found = Arrays.copyOf(found, n * 2);
                }
                found[n++] = d;
            }
        }
        return Arrays.copyOf(found, n);
    }

    /**
     * A worker's arrays: the changed-leaf columns of a row, its changed ports, a copy of its previous entries, and the
     * switch and leaf it last worked out.
     */
    private final class Scratch {
        final long[] columns = new long[(leaves + 63) >>> 6];
        final boolean[] changedPort = new boolean[ForwardingTables.NO_ROUTE + 1];
        final Towards towards = new Towards();
        private byte[] row = new byte[0];

        byte[] row(int length) {
            if (row.length != length) {
                row = new byte[length];
            }
            return row;
        }

        Towards towards(int s, int l) {
            towards.load(s, l);
            return towards;
        }
    }

    /**
     * What one switch needs to choose the port of any destination on one leaf, worked out once for the leaf's
     * destinations rather than once per entry: its cost to the leaf, and, when first needed, its candidate groups.
     */
    private final class Towards {
        private int s;
        private int l;
        private boolean leafSwitch;
        private int own;
        private int[] peers;
        /** The first {@code count} are the candidate groups (neighbour strictly closer to the leaf) in group order. */
        private int[] candidates = new int[8];
        /** {@code -1}: candidates not worked out yet for this switch and leaf. */
        private int count;

        void load(int s, int l) {
            this.s = s;
            this.l = l;
            this.leafSwitch = next.leaves()[l] == s;
            this.own = costs.cost(s, l);
            this.peers = next.peerSwitches(s);
            this.count = -1;
        }

        /**
         * The port for destination {@code d}: {@code old} while it still leads strictly closer, else the port in force
         * while that one does, else Dmodc's.
         */
        int port(int d, int old) {
            if (leafSwitch) {
                return next.nodeLeafPort(next.nodeByDestination(d));
            }
            if (own == CostTable.INFINITE) {
                return ForwardingTables.NO_ROUTE;
            }
            if (closer(old)) {
                return old;
            }
            int inForce = heldPort(s, d);
            return inForce != old && closer(inForce) ? inForce : closedForm(d);
        }

        /** Whether {@code port} leads to a neighbour strictly closer to the leaf. */
        private boolean closer(int port) {
            return port != ForwardingTables.NO_ROUTE && port < peers.length && peers[port] != FabricIndex.NONE
                    && costs.cost(peers[port], l) < own;
        }

        /**
         * Formulas (3) and (4) over the candidate groups of the switch towards the leaf:
         * {@code g = C[⌊d/Π⌋ mod #C]}, {@code p = g[⌊d/(Π·#C)⌋ mod #g]}.
         */
        private int closedForm(int d) {
            if (count < 0) {
                findCandidates();
            }
            if (count == 0) {
                return ForwardingTables.NO_ROUTE;
            }
            int q = d / dividers[s];
            int g = candidates[q % count];
            return next.groupPort(g, (q / count) % next.groupSize(g));
        }

        private void findCandidates() {
            count = 0;
            for (int g = next.groupStart(s), to = g + next.groupCount(s); g < to; g++) {
                if (costs.cost(next.groupNeighbour(g), l) < own) {
                    if (count == candidates.length) {
                        candidates = Arrays.copyOf(candidates, count * 2);
                    }
                    candidates[count++] = g;
                }
            }
        }
    }

    /**
     * Marks in {@code changed} the ports of {@code s} that lead elsewhere than in {@link Changes#before} and returns
     * how many; {@code -1} when {@code s} is new there or has another number of ports (every entry is checked then).
     */
    private int changedPorts(int s, boolean[] changed) {
        FabricIndex before = changes.before();
        int b = before.switchId(next.switchGuid(s));
        if (b == FabricIndex.NONE || before.switchPorts(b) != next.switchPorts(s)) {
            return -1;
        }
        Arrays.fill(changed, false);
        int count = 0;
        int[] peers = next.peerSwitches(s);
        int[] peersBefore = before.peerSwitches(b);
        int[] nodes = next.peerNodes(s);
        int[] nodesBefore = before.peerNodes(b);
        for (int port = 1; port < peers.length; port++) {
            long guid = peers[port] == FabricIndex.NONE ? 0 : next.switchGuid(peers[port]);
            long guidBefore = peersBefore[port] == FabricIndex.NONE ? 0 : before.switchGuid(peersBefore[port]);
            long node = nodes[port] == FabricIndex.NONE ? 0 : next.nodeGuid(nodes[port]);
            long nodeBefore = nodesBefore[port] == FabricIndex.NONE ? 0 : before.nodeGuid(nodesBefore[port]);
            if (guid != guidBefore || node != nodeBefore) {
                if (port >= changed.length) {
                    return -1;
                }
                changed[port] = true;
                count++;
            }
        }
        return count;
    }

    /**
     * Destination indices whose node, leaf or leaf port differs from {@link Changes#before}: every
     * switch checks them, whatever its costs.
     */
    private int[] movedDestinations() {
        FabricIndex before = changes.before();
        return destinationsWhere(d -> !sameDestination(before, d));
    }

    private boolean sameDestination(FabricIndex before, int d) {
        int pos = next.nodeByDestination(d);
        int posBefore = d < before.destinationCount() ? before.nodeByDestination(d) : FabricIndex.NONE;
        if (pos == FabricIndex.NONE || posBefore == FabricIndex.NONE) {
            return pos == posBefore;
        }
        int leaf = next.nodeLeaf(pos);
        int leafBefore = before.nodeLeaf(posBefore);
        if (leaf == FabricIndex.NONE || leafBefore == FabricIndex.NONE) {
            return leaf == leafBefore && next.nodeGuid(pos) == before.nodeGuid(posBefore);
        }
        return next.nodeGuid(pos) == before.nodeGuid(posBefore)
                && next.switchGuid(leaf) == before.switchGuid(leafBefore)
                && next.nodeLeafPort(pos) == before.nodeLeafPort(posBefore);
    }

    private static boolean orInto(long[] columns, long[] changed) {
        if (changed == null) {
            return false;
        }
        for (int w = 0; w < columns.length; w++) {
            columns[w] |= changed[w];
        }
        return true;
    }

    /**
     * One row being repaired: row {@code p} of the previous tables, copied on the first change; for a new
     * switch, or previous tables of another length, a new row whose entries start as
     * {@link ForwardingTables#NO_ROUTE} where the previous row has none.
     */
    private static final class RowEdit {
        private final ForwardingTables previous;
        private final int p;
        private byte[] row;

        RowEdit(ForwardingTables previous, int p, int length) {
            this.previous = previous;
            this.p = p;
            if (p < 0 || previous.destinationCount() != length) {
                row = new byte[length];
                Arrays.fill(row, (byte) ForwardingTables.NO_ROUTE);
                if (p >= 0) {
                    previous.copyEntries(p, 0, row, 0, Math.min(length, previous.destinationCount()));
                }
            }
        }

        int previous(int d) {
            return row != null ? row[d] & 0xff : previous.port(p, d);
        }

        void set(int d, int port) {
            if (previous(d) == port) {
                return;
            }
            if (row == null) {
                row = previous.copyRow(p);
            }
            row[d] = (byte) port;
        }

        /** The new row, or {@code null} when it is the previous one unchanged. */
        byte[] result() {
            return row;
        }
    }
}
