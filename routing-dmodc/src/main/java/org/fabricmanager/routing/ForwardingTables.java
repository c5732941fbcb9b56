package org.fabricmanager.routing;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Linear forwarding tables of a whole fabric: for each switch (dense ids of the
 * {@link org.fabricmanager.topology.FabricIndex}, ascending GUID) and each destination index, the
 * output port, or {@link #NO_ROUTE}. One byte per entry, as InfiniBand LFTs; read-only once built.
 * Tables of engines that use several virtual channels also carry their {@link VcRules}; by default
 * there are none (one channel, every packet on channel 0).
 */
public final class ForwardingTables {
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** InfiniBand's unassigned LFT entry. */
    public static final int NO_ROUTE = 255;

    private final long[] switchGuids;
    private final byte[][] ports;
    private final int destinationCount;
    private final VcRules vcRules;

    private ForwardingTables(long[] switchGuids, byte[][] ports, int destinationCount) {
        this(switchGuids, ports, destinationCount, null);
    }

    private ForwardingTables(long[] switchGuids, byte[][] ports, int destinationCount, VcRules vcRules) {
        this.switchGuids = switchGuids;
        this.ports = ports;
        this.destinationCount = destinationCount;
        this.vcRules = vcRules;
    }

    /** The virtual-channel rules that go with these tables, if the engine uses more than one channel. */
    public Optional<VcRules> vcRules() {
        return Optional.ofNullable(vcRules);
    }

    /**
     * These tables with {@code rules} (sharing the entries, which are immutable).
     *
     * @throws IllegalArgumentException when the rules are for another number of switches
     */
    public ForwardingTables withVcRules(VcRules rules) {
        if (rules.switchCount() != switchGuids.length) {
            throw new IllegalArgumentException("VC rules for " + rules.switchCount() + " switches, tables for "
                    + switchGuids.length);
        }
        return new ForwardingTables(switchGuids, ports, destinationCount, rules);
    }

    /** A builder whose rows start as {@link #NO_ROUTE} everywhere. */
    public static Builder builder(long[] switchGuids, int destinationCount) {
        return new Builder(switchGuids.clone(), destinationCount);
    }

    /**
     * Tables made of rows an engine filled itself (e.g. each row allocated and written by a
     * worker thread, which spares a serial allocation and pre-fill of the whole table). The tables
     * take ownership of {@code rows}: the caller must not modify them afterwards, and must have
     * joined the threads that wrote them.
     *
     * @throws IllegalArgumentException when the row count or a row length does not match
     */
    public static ForwardingTables ofRows(long[] switchGuids, byte[][] rows, int destinationCount) {
        if (rows.length != switchGuids.length) {
            throw new IllegalArgumentException(rows.length + " rows for " + switchGuids.length + " switches");
        }
        for (int s = 0; s < rows.length; s++) {
            if (rows[s] == null || rows[s].length != destinationCount) {
                throw new IllegalArgumentException("row " + s + " does not have " + destinationCount + " entries");
            }
        }
        return new ForwardingTables(switchGuids.clone(), rows, destinationCount);
    }

    /**
     * Tables whose row {@code s} is row {@code reuse[s]} of {@code previous} when {@code reuse[s] >= 0},
     * the very same array (rows never change once built, so two tables may share one), and
     * {@code rows[s]} otherwise, owned as by {@link #ofRows(long[], byte[][], int)}. This is how an
     * incremental re-route keeps the rows a change did not touch without copying them. The result
     * has no VC rules.
     *
     * @throws IllegalArgumentException when the counts or a row length do not match, or a reused
     *                                   row number is outside {@code previous}
     */
    public static ForwardingTables ofRows(long[] switchGuids, byte[][] rows, int destinationCount,
                                          ForwardingTables previous, int[] reuse) {
        if (rows.length != switchGuids.length || reuse.length != switchGuids.length) {
            throw new IllegalArgumentException(rows.length + " rows and " + reuse.length + " reuse entries for "
                    + switchGuids.length + " switches");
        }
        if (previous.destinationCount != destinationCount) {
            throw new IllegalArgumentException("previous tables have " + previous.destinationCount
                    + " entries per row, not " + destinationCount);
        }
        byte[][] merged = new byte[rows.length][];
        for (int s = 0; s < rows.length; s++) {
            if (reuse[s] >= 0) {
                if (reuse[s] >= previous.ports.length) {
                    throw new IllegalArgumentException("row " + s + " reuses row " + reuse[s] + " of tables with "
                            + previous.ports.length + " rows");
                }
                merged[s] = previous.ports[reuse[s]];
            } else {
                merged[s] = rows[s];
            }
        }
        return ofRows(switchGuids, merged, destinationCount);
    }

    /**
     * These tables for a fabric whose end ports answer to 2^{@code lmc} LIDs each ({@link
     * org.fabricmanager.topology.FabricIndex#lmc()}): destination {@code d}'s entry for each of {@code (d << lmc) |
     * pathBits}, every extra LID routed as its base LID, for engines that have no better idea. VC rules are kept.
     */
    public ForwardingTables withPathBits(int lmc) {
        if (lmc == 0) {
            return this;
        }
        int lids = 1 << lmc;
        byte[][] rows = new byte[ports.length][];
        for (int s = 0; s < rows.length; s++) {
            byte[] row = new byte[destinationCount * lids];
            for (int d = 0; d < destinationCount; d++) {
                Arrays.fill(row, d * lids, d * lids + lids, ports[s][d]);
            }
            rows[s] = row;
        }
        return new ForwardingTables(switchGuids, rows, destinationCount * lids, vcRules);
    }

    /** True when row {@code s} is the very array of {@code other}'s row {@code otherS} (shared by {@link #ofRows(long[], byte[][], int, ForwardingTables, int[])}). */
    public boolean sharesRow(int s, ForwardingTables other, int otherS) {
        return ports[s] == other.ports[otherS];
    }

    /** Bytes held by the entries (one per switch and destination index), headers excluded. */
    public long entryBytes() {
        return (long) ports.length * destinationCount;
    }

    public int switchCount() {
        return switchGuids.length;
    }

    public long switchGuid(int s) {
        return switchGuids[s];
    }

    /** The row of switch {@code guid} in tables whose rows are in ascending GUID order, or -1 when none is its. */
    public int rowOf(long guid) {
        int lo = 0;
        int hi = switchGuids.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(switchGuids[mid], guid);
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

    /** Length of every switch's table: largest destination index + 1. */
    public int destinationCount() {
        return destinationCount;
    }

    /** Output port of switch {@code s} for destination {@code d}, or {@link #NO_ROUTE}. */
    public int port(int s, int d) {
        return ports[s][d] & 0xff;
    }

    /** A copy of switch {@code s}'s table. */
    public byte[] copyRow(int s) {
        return ports[s].clone();
    }

    /** Copies {@code length} entries of switch {@code s}'s table starting at {@code from} into {@code dst}. */
    public void copyEntries(int s, int from, byte[] dst, int dstOffset, int length) {
        System.arraycopy(ports[s], from, dst, dstOffset, length);
    }

    /** True when switch {@code s} has the same table in both (same length and entries). */
    public boolean rowEquals(int s, ForwardingTables other, int otherS) {
        return ports[s] == other.ports[otherS] || Arrays.equals(ports[s], other.ports[otherS]);
    }

    /**
     * True when entries {@code [from, to)} of switch {@code s} equal those of switch {@code otherS} of
     * {@code other} (both rows must reach {@code to}); a vectorised comparison, no copy.
     */
    public boolean rangeEquals(int s, ForwardingTables other, int otherS, int from, int to) {
        byte[] a = ports[s];
        byte[] b = other.ports[otherS];
        return a == b || Arrays.equals(a, from, to, b, from, to);
    }

    /**
     * The first destination at or after {@code from} whose entry differs between switch {@code s} and
     * switch {@code otherS} of {@code other}, or -1 when none does (both rows must have this table's length);
     * a vectorised scan, so finding the few changed blocks of a row costs one pass over it, no copy.
     */
    public int mismatch(int s, ForwardingTables other, int otherS, int from) {
        byte[] a = ports[s];
        byte[] b = other.ports[otherS];
        if (a == b || from >= a.length) {
            return -1;
        }
        int at = Arrays.mismatch(a, from, a.length, b, from, a.length);
        return at < 0 ? -1 : from + at;
    }

    /**
     * Entries {@code [i, i + 8)} of switch {@code s}'s table as one little-endian 64-bit word (entry
     * {@code i} in the low byte), entries past the table's end read as 0: what a table hash that works on
     * words reads, without copying the row.
     */
    public long word(int s, int i) {
        byte[] row = ports[s];
        if (i + Long.BYTES <= row.length) {
            return (long) WORDS.get(row, i);
        }
        long w = 0;
        for (int k = i, shift = 0; k < row.length; k++, shift += 8) {
            w |= (row[k] & 0xffL) << shift;
        }
        return w;
    }

    /** True when entries {@code [from, to)} of switch {@code s} are all {@link #NO_ROUTE}. */
    public boolean rangeUnrouted(int s, int from, int to) {
        byte[] a = ports[s];
        for (int i = from; i < to; i++) {
            if (a[i] != (byte) NO_ROUTE) {
                return false;
            }
        }
        return true;
    }

    /** True when both have the same switches, in the same order, with the same tables and VC rules. */
    public boolean sameAs(ForwardingTables other) {
        if (!Arrays.equals(switchGuids, other.switchGuids) || destinationCount != other.destinationCount
                || !Objects.equals(vcRules, other.vcRules)) {
            return false;
        }
        for (int s = 0; s < ports.length; s++) {
            if (!Arrays.equals(ports[s], other.ports[s])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Fills the tables. Each row may be written by a different thread; {@link #build()} publishes
     * them (the caller must have joined its workers before calling it).
     */
    public static final class Builder {
        private final long[] switchGuids;
        private final byte[][] ports;
        private final int destinationCount;
        private boolean built;

        private Builder(long[] switchGuids, int destinationCount) {
            this.switchGuids = switchGuids;
            this.destinationCount = destinationCount;
            this.ports = new byte[switchGuids.length][destinationCount];
            for (byte[] row : ports) {
                Arrays.fill(row, (byte) NO_ROUTE);
            }
        }

        /** The writable row of switch {@code s} (entries are ports as unsigned bytes). */
        public byte[] row(int s) {
            if (built) {
                throw new IllegalStateException("tables already built");
            }
            return ports[s];
        }

        public void set(int s, int d, int port) {
            row(s)[d] = (byte) port;
        }

        public ForwardingTables build() {
            built = true;
            return new ForwardingTables(switchGuids, ports, destinationCount);
        }
    }
}
