package org.fabricmanager.agent;

import org.fabricmanager.southbound.Message;
import java.util.Arrays;
import org.fabricmanager.southbound.TableHash;

/**
 * The forwarding table a switch applies: an immutable snapshot with its version and hash. A commit
 * replaces the whole snapshot at once, so a reader sees the old table or the new one, never a mix.
 */
public final class AppliedTable {
    /** The table of a switch that never received one. */
    public static final AppliedTable EMPTY = new AppliedTable(0, new byte[0]);

    private final long version;
    private final byte[] entries;
    private final long hash;
    private final Message.VcRuleSet rules;

    AppliedTable(long version, byte[] entries) {
        this(version, entries, null);
    }

    /** A table with the virtual-channel rules that go with it ({@code null}: none), applied together. */
    AppliedTable(long version, byte[] entries, Message.VcRuleSet rules) {
        this.version = version;
        this.entries = entries;
        this.hash = TableHash.of(entries);
        this.rules = rules;
    }

    /** The virtual-channel rules held with the table, if any. */
    public java.util.Optional<Message.VcRuleSet> rules() {
        return java.util.Optional.ofNullable(rules);
    }

    /** Hash of the held rules ({@link TableHash#rules}), 0 when there are none. */
    public long rulesHash() {
        return rules == null ? 0 : rules.rulesHash();
    }

    /**
     * The channel a packet leaves by {@code outPort} on after arriving by {@code inPort} (0: from an
     * end node, which starts on channel 0) on {@code inVc}: a matching transition sets it, otherwise it
     * is kept; {@code inVc} when the switch holds no rules.
     */
    public int nextVc(int inPort, int inVc, int outPort) {
        if (rules == null) {
            return inVc;
        }
        byte[] c = rules.portClasses();
        int from = inPort == 0 ? 1 : inPort <= c.length ? c[inPort - 1] : 0;
        int to = outPort >= 1 && outPort <= c.length ? c[outPort - 1] : 0;
        byte[] t = rules.transitions();
        for (int i = 0; i + 2 < t.length; i += 3) {
            if (t[i] == from && t[i + 1] == to) {
                return t[i + 2];
            }
        }
        return inVc;
    }

    public long version() {
        return version;
    }

    public int length() {
        return entries.length;
    }

    public long hash() {
        return hash;
    }

    /** Output port for destination index {@code d}, or 255 beyond the table. */
    public int port(int d) {
        return d < entries.length ? entries[d] & 0xff : 255;
    }

    /** A copy of the entries. */
    public byte[] entries() {
        return entries.clone();
    }

    byte[] entriesShared() {
        return entries;
    }

    /** True when the entries equal {@code other} (same length and bytes). */
    public boolean sameEntries(byte[] other) {
        return Arrays.equals(entries, other);
    }

    @Override
    public String toString() {
        return "table v" + version + " (" + entries.length + " entries, hash " + Long.toHexString(hash)
                + (rules == null ? "" : ", VC rules " + Long.toHexString(rules.rulesHash())) + ")";
    }
}
