package org.fabricmanager.agent;

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

    AppliedTable(long version, byte[] entries) {
        this.version = version;
        this.entries = entries;
        this.hash = TableHash.of(entries);
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
        return "table v" + version + " (" + entries.length + " entries, hash " + Long.toHexString(hash) + ")";
    }
}
