package org.fabricmanager.routing.dmodc.preprocess;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight costs at a time ("SIMD within a register"): a {@code long} read from a cost row holds the
 * costs of eight consecutive leaves, one per byte, lowest address in the lowest byte. Every
 * operation assumes each byte is in {@code [0, 127]} (costs are at most 126 and infinity is
 * {@link CostTable#INFINITE} = 127), so per-byte arithmetic never carries into the next byte.
 */
public final class ByteLanes {
    /** Reads and writes a {@code long} at any byte offset of a {@code byte[]} (misaligned is fine for get/set). */
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** The high bit of every byte. */
    public static final long HIGH = 0x8080808080808080L;
    /** One in every byte. */
    public static final long ONES = 0x0101010101010101L;

    private ByteLanes() {
    }

    public static long get(byte[] a, int offset) {
        return (long) LONGS.get(a, offset);
    }

    public static void set(byte[] a, int offset, long v) {
        LONGS.set(a, offset, v);
    }

    /** Per byte: the smaller of {@code a} and {@code b}. */
    static long min(long a, long b) {
        long aAtLeastB = (((a | HIGH) - b) & HIGH) >>> 7; // 1 in each byte where a >= b
        long mask = aAtLeastB * 0xFF;
        return (b & mask) | (a & ~mask);
    }

    /** Per byte: plus one, except that infinity (127) stays infinity. */
    static long incrementSaturating(long a) {
        long t = a + ONES;
        return t - ((t & HIGH) >>> 7);
    }

    /** Per byte: the high bit set where {@code b < a}, every other bit clear. */
    public static long lessThan(long b, long a) {
        return ((a | HIGH) - b - ONES) & HIGH;
    }
}
