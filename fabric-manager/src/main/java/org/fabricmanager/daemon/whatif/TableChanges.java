package org.fabricmanager.daemon.whatif;

import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.Message.LftBlock;

/**
 * How much of the tables in force a new routing changes on the switches it covers (those that survive a
 * what-if's failures): entries that differ, the 64-entry blocks a push would send (those with at least
 * one differing entry), and the switches with at least one. An entry beyond a table's length counts as
 * {@link ForwardingTables#NO_ROUTE}; a switch the live tables do not cover has every routed entry changed.
 */
public record TableChanges(long entries, long blocks, int switchesTouched) {

    /** Compares {@code after} with {@code live}, switch by switch (by GUID). */
    public static TableChanges between(TableSet live, ForwardingTables after) {
        ForwardingTables before = live.tables();
        long entries = 0;
        long blocks = 0;
        int touched = 0;
        int length = Math.max(before.destinationCount(), after.destinationCount());
        boolean sameLength = before.destinationCount() == after.destinationCount();
        for (int s = 0; s < after.switchCount(); s++) {
            int p = live.row(after.switchGuid(s));
            long rowEntries = 0;
            for (int base = 0; base < length; base += LftBlock.SIZE) {
                int end = Math.min(length, base + LftBlock.SIZE);
                if (p >= 0 && sameLength && after.rangeEquals(s, before, p, base, end)) {
                    continue;
                }
                int differing = 0;
                for (int d = base; d < end; d++) {
                    if (port(after, s, d) != (p < 0 ? ForwardingTables.NO_ROUTE : port(before, p, d))) {
                        differing++;
                    }
                }
                if (differing > 0) {
                    blocks++;
                    rowEntries += differing;
                }
            }
            if (rowEntries > 0) {
                touched++;
                entries += rowEntries;
            }
        }
        return new TableChanges(entries, blocks, touched);
    }

    private static int port(ForwardingTables t, int s, int d) {
        return d < t.destinationCount() ? t.port(s, d) : ForwardingTables.NO_ROUTE;
    }
}
