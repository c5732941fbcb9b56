package org.fabricmanager.routing.dmodc.home;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Word tricks of the refinement's inner loops, each run millions of times on a large fabric: which set bit of a word
 * is the {@code p}-th (without a loop or a data-dependent branch: byte sums by broadword arithmetic, then a table for
 * the byte); a remainder by a small divisor by multiplication, as a division costs tens of cycles; and a short run
 * of one byte value written a word at a time.
 */
final class Bits {
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    /** Per byte value {@code b} and {@code k < 8}: the position of the {@code k}-th set bit of {@code b}. */
    private static final byte[] IN_BYTE = new byte[256 * 8];

    static {
        for (int b = 0; b < 256; b++) {
            int k = 0;
            for (int i = 0; i < 8; i++) {
                if ((b & 1 << i) != 0) {
                    IN_BYTE[b * 8 + k++] = (byte) i;
                }
            }
        }
    }

    /** Per divisor {@code c <= 64}, {@code ⌈2^64 / c⌉} (Lemire, Kaser and Kurz, "Faster remainder by direct
     * computation"). */
    private static final long[] MOD_MAGIC = new long[Long.SIZE + 1];
    /** Per byte value {@code b}: a word with {@code 0xFF} in byte {@code i} where bit {@code i} of {@code b} is set. */
    private static final long[] BYTE_MASKS = new long[256];
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    static {
        for (int c = 1; c <= Long.SIZE; c++) {
            MOD_MAGIC[c] = magic(c);
        }
        for (int b = 0; b < 256; b++) {
            for (int i = 0; i < Byte.SIZE; i++) {
                BYTE_MASKS[b] |= (b >>> i & 1L) * (0xFFL << (i * Byte.SIZE));
            }
        }
    }

    private Bits() {
    }

    /** The position of the {@code p}-th set bit of {@code word}, counting from 0 at the lowest; {@code p < bitCount}. */
    static int select(long word, int p) {
        long sums = word - ((word >>> 1) & 0x5555555555555555L);
        sums = (sums & 0x3333333333333333L) + ((sums >>> 2) & 0x3333333333333333L);
        sums = ((sums + (sums >>> 4)) & 0x0F0F0F0F0F0F0F0FL) * ONES; // byte i: set bits in bytes 0..i
        int shift = Long.bitCount((((p * ONES) | HIGHS) - sums) & HIGHS) << 3; // 8 × bytes whose sum is ≤ p
        int before = (int) ((sums << 8) >>> shift) & 0xFF;
        return shift + IN_BYTE[(int) ((word >>> shift) & 0xFF) << 3 | (p - before)];
    }

    /** {@code a mod c} for {@code 0 <= a < 2^32} and {@code 1 <= c <= 64}. */
    static int mod(long a, int c) {
        return mod(a, c, MOD_MAGIC[c]);
    }

    /** {@code a mod c} for {@code 0 <= a < 2^32} and {@code 1 <= c < 2^31}, {@code magic} being {@link #magic}{@code (c)}. */
    static int mod(long a, int c, long magic) {
        long low = magic * a;
        return (int) (Math.multiplyHigh(low, c) + ((low >> 63) & c)); // the high word of low × c, unsigned
    }

    /** {@code ⌈2^64 / c⌉} (0 for 1), for {@link #mod(long, int, long)}. */
    static long magic(int c) {
        return Long.divideUnsigned(-1L, c) + 1;
    }

    /** {@code ⌊a / c⌋} for {@code 0 <= a < 2^32} and {@code 1 <= c <= 64}. */
    static long div(long a, int c) {
        long magic = MOD_MAGIC[c];
        return c == 1 ? a : Math.multiplyHigh(magic, a) + ((magic >> 63) & a); // the high word, unsigned
    }

    /** {@code Arrays.fill(a, from, to, value)}, eight bytes at a time where it can. */
    static void fill(byte[] a, int from, int to, byte value) {
        int i = from;
        if (to - from >= Long.BYTES) {
            long word = (value & 0xFFL) * 0x0101010101010101L;
            for (; i + Long.BYTES <= to; i += Long.BYTES) {
                LONGS.set(a, i, word);
            }
            if (i < to) {
                LONGS.set(a, to - Long.BYTES, word); // the tail, overlapping bytes already written
                return;
            }
        }
        for (; i < to; i++) {
            a[i] = value;
        }
    }

    /** Bits {@code [from, from + count)} of {@code bits} (a bit per index) as a word's low bits; {@code count <= 64}. */
    static long range(long[] bits, int from, int count) {
        int w = from >>> 6;
        int shift = from & 63;
        long chunk = bits[w] >>> shift;
        if (shift != 0 && shift + count > Long.SIZE) {
            chunk |= bits[w + 1] << (Long.SIZE - shift);
        }
        return count == Long.SIZE ? chunk : chunk & (1L << count) - 1;
    }

    /**
     * Entries {@code [from, from + count)} of {@code a} ({@code count} a multiple of 8): {@code port} where
     * {@code chunk}'s bit is set, else {@code fill} ({@code fill < 0}: as they are), eight at a time.
     */
    static void blend(byte[] a, int from, int count, long chunk, int port, int fill) {
        long ports = (port & 0xFFL) * 0x0101010101010101L;
        long fills = (fill & 0xFFL) * 0x0101010101010101L;
        for (int i = 0; i < count; i += Long.BYTES) {
            long select = BYTE_MASKS[(int) (chunk >>> i) & 0xFF];
            long old = fill < 0 ? (long) LONGS.get(a, from + i) : fills;
            LONGS.set(a, from + i, old & ~select | ports & select);
        }
    }
}
