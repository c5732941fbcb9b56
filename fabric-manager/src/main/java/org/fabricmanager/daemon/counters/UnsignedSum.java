package org.fabricmanager.daemon.counters;

import java.math.BigInteger;

/**
 * An exact sum of unsigned 64-bit counts, kept in 128 bits: a switch's 254 ports near 2^64 each sum beyond what a
 * {@code long} holds (a signed sum of 8 ports at 2^64 - 2 wraps to -16), and 128 bits hold more than 2^63 such counts.
 * Not thread-safe: one per sum being made.
 */
final class UnsignedSum {
    private long high;
    private long low;

    /** Adds {@code count}, read as unsigned. */
    void add(long count) {
        long sum = low + count;
        if (Long.compareUnsigned(sum, low) < 0) {
            high++;
        }
        low = sum;
    }

    /** Adds another sum. */
    void add(UnsignedSum other) {
        add(other.low);
        high += other.high;
    }

    /** The sum, never negative. */
    BigInteger value() {
        return BigInteger.valueOf(high).shiftLeft(Long.SIZE).add(unsigned(low));
    }

    /** The sum as a double (rounded: what a Prometheus counter holds). */
    double doubleValue() {
        return high == 0 && low >= 0 ? low : value().doubleValue();
    }

    /** {@code count} read as unsigned. */
    static BigInteger unsigned(long count) {
        return count >= 0 ? BigInteger.valueOf(count) : new BigInteger(Long.toUnsignedString(count));
    }
}
