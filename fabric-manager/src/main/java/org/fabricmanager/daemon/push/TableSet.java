package org.fabricmanager.daemon.push;

import java.util.Arrays;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.VcRules;
import org.fabricmanager.routing.VcTransition;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.TableHash;

/**
 * One version of the whole fabric's tables, with a lookup of a switch's row by GUID and each row's
 * protocol hash. A set {@link #derive derived} from the previous version also knows, per switch, which
 * 64-entry blocks changed since that version, and carries every hash, computed off the control thread
 * (a row that did not change keeps its previous hash without hashing it again). A set made with the
 * constructor hashes rows on first use. Used on the control thread once built.
 */
public final class TableSet {
    /** {@link #changedBlocks} of a row that is identical in the previous version. */
    private static final int[] NONE = new int[0];

    private final long version;
    private final ForwardingTables tables;
    private final long[] guids;
    private final long[] hashes;
    /** Per row the VC rules on the wire, built on first use; {@code null} when the tables carry none. */
    private final LftBatch.Rules[] rules;
    private final boolean[] hashed;
    private final long previousVersion;
    /** Per row: the blocks that differ from the previous version's row of the same switch, or null when unknown. */
    private final int[][] changedBlocks;
    private int changedRows = -1;
    private boolean derived;

    public TableSet(long version, ForwardingTables tables) {
        this(version, tables, -1, null);
    }

    private TableSet(long version, ForwardingTables tables, long previousVersion, int[][] changedBlocks) {
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
        this.rules = tables.vcRules().isPresent() ? new LftBatch.Rules[guids.length] : null;
        this.previousVersion = previousVersion;
        this.changedBlocks = changedBlocks;
    }

    /**
     * The tables of a new version, compared with the previous version's: every row's hash (reused from
     * {@code previous} for a row that did not change) and the blocks of each row that changed. Costs a pass
     * over every entry: call it off the control thread (the routing service does).
     *
     * @param previous the version the switches hold now, or {@code null}
     */
    public static TableSet derive(long version, ForwardingTables tables, TableSet previous) {
        int rows = tables.switchCount();
        int length = tables.destinationCount();
        int[][] changed = new int[rows][];
        TableSet set = new TableSet(version, tables, previous == null ? -1 : previous.version, changed);
        int[] scratch = new int[(length + LftBlock.SIZE - 1) / LftBlock.SIZE];
        int changedRows = 0;
        for (int s = 0; s < rows; s++) {
            int p = previous == null ? -1 : previous.row(set.guids[s]);
            if (p < 0 || previous.length() != length) {
                changedRows++;
                set.hash(s);
                continue;
            }
            int at = tables.mismatch(s, previous.tables, p, 0);
            if (at < 0) {
                changed[s] = NONE;
                // a derived set's hashes were all written before it was published; a lazy one's may be
                // written by the control thread meanwhile, so it is not read from here
                if (previous.derived) {
                    set.hashes[s] = previous.hashes[p];
                    set.hashed[s] = true;
                } else {
                    set.hash(s);
                }
                continue;
            }
            // from one difference to the next, skipping the rest of each changed block: one pass over the row
            int n = 0;
            while (at >= 0) {
                int b = at / LftBlock.SIZE;
                scratch[n++] = b;
                at = tables.mismatch(s, previous.tables, p, (b + 1) * LftBlock.SIZE);
            }
            changed[s] = Arrays.copyOf(scratch, n);
            changedRows++;
            set.hash(s);
        }
        set.changedRows = changedRows;
        set.derived = true;
        return set;
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

    /** Number of rows (switches covered). */
    public int rowCount() {
        return guids.length;
    }

    /** The switch of row {@code s}. */
    public long guid(int s) {
        return guids[s];
    }

    /** The row of switch {@code guid}, or -1 when the tables do not cover it. */
    public int row(long guid) {
        return tables.rowOf(guid);
    }

    /** The protocol hash of row {@code s}. */
    public long hash(int s) {
        if (!hashed[s]) {
            int length = length();
            long h = TableHash.start(length);
            for (int i = 0; i < length; i += Long.BYTES) {
                h = TableHash.step(h, tables.word(s, i));
            }
            hashes[s] = TableHash.finish(h);
            hashed[s] = true;
        }
        return hashes[s];
    }

    /** Whether the tables carry virtual-channel rules (vtftr) that switches must hold with them. */
    public boolean hasRules() {
        return rules != null;
    }

    /** The VC rules of row {@code s} as VC_RULES carries them, or {@code null} when the tables have none. */
    public LftBatch.Rules rules(int s) {
        if (rules == null) {
            return null;
        }
        if (rules[s] == null) {
            VcRules r = tables.vcRules().get();
            int ports = r.ports(s);
            byte[] classes = new byte[ports];
            for (int p = 1; p <= ports; p++) {
                // PortClass ordinals are the wire's class codes (0 other, 1 node, 2 leaf, 3 row, 4 column)
                classes[p - 1] = (byte) r.portClass(s, p).ordinal();
            }
            List<VcTransition> ts = r.transitions(s);
            byte[] transitions = new byte[ts.size() * 3];
            for (int i = 0; i < ts.size(); i++) {
                transitions[3 * i] = (byte) ts.get(i).from().ordinal();
                transitions[3 * i + 1] = (byte) ts.get(i).to().ordinal();
                transitions[3 * i + 2] = (byte) ts.get(i).vc();
            }
            rules[s] = new LftBatch.Rules(r.vcCount(), classes, transitions);
        }
        return rules[s];
    }

    /** The hash of row {@code s}'s VC rules, 0 when the tables have none. */
    public long rulesHash(int s) {
        return rules == null ? 0 : rules(s).hash();
    }

    /** A copy of row {@code s}. */
    public byte[] row(int s, int from, int length) {
        byte[] out = new byte[length];
        tables.copyEntries(s, from, out, 0, length);
        return out;
    }

    /** The version this set was derived from, or -1. */
    public long previousVersion() {
        return previousVersion;
    }

    /**
     * The indices of the 64-entry blocks of row {@code s} that differ from the same switch's row in
     * {@link #previousVersion()} (empty: unchanged), or {@code null} when that is unknown (not derived, a
     * switch new in this version, or another table length). Do not modify the array.
     */
    public int[] changedBlocks(int s) {
        return changedBlocks == null ? null : changedBlocks[s];
    }

    /** Rows that differ from the previous version (all of them for a set that was not derived). */
    public int changedRows() {
        return changedRows < 0 ? guids.length : changedRows;
    }

    @Override
    public String toString() {
        return "tables v" + version + " (" + guids.length + " switches x " + length() + ")";
    }
}
