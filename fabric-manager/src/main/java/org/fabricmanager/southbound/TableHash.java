package org.fabricmanager.southbound;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The protocol's table hash ({@code docs/protocol.md}, section 5): one round over the table length, one round per
 * eight entries taken as a little-endian 64-bit word (the last word zero-padded), and a final mix. A round multiplies
 * the word, folds it into the running hash, rotates and multiplies; each round and the final mix is a bijection of
 * the running hash, so two tables of one length that differ in a single word always hash apart, and the rotation
 * carries every bit into every later round. Agents report it in HELLO and in the ACK of a commit; the daemon
 * announces it in LFT_COMMIT.
 *
 * <p>Protocol version 2 took FNV-1a steps over the words instead. A multiplication carries a difference only towards
 * the high bits, so two tables that differ in the top byte of two words (two swapped entries 8k+7 and 8j+7, common
 * between two routings) hashed alike about once in a hundred, and a switch holding a stale table passed for in sync.
 */
public final class TableHash {
    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;
    private static final long SEED = 0x9e3779b97f4a7c15L;
    private static final long ROUND_MULTIPLIER = 0x9e3779b185ebca87L;
    private static final long WORD_MULTIPLIER = 0xc2b2ae3d27d4eb4fL;
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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
        return finish(fold(start(length), entries, from, from + length));
    }

    /** {@code h} after the words of {@code entries[from .. end)}, the last one zero-padded. */
    private static long fold(long h, byte[] entries, int from, int end) {
        int i = from;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            h = step(h, (long) WORDS.get(entries, i));
        }
        if (i < end) {
            long w = 0;
            for (int shift = 0; i < end; i++, shift += 8) {
                w |= (entries[i] & 0xffL) << shift;
            }
            h = step(h, w);
        }
        return h;
    }

    /**
     * The running hash of a table of {@code length} entries before its first word: with {@link #step} over each of
     * its words in order (the last one zero-padded) and then {@link #finish}, the table's hash, for a caller that
     * reads the words where the table is instead of copying it into an array.
     */
    public static long start(int length) {
        return step(SEED, length);
    }

    /** The running hash {@code h} after the next word of the table. */
    public static long step(long h, long word) {
        return Long.rotateLeft(h ^ word * WORD_MULTIPLIER, 31) * ROUND_MULTIPLIER;
    }

    /** The table's hash from the running hash {@code h} after its last word. */
    public static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ h >>> 33;
    }

    /**
     * Hash of a table of {@code length} entries held in consecutive chunks: the same value as {@link #of} of
     * their concatenation. Every chunk but the last must hold a multiple of eight entries, so that a word
     * never spans two chunks.
     */
    public static long ofChunks(byte[][] chunks, int length) {
        long h = start(length);
        int seen = 0;
        for (int c = 0; c < chunks.length; c++) {
            byte[] chunk = chunks[c];
            if (c < chunks.length - 1 && chunk.length % Long.BYTES != 0) {
                throw new IllegalArgumentException("chunk " + c + " of " + chunk.length + " entries is not whole words");
            }
            h = fold(h, chunk, 0, chunk.length);
            seen += chunk.length;
        }
        if (seen != length) {
            throw new IllegalArgumentException("chunks hold " + seen + " entries, not " + length);
        }
        return finish(h);
    }

    /**
     * Hash of virtual-channel rules (section 5): FNV-1a 64 byte by byte over {@code vcCount}, the port
     * count, the port classes, the transition count and the transitions' bytes; never 0, so that 0 can
     * mean "no rules" in LFT_COMMIT and its ACK.
     */
    public static long rules(int vcCount, byte[] portClasses, byte[] transitions) {
        long h = OFFSET_BASIS;
        h = (h ^ (vcCount & 0xff)) * PRIME;
        h = (h ^ (portClasses.length & 0xff)) * PRIME;
        for (byte b : portClasses) {
            h = (h ^ (b & 0xff)) * PRIME;
        }
        h = (h ^ ((transitions.length / 3) & 0xff)) * PRIME;
        for (byte b : transitions) {
            h = (h ^ (b & 0xff)) * PRIME;
        }
        return h == 0 ? 1 : h;
    }
}
