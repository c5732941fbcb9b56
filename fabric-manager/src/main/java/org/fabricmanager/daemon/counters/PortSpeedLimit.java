package org.fabricmanager.daemon.counters;

import java.util.Locale;
import org.fabricmanager.southbound.PortCounter;

/**
 * The most a switch port can count in a given time, which tells a count from a lie: the protocol carries no port
 * speed, so the bound is a port faster than any made, {@value #MAX_GBPS} Gb/s in each direction (the fastest
 * ports are 1.6 Tb/s Ethernet and 800 Gb/s InfiniBand XDR). Bytes are bounded by that rate, packets, errors and
 * drops by one per {@value #MIN_PACKET_BYTES} bytes of it (no packet on any link is that short). A real counter
 * never comes near the bound; an agent reporting 2^63 ten seconds after 0 is far beyond it, however the polls
 * drift.
 */
public final class PortSpeedLimit {
    /** The fastest port rate allowed for, in Gb/s. */
    static final long MAX_GBPS = 3_200;
    /** The shortest packet allowed for, in bytes. */
    static final long MIN_PACKET_BYTES = 16;
    /** Bytes a second at {@link #MAX_GBPS}. */
    static final double MAX_BYTES_PER_SECOND = MAX_GBPS * 1e9 / 8;
    /**
     * Added to every window: an agent may answer from a read up to a second older than the request (a Linux agent
     * shares one read between the requests of a poll), so its counts may cover a little more than the window.
     */
    static final long SLACK_MS = 1_000;

    private PortSpeedLimit() {
    }

    /** The most counter {@code c} of one port can rise in {@code windowMs}, slack included. */
    static double limit(PortCounter c, long windowMs) {
        double seconds = (Math.max(0, windowMs) + SLACK_MS) / 1000.0;
        double bytes = MAX_BYTES_PER_SECOND * seconds;
        return c == PortCounter.RX_BYTES || c == PortCounter.TX_BYTES ? bytes : bytes / MIN_PACKET_BYTES;
    }

    /** Whether {@code increase} (unsigned) is more than counter {@code c} of a port can rise in {@code windowMs}. */
    public static boolean exceeds(PortCounter c, long increase, long windowMs) {
        double value = increase >= 0 ? increase : UnsignedSum.unsigned(increase).doubleValue();
        return value > limit(c, windowMs);
    }

    /** Why {@code increase} of {@code c} in {@code windowMs} cannot be a count, for REST and the CLI. */
    static String reason(PortCounter c, long increase, long windowMs) {
        return String.format(Locale.ROOT, "rose by %s in %.1f s since the previous report, more than the %,.0f a "
                        + "%,d Gb/s port counts in that time and a second more: not a count, left out of the totals "
                        + "and metrics", Long.toUnsignedString(increase), Math.max(0, windowMs) / 1000.0,
                limit(c, windowMs), MAX_GBPS);
    }
}
