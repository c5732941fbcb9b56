package org.fabricmanager.routing.dmodc.home;

/**
 * Which set bit of a word is the {@code p}-th: the refinement picks a slot this way for every moved entry, millions
 * of times on a large fabric, so it is done without a loop or a data-dependent branch (byte sums by broadword
 * arithmetic, then a table for the byte).
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
}
