package org.fabricmanager.daemon.push;

/**
 * What the daemon knows a switch holds: version, length and hash, plus the content when it is known
 * (a row of a {@link TableSet} the switch acknowledged, or the empty table). Unknown content forces a
 * full push.
 *
 * @param source the tables whose row {@code row} the switch holds, or {@code null}
 */
public record HeldTable(long version, int length, long hash, boolean known, TableSet source, int row, long rulesHash) {
    /** {@link #rulesHash} of a switch whose VC rules the daemon does not know (a HELLO does not carry them). */
    public static final long RULES_UNKNOWN = -1;

    public HeldTable(long version, int length, long hash, boolean known, TableSet source, int row) {
        this(version, length, hash, known, source, row, RULES_UNKNOWN);
    }

    /** These table contents with the VC rules of hash {@code rulesHash} (0: none), acknowledged by the switch. */
    public HeldTable withRules(long rulesHash) {
        return new HeldTable(version, length, hash, known, source, row, rulesHash);
    }

    /** A switch that holds no table (all entries unassigned). */
    public static HeldTable empty(long version, long hash) {
        return new HeldTable(version, 0, hash, true, null, -1);
    }

    /** A switch whose table content the daemon does not know. */
    public static HeldTable unknown(long version, int length, long hash) {
        return new HeldTable(version, length, hash, false, null, -1);
    }

    /**
     * What {@code was} said, to be confirmed again (the switch's manager, OpenSM, was lost meanwhile): content unknown
     * (a full push), length unknown (-1), so that it is never in sync by its hash alone.
     */
    public static HeldTable unconfirmed(HeldTable was) {
        return new HeldTable(was.version, -1, was.hash, false, null, -1, was.rulesHash);
    }

    /** A switch holding row {@code row} of {@code source}. */
    public static HeldTable of(TableSet source, int row) {
        return new HeldTable(source.version(), source.length(), source.hash(row), true, source, row);
    }

    /**
     * A switch holding the content of row {@code row} of {@code source} under another version number: it
     * has held it since an earlier version, and later versions did not change it (or it says so in its HELLO
     * with that content's hash).
     */
    public static HeldTable of(TableSet source, int row, long version) {
        return new HeldTable(version, source.length(), source.hash(row), true, source, row);
    }

    /** Entry {@code d} as held (255 beyond the held length); only for known content. */
    int port(int d) {
        if (d >= length || source == null) {
            return 255;
        }
        return source.tables().port(row, d);
    }
}
