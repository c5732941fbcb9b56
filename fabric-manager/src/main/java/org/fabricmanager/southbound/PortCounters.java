package org.fabricmanager.southbound;

import java.util.Arrays;

/**
 * The counters of consecutive ports {@code firstPort .. firstPort + portCount() - 1} of one switch, as one
 * PORT_COUNTERS carries them: {@link PortCounter#ALL} values per port, port after port, in one primitive array
 * (a 64-port switch is 512 longs, not 64 objects). Values are unsigned; {@link #UNAVAILABLE} marks a counter the
 * switch does not measure. Immutable: the array is copied in and out.
 *
 * @param firstPort the first port, 1..{@link Protocol#MAX_PORTS}
 * @param values    {@link #FIELDS} values per port; at least one port, none beyond {@link Protocol#MAX_PORTS}
 */
public record PortCounters(int firstPort, long[] values) {
    /** Values per port in this protocol version. */
    public static final int FIELDS = PortCounter.ALL.length;
    /** A counter the switch does not measure (all ones on the wire). */
    public static final long UNAVAILABLE = -1L;
    /** Most values per port a PORT_COUNTERS may carry: later versions may append counters, read and ignored. */
    public static final int MAX_FIELDS = 32;
    /** Bytes of the PORT_COUNTERS payload before the values: firstPort, count, fields. */
    public static final int PAYLOAD_HEADER_BYTES = 3;

    public PortCounters {
        if (values.length == 0 || values.length % FIELDS != 0) {
            throw new IllegalArgumentException(values.length + " values: not a positive multiple of " + FIELDS);
        }
        int count = values.length / FIELDS;
        if (firstPort < 1 || firstPort + count - 1 > Protocol.MAX_PORTS) {
            throw new IllegalArgumentException("ports " + firstPort + ".." + (firstPort + count - 1) + " outside 1.."
                    + Protocol.MAX_PORTS);
        }
        values = values.clone();
    }

    /** The values, a copy. */
    @Override
    public long[] values() {
        return values.clone();
    }

    /** How many ports these are. */
    public int portCount() {
        return values.length / FIELDS;
    }

    /** The last port. */
    public int lastPort() {
        return firstPort + portCount() - 1;
    }

    /** Counter {@code c} of port {@code port} (one of these ports). */
    public long get(int port, PortCounter c) {
        if (port < firstPort || port > lastPort()) {
            throw new IllegalArgumentException("port " + port + " outside " + firstPort + ".." + lastPort());
        }
        return values[(port - firstPort) * FIELDS + c.ordinal()];
    }

    /** Copies these values into {@code target}, which holds ports 1.. at {@link #FIELDS} values each. */
    public void copyInto(long[] target) {
        System.arraycopy(values, 0, target, (firstPort - 1) * FIELDS, values.length);
    }

    /**
     * Most ports one PORT_COUNTERS may carry to a receiver whose frame limit is {@code maxFrame} (at least 15 at the
     * smallest limit, 1,024 bytes; every port at the default, 65,536).
     */
    public static int portsPerFrame(int maxFrame) {
        int bytes = maxFrame - Protocol.HEADER_BYTES - PAYLOAD_HEADER_BYTES;
        return Math.max(1, Math.min(Protocol.MAX_PORTS, bytes / (FIELDS * Long.BYTES)));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PortCounters p && p.firstPort == firstPort && Arrays.equals(p.values, values);
    }

    @Override
    public int hashCode() {
        return firstPort * 31 + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return "PortCounters[ports " + firstPort + ".." + lastPort() + "]";
    }
}
