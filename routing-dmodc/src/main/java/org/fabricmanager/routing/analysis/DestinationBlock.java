package org.fabricmanager.routing.analysis;

import org.fabricmanager.routing.ForwardingTables;

/**
 * A copy of the table entries of every switch for a run of {@link #WIDTH} consecutive
 * destinations, laid out switch by switch. Per-destination analyses read one entry of many
 * switches in turn; reading them from the tables directly would touch one cache line per entry,
 * while a block of 64 destinations for a few thousand switches stays in the L2 cache.
 */
final class DestinationBlock {
    static final int WIDTH = 64;

    private final ForwardingTables tables;
    private final byte[] entries;
    private int first;
    private int width;

    DestinationBlock(ForwardingTables tables) {
        this.tables = tables;
        this.entries = new byte[tables.switchCount() * WIDTH];
    }

    /** Number of blocks covering every destination. */
    static int blockCount(int destinations) {
        return (destinations + WIDTH - 1) / WIDTH;
    }

    /** Loads block {@code block}: destinations {@code block * WIDTH ..}. */
    void load(int block) {
        first = block * WIDTH;
        width = Math.min(WIDTH, tables.destinationCount() - first);
        for (int s = 0; s < tables.switchCount(); s++) {
            tables.copyEntries(s, first, entries, s * WIDTH, width);
        }
    }

    int first() {
        return first;
    }

    int width() {
        return width;
    }

    /** The output port of switch {@code s} for destination {@code first() + j}. */
    int port(int s, int j) {
        return entries[s * WIDTH + j] & 0xff;
    }
}
