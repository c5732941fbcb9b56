package org.fabricmanager.agent;

import java.util.Arrays;
import java.util.Optional;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.TableHash;

/**
 * The forwarding table a switch applies: an immutable snapshot with its version and hash. A commit
 * replaces the whole snapshot at once, so a reader sees the old table or the new one, never a mix.
 *
 * <p>The entries are held in chunks of one protocol block (64 entries; the last chunk is shorter when the
 * length is not a multiple of 64), and a new table shares every chunk its commit did not change with the
 * table it replaces. A re-route that changes one block of each table then costs each agent one chunk and an
 * array of references, not a copy of its whole table: with thousands of simulated agents in one process,
 * copying every 64 KB table on each commit filled the young generation with tables that stay live, and
 * copying them out of it took long collector pauses in the middle of a push (docs/performance.md, "Choices in
 * the code, measured").
 */
public final class AppliedTable {
    /** The table of a switch that never received one. */
    public static final AppliedTable EMPTY = new AppliedTable(0, new byte[0]);

    /** Entries per chunk: one LFT block, a multiple of the hash's eight-entry words. */
    static final int CHUNK = LftBlock.SIZE;

    /** A full chunk without routes, shared by every table that grows (never written). */
    private static final byte[] NO_ROUTES = filled(CHUNK);

    private final long version;
    /** Chunk {@code i} holds entries {@code [i * CHUNK, min(length, (i + 1) * CHUNK))}; never written once here. */
    private final byte[][] chunks;
    private final int length;
    private final long hash;
    private final Message.VcRuleSet rules;

    AppliedTable(long version, byte[] entries) {
        this(version, split(entries), entries.length, null);
    }

    /**
     * A table made of {@code chunks}, which it takes over: neither the caller nor anyone else may write them
     * (chunks shared with other tables are fine, as no table writes its chunks).
     */
    AppliedTable(long version, byte[][] chunks, int length, Message.VcRuleSet rules) {
        if (chunks.length != chunkCount(length)) {
            throw new IllegalArgumentException(chunks.length + " chunks for " + length + " entries");
        }
        for (int i = 0; i < chunks.length; i++) {
            if (chunks[i].length != chunkLength(length, i)) {
                throw new IllegalArgumentException("chunk " + i + " has " + chunks[i].length + " entries, not "
                        + chunkLength(length, i));
            }
        }
        this.version = version;
        this.chunks = chunks;
        this.length = length;
        this.hash = TableHash.ofChunks(chunks, length);
        this.rules = rules;
    }

    static int chunkCount(int length) {
        return (length + CHUNK - 1) / CHUNK;
    }

    /** The number of entries chunk {@code i} of a table of {@code length} entries holds. */
    static int chunkLength(int length, int i) {
        return Math.min(CHUNK, length - i * CHUNK);
    }

    private static byte[][] split(byte[] entries) {
        byte[][] c = new byte[chunkCount(entries.length)][];
        for (int i = 0; i < c.length; i++) {
            c[i] = Arrays.copyOfRange(entries, i * CHUNK, i * CHUNK + chunkLength(entries.length, i));
        }
        return c;
    }

    private static byte[] filled(int n) {
        byte[] c = new byte[n];
        Arrays.fill(c, (byte) 255);
        return c;
    }

    /**
     * This table's chunks for a table of {@code newLength} entries, to be changed by a commit: a new array of
     * references to the same chunks, cut at the new length, and grown with entries without a route (255).
     * Only a chunk whose size changes is copied.
     */
    byte[][] chunksResized(int newLength) {
        byte[][] c = Arrays.copyOf(chunks, chunkCount(newLength));
        for (int i = 0; i < c.length; i++) {
            int n = chunkLength(newLength, i);
            if (c[i] == null) {
                c[i] = n == CHUNK ? NO_ROUTES : filled(n);
            } else if (c[i].length != n) {
                byte[] resized = Arrays.copyOf(c[i], n);
                Arrays.fill(resized, Math.min(n, c[i].length), n, (byte) 255);
                c[i] = resized;
            }
        }
        return c;
    }

    /** How many chunks this table holds at the same place as {@code other} (the same arrays, not copies). */
    int chunksSharedWith(AppliedTable other) {
        int shared = 0;
        for (int i = 0; i < Math.min(chunks.length, other.chunks.length); i++) {
            shared += chunks[i] == other.chunks[i] ? 1 : 0;
        }
        return shared;
    }

    /** The virtual-channel rules held with the table, if any. */
    public Optional<Message.VcRuleSet> rules() {
        return Optional.ofNullable(rules);
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
        return length;
    }

    public long hash() {
        return hash;
    }

    /** Output port for destination index {@code d}, or 255 beyond the table. */
    public int port(int d) {
        return d >= 0 && d < length ? chunks[d / CHUNK][d % CHUNK] & 0xff : 255;
    }

    /** A copy of the entries. */
    public byte[] entries() {
        byte[] all = new byte[length];
        for (int i = 0; i < chunks.length; i++) {
            System.arraycopy(chunks[i], 0, all, i * CHUNK, chunks[i].length);
        }
        return all;
    }

    /** True when the entries equal {@code other} (same length and bytes). */
    public boolean sameEntries(byte[] other) {
        if (other.length != length) {
            return false;
        }
        for (int i = 0; i < chunks.length; i++) {
            int from = i * CHUNK;
            if (!Arrays.equals(chunks[i], 0, chunks[i].length, other, from, from + chunks[i].length)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "table v" + version + " (" + length + " entries, hash " + Long.toHexString(hash)
                + (rules == null ? "" : ", VC rules " + Long.toHexString(rules.rulesHash())) + ")";
    }
}
