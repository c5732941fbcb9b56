package org.fabricmanager.routing.vtftr;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.HdftLayout;

/**
 * The VTFTR table entry of every switch for every destination. Each switch decides from the
 * destination alone, and every switch a route crosses takes the decision the route needs, so the
 * tables are plain LFTs. For a destination {@code d} on leaf {@code (xd, yd)}:
 *
 * <p><b>Leaf {@code (x, y)}</b>, the first rule that applies (a route's first leaf and every leaf it
 * crosses apply the same rules, and each crossed leaf lands on the rule that continues the route):
 * <ol>
 *   <li>its own node: the node's port;</li>
 *   <li>same row ({@code y = yd}) and the row has a usable row switch: up to a row switch;</li>
 *   <li>same column: up to a column switch;</li>
 *   <li>xy: leaf {@code (xd, y)} present, row {@code y} and column {@code xd} usable: row switch;</li>
 *   <li>yx: leaf {@code (x, yd)} present, column {@code x} and row {@code yd} usable: column switch;</li>
 *   <li>row mis-route: rows {@code y} and {@code yd} usable and a detour column exists: row switch;</li>
 *   <li>column mis-route (the source's row has no usable row switch, or no detour column): column
 *       switch, if column {@code x} and {@code xd} are usable and a detour row exists;</li>
 *   <li>otherwise no route (255).</li>
 * </ol>
 * A leaf never needs to know where a packet came from: the leaf {@code (xd, y)} that an xy route
 * turns at is in {@code d}'s column (rule 3), the leaf {@code (x, yd)} of a yx route is in {@code d}'s
 * row (rule 2), and the detour leaf {@code (x', y)} of a mis-route fails rule 4 exactly as the source
 * did (rule 4 depends on {@code y} and {@code xd} only) and passes rule 5 because {@code x'} was
 * chosen with a leaf in row {@code yd}.
 *
 * <p><b>Row switch of row {@code y}</b>: to {@code (xd, yd)} when {@code y = yd}; else to
 * {@code (xd, y)} when that leaf is present and column {@code xd} usable; else to the detour leaf
 * {@code (x', y)}, {@code x'} from {@link DetourCandidates#columns}. <b>Column switch of column
 * {@code x}</b>: to {@code (xd, yd)} when {@code x = xd}; else to {@code (x, yd)} when that leaf is
 * present and row {@code yd} usable; else to the detour leaf {@code (x, y')}. Ports among several
 * (switches of a line, parallel cables) are taken by {@code d mod count}.
 *
 * <p>Routes therefore have one of the shapes row, column, row-column (xy), column-row (yx),
 * row-column-row and column-row-column, with at most one column-to-row turn.
 */
final class VtftrRoutes {
    private final GridPorts grid;
    private final DetourCandidates detours;
    private final FabricIndex index;
    private final int[] destLeaf;
    private final int[] destX;
    private final int[] destY;
    private final int[] destPort;

    VtftrRoutes(GridPorts grid, DetourCandidates detours) {
        this.grid = grid;
        this.detours = detours;
        this.index = grid.layout.index();
        int n = index.destinationCount();
        destLeaf = new int[n];
        destX = new int[n];
        destY = new int[n];
        destPort = new int[n];
        for (int d = 0; d < n; d++) {
            int pos = index.nodeByDestination(d);
            int leaf = pos == FabricIndex.NONE ? FabricIndex.NONE : index.nodeLeaf(pos);
            destLeaf[d] = leaf;
            if (leaf != FabricIndex.NONE) {
                destX[d] = grid.layout.leafColumn(leaf);
                destY[d] = grid.layout.leafRow(leaf);
                destPort[d] = index.nodeLeafPort(pos);
            }
        }
    }

    /** Fills {@code row}, the table of switch {@code s}, already {@link ForwardingTables#NO_ROUTE} everywhere. */
    void fill(int s, byte[] row) {
        switch (grid.layout.role(s)) {
            case LEAF -> leaf(s, row);
            case ROW -> {
                if (grid.usable[s]) {
                    rowSwitch(s, row);
                }
            }
            case COLUMN -> {
                if (grid.usable[s]) {
                    columnSwitch(s, row);
                }
            }
            case UNUSED -> {
                // no leaf reaches it: nothing to forward
            }
        }
    }

    private void leaf(int s, byte[] row) {
        HdftLayout layout = grid.layout;
        int x = layout.leafColumn(s);
        int y = layout.leafRow(s);
        int[] up = grid.rowUp[s];
        int[] across = grid.columnUp[s];
        boolean rowWorks = grid.rowWorks[y];
        boolean columnWorks = grid.columnWorks[x];
        for (int d = 0; d < row.length; d++) {
            int t = destLeaf[d];
            if (t == FabricIndex.NONE) {
                continue;
            }
            if (t == s) {
                row[d] = (byte) destPort[d];
                continue;
            }
            int xd = destX[d];
            int yd = destY[d];
            boolean byRow;
            if (yd == y && rowWorks) {
                byRow = true;
            } else if (xd == x && columnWorks) {
                byRow = false;
            } else if (rowWorks && grid.columnWorks[xd] && grid.alive(xd, y)) {
                byRow = true;
            } else if (columnWorks && grid.rowWorks[yd] && grid.alive(x, yd)) {
                byRow = false;
            } else if (rowWorks && grid.rowWorks[yd] && detours.columns(y, yd).length > 0) {
                byRow = true;
            } else if (columnWorks && grid.columnWorks[xd] && detours.rows(x, xd).length > 0) {
                byRow = false;
            } else {
                continue;
            }
            int[] ports = byRow ? up : across;
            row[d] = (byte) ports[d % ports.length];
        }
    }

    private void rowSwitch(int s, byte[] row) {
        int y = grid.layout.lineOf(s);
        int[][] down = grid.down[s];
        for (int d = 0; d < row.length; d++) {
            if (destLeaf[d] == FabricIndex.NONE) {
                continue;
            }
            int xd = destX[d];
            int yd = destY[d];
            int to;
            if (yd == y || (grid.columnWorks[xd] && grid.alive(xd, y))) {
                to = xd;
            } else if (grid.rowWorks[yd]) {
                int[] candidates = detours.columns(y, yd);
                if (candidates.length == 0) {
                    continue;
                }
                to = candidates[d % candidates.length];
            } else {
                continue;
            }
            int[] ports = down[to];
            row[d] = (byte) ports[d % ports.length];
        }
    }

    private void columnSwitch(int s, byte[] row) {
        int x = grid.layout.lineOf(s);
        int[][] down = grid.down[s];
        for (int d = 0; d < row.length; d++) {
            if (destLeaf[d] == FabricIndex.NONE) {
                continue;
            }
            int xd = destX[d];
            int yd = destY[d];
            int to;
            if (xd == x || (grid.rowWorks[yd] && grid.alive(x, yd))) {
                to = yd;
            } else if (grid.columnWorks[xd]) {
                int[] candidates = detours.rows(x, xd);
                if (candidates.length == 0) {
                    continue;
                }
                to = candidates[d % candidates.length];
            } else {
                continue;
            }
            int[] ports = down[to];
            row[d] = (byte) ports[d % ports.length];
        }
    }
}
