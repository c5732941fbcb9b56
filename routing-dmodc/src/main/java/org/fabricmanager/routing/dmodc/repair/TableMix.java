package org.fabricmanager.routing.dmodc.repair;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;

/**
 * A repair with some of its entries taken from a full routing of the same fabric: what a refined repair
 * ({@link RefinedRepair}) and a return ({@link ReturnOverlay}) give. Each says, row by row, which entries take the full
 * routing's port; the rows that take none stay the repair's own arrays, the others are copied once.
 *
 * <p>Both tables step to a strictly closer neighbour at every entry, so any mix of them does too: the result is
 * valid and deadlock-free as a repair is.
 */
public final class TableMix {
    /** Switches a worker takes at a time. */
    private static final int GRAIN = 16;

    private TableMix() {
    }

    /** The mixed tables, and how many of their entries took the full routing's port where the repair's differs. */
    public record Result(ForwardingTables tables, long taken) {
    }

    /** Which entries of one row take the full routing's port. */
    @FunctionalInterface
    interface Choice {
        /** Calls {@link Row#take} for each entry of switch {@code s}'s row that takes the full routing's port. */
        void choose(int s, Row row);
    }

    /** The row of one switch being mixed: the repair's, copied at the first entry it takes. */
    static final class Row {
        private final ForwardingTables repaired;
        private final ForwardingTables full;
        private int s;
        private byte[] entries;
        private long taken;

        private Row(ForwardingTables repaired, ForwardingTables full) {
            this.repaired = repaired;
            this.full = full;
        }

        /** Sets destination {@code d}'s entry to the full routing's port, counting it when it differs. */
        void take(int d) {
            int port = full.port(s, d);
            if (port == repaired.port(s, d)) {
                return;
            }
            if (entries == null) {
                entries = repaired.copyRow(s);
            }
            entries[d] = (byte) port;
            taken++;
        }
    }

    /**
     * {@code repaired} with the entries {@code choice} names set to {@code full}'s port; both tables are of the same
     * fabric (same switches, same order). {@code repaired} itself when no entry changes.
     */
    static Result of(ForwardingTables repaired, ForwardingTables full, RoutingPool pool, Choice choice) {
        int switches = repaired.switchCount();
        byte[][] rows = new byte[switches][];
        long[] taken = new long[switches];
        pool.forRange(switches, GRAIN, (worker, from, to) -> {
            Row row = new Row(repaired, full);
            for (int s = from; s < to; s++) {
                row.s = s;
                row.entries = null;
                row.taken = 0;
                choice.choose(s, row);
                rows[s] = row.entries;
                taken[s] = row.taken;
            }
        });
        long total = 0;
        int[] reuse = new int[switches];
        for (int s = 0; s < switches; s++) {
            total += taken[s];
            reuse[s] = rows[s] == null ? s : -1;
        }
        if (total == 0) {
            return new Result(repaired, 0);
        }
        long[] guids = new long[switches];
        for (int s = 0; s < switches; s++) {
            guids[s] = repaired.switchGuid(s);
        }
        return new Result(ForwardingTables.ofRows(guids, rows, repaired.destinationCount(), repaired, reuse), total);
    }
}
