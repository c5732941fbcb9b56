package org.fabricmanager.southbound;

/**
 * The protocol's table hash: FNV-1a 64-bit over the table length (4 bytes, big-endian) followed by
 * the entries ({@code docs/protocol.md}, section 5). Agents report it in HELLO and in the ACK of a
 * commit; the daemon announces it in LFT_COMMIT.
 */
public final class TableHash {
    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    /** Hash of the empty table (what an agent without a table reports). */
    public static final long EMPTY = of(new byte[0]);

    private TableHash() {
    }

    /** Hash of the whole array as a table. */
    public static long of(byte[] entries) {
        return of(entries, 0, entries.length);
    }

    /** Hash of the table {@code entries[from .. from+length)}. */
    public static long of(byte[] entries, int from, int length) {
        long h = OFFSET_BASIS;
        h = step(h, length >>> 24);
        h = step(h, length >>> 16);
        h = step(h, length >>> 8);
        h = step(h, length);
        for (int i = from, end = from + length; i < end; i++) {
            h = (h ^ (entries[i] & 0xff)) * PRIME;
        }
        return h;
    }

    private static long step(long h, int b) {
        return (h ^ (b & 0xff)) * PRIME;
    }
}
