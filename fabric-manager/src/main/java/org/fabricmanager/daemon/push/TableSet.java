package org.fabricmanager.daemon.push;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.TableHash;

/**
 * One version of the whole fabric's tables, with a lookup of a switch's row by GUID and each row's
 * protocol hash (computed on first use). Immutable apart from that cache; used on the control thread.
 */
public final class TableSet {
    private final long version;
    private final ForwardingTables tables;
    private final long[] guids;
    private final long[] hashes;
    private final boolean[] hashed;

    public TableSet(long version, ForwardingTables tables) {
        this.version = version;
        this.tables = tables;
        this.guids = new long[tables.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = tables.switchGuid(s);
        }
        for (int s = 1; s < guids.length; s++) {
            if (Long.compareUnsigned(guids[s - 1], guids[s]) >= 0) {
                throw new IllegalArgumentException("table rows are not in ascending GUID order");
            }
        }
        this.hashes = new long[guids.length];
        this.hashed = new boolean[guids.length];
    }

    public long version() {
        return version;
    }

    public ForwardingTables tables() {
        return tables;
    }

    /** Table length (destination count). */
    public int length() {
        return tables.destinationCount();
    }

    /** The row of switch {@code guid}, or -1 when the tables do not cover it. */
    public int row(long guid) {
        int lo = 0;
        int hi = guids.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(guids[mid], guid);
            if (c == 0) {
                return mid;
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return -1;
    }

    /** The protocol hash of row {@code s}. */
    public long hash(int s) {
        if (!hashed[s]) {
            byte[] row = new byte[length()];
            tables.copyEntries(s, 0, row, 0, row.length);
            hashes[s] = TableHash.of(row);
            hashed[s] = true;
        }
        return hashes[s];
    }

    /** A copy of row {@code s}. */
    public byte[] row(int s, int from, int length) {
        byte[] out = new byte[length];
        tables.copyEntries(s, from, out, 0, length);
        return out;
    }

    @Override
    public String toString() {
        return "tables v" + version + " (" + guids.length + " switches x " + length() + ")";
    }
}
