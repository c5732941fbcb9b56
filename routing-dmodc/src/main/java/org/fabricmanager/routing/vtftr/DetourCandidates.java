package org.fabricmanager.routing.vtftr;

import java.util.Arrays;

/**
 * Where VTFTR mis-routes when both turn leaves of a route have failed (section 2.1 of the paper).
 * A row switch sends such a packet to a leaf {@code (x', y)} of its own row, from which it goes yx:
 * column {@code x'} must therefore have leaves in the source row and in the destination row and a
 * usable column switch. As in the paper, fault columns (any missing leaf) are removed from the
 * candidates, which keeps detours clear of failed leaves whatever the rows: the candidates are the
 * fault-free columns. When every column has a fault (possible from X failed leaves on), the
 * candidates fall back to the columns whose leaves in both rows are present: the path has the same
 * shape, so it is just as deadlock-free. Symmetrically, a column switch whose destination row lacks a
 * usable row switch (or a leaf in its column) mis-routes through a fault-free row.
 *
 * <p>A destination {@code d} takes candidate {@code d mod count}: deterministic, and spread over the
 * candidates. Lists are computed once per routing, so lookups allocate nothing.
 */
final class DetourCandidates {
    private static final int[] NONE = new int[0];

    private final int[] faultFreeColumns;
    private final int[] faultFreeRows;
    /** Fallbacks when no column (row) is fault-free, by source line x destination line; null otherwise. */
    private final int[][] columnFallback;
    private final int[][] rowFallback;
    private final int rows;
    private final int columns;

    DetourCandidates(GridPorts grid) {
        this.rows = grid.rows;
        this.columns = grid.columns;
        int switchedRows = grid.layout.switchedRows();
        int switchedColumns = grid.layout.switchedColumns();
        faultFreeColumns = faultFree(grid, columns, switchedRows, true);
        faultFreeRows = faultFree(grid, rows, switchedColumns, false);
        columnFallback = faultFreeColumns.length > 0 ? null : fallback(grid, rows, columns, true);
        rowFallback = faultFreeRows.length > 0 ? null : fallback(grid, columns, rows, false);
    }

    /** Lines with a usable switch whose cells in every switched line across are leaves. */
    private static int[] faultFree(GridPorts grid, int lines, int across, boolean column) {
        int[] tmp = new int[lines];
        int k = 0;
        for (int i = 0; i < lines; i++) {
            boolean ok = column ? grid.columnWorks[i] : grid.rowWorks[i];
            for (int j = 0; ok && j < across; j++) {
                ok = column ? grid.alive(i, j) : grid.alive(j, i);
            }
            if (ok) {
                tmp[k++] = i;
            }
        }
        return Arrays.copyOf(tmp, k);
    }

    private static int[][] fallback(GridPorts grid, int lines, int across, boolean column) {
        int[][] out = new int[lines * lines][];
        int[] tmp = new int[across];
        boolean[] works = column ? grid.rowWorks : grid.columnWorks;
        for (int a = 0; a < lines; a++) {
            for (int b = 0; b < lines; b++) {
                if (!works[a] || !works[b]) {
                    // never asked: detours run between lines that can move packets
                    out[a * lines + b] = NONE;
                    continue;
                }
                int k = 0;
                for (int i = 0; i < across; i++) {
                    boolean ok = column ? grid.columnWorks[i] && grid.alive(i, a) && grid.alive(i, b)
                            : grid.rowWorks[i] && grid.alive(a, i) && grid.alive(b, i);
                    if (ok) {
                        tmp[k++] = i;
                    }
                }
                out[a * lines + b] = k == 0 ? NONE : Arrays.copyOf(tmp, k);
            }
        }
        return out;
    }

    /** Candidate columns for a row switch of row {@code y} sending towards row {@code yd}. */
    int[] columns(int y, int yd) {
        return columnFallback == null ? faultFreeColumns : columnFallback[y * rows + yd];
    }

    /** Candidate rows for a column switch of column {@code x} sending towards column {@code xd}. */
    int[] rows(int x, int xd) {
        return rowFallback == null ? faultFreeRows : rowFallback[x * columns + xd];
    }

    /** The fault-free columns (empty when every column has a failed leaf or no usable switch). */
    int[] faultFreeColumns() {
        return faultFreeColumns.clone();
    }

    /** The fault-free rows. */
    int[] faultFreeRows() {
        return faultFreeRows.clone();
    }
}
