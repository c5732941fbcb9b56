package org.fabricmanager.routing.vtftr;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.HdftLayout;
import org.fabricmanager.topology.HdftLayout.Role;

/**
 * The ports VTFTR chooses from, derived from an {@link HdftLayout}. A row (column) switch is
 * <em>usable</em> when it has a cable to every leaf present in its row (column): only usable ones
 * are used, so that a packet sent to any of them reaches any leaf of the line; a switch that lost
 * a cable is left out (its bandwidth is lost until the next routing) rather than making the tables
 * depend on the source. A line can move packets when it has at least one usable switch.
 *
 * <p>Per leaf: its ports to the usable row switches of its row and to the usable column switches
 * of its column (switch by switch in id order, ports ascending), from which destination {@code d}
 * takes entry {@code d mod count}, which spreads destinations over the switches and their parallel
 * cables. Per usable row (column) switch: its ports to the leaf of each column (row).
 */
final class GridPorts {
    private static final int[] NO_PORTS = new int[0];

    final HdftLayout layout;
    final int rows;
    final int columns;
    final boolean[] rowWorks;
    final boolean[] columnWorks;
    /** Per leaf id: ports to usable row / column switches (empty for other switches). */
    final int[][] rowUp;
    final int[][] columnUp;
    /** Per usable row (column) switch id: per column (row), its ports to the leaf there; null for other switches. */
    final int[][][] down;
    final boolean[] usable;

    GridPorts(HdftLayout layout) {
        this.layout = layout;
        FabricIndex index = layout.index();
        int n = index.switchCount();
        this.rows = layout.rows();
        this.columns = layout.columns();
        this.rowWorks = new boolean[rows];
        this.columnWorks = new boolean[columns];
        this.rowUp = new int[n][];
        this.columnUp = new int[n][];
        this.down = new int[n][][];
        this.usable = new boolean[n];
        Arrays.fill(rowUp, NO_PORTS);
        Arrays.fill(columnUp, NO_PORTS);
        for (int y = 0; y < rows; y++) {
            for (int s : layout.rowSwitches(y)) {
                down[s] = downPorts(index, s, columns, true);
                usable[s] = reachesEveryLeaf(down[s], y, true);
                rowWorks[y] |= usable[s];
            }
        }
        for (int x = 0; x < columns; x++) {
            for (int s : layout.columnSwitches(x)) {
                down[s] = downPorts(index, s, rows, false);
                usable[s] = reachesEveryLeaf(down[s], x, false);
                columnWorks[x] |= usable[s];
            }
        }
        for (int s = 0; s < n; s++) {
            if (layout.role(s) == Role.LEAF) {
                rowUp[s] = upPorts(index, s, Role.ROW);
                columnUp[s] = upPorts(index, s, Role.COLUMN);
            }
        }
    }

    /** True when leaf cell {@code (x, y)} holds a leaf. */
    boolean alive(int x, int y) {
        return layout.leafAt(x, y) != HdftLayout.NONE;
    }

    private int[][] downPorts(FabricIndex index, int s, int positions, boolean row) {
        int[] count = new int[positions];
        int[] peers = index.peerSwitches(s);
        for (int p = 1; p < peers.length; p++) {
            int t = peers[p];
            if (t != FabricIndex.NONE && layout.role(t) == Role.LEAF) {
                count[row ? layout.leafColumn(t) : layout.leafRow(t)]++;
            }
        }
        int[][] out = new int[positions][];
        for (int i = 0; i < positions; i++) {
            out[i] = count[i] == 0 ? NO_PORTS : new int[count[i]];
            count[i] = 0;
        }
        for (int p = 1; p < peers.length; p++) {
            int t = peers[p];
            if (t != FabricIndex.NONE && layout.role(t) == Role.LEAF) {
                int i = row ? layout.leafColumn(t) : layout.leafRow(t);
                out[i][count[i]++] = p;
            }
        }
        return out;
    }

    private boolean reachesEveryLeaf(int[][] ports, int line, boolean row) {
        for (int i = 0; i < ports.length; i++) {
            boolean leafThere = row ? alive(i, line) : alive(line, i);
            if (leafThere && ports[i].length == 0) {
                return false;
            }
        }
        return true;
    }

    /** The leaf's ports to usable switches of {@code role}, switch by switch in id order, ports ascending. */
    private int[] upPorts(FabricIndex index, int leaf, Role role) {
        int[] peers = index.peerSwitches(leaf);
        int count = 0;
        for (int p = 1; p < peers.length; p++) {
            if (peers[p] != FabricIndex.NONE && layout.role(peers[p]) == role && usable[peers[p]]) {
                count++;
            }
        }
        int[] out = new int[count];
        int k = 0;
        int[] groupStart = index.groupStartArray();
        for (int g = groupStart[leaf]; g < groupStart[leaf + 1]; g++) {
            int t = index.groupNeighbour(g);
            if (layout.role(t) == role && usable[t]) {
                for (int i = 0; i < index.groupSize(g); i++) {
                    out[k++] = index.groupPort(g, i);
                }
            }
        }
        return out;
    }
}
