package org.fabricmanager.agent;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.PortRecord;

/**
 * The port counters of a simulated switch: deterministic counts, not a model of the traffic its tables carry.
 * Between two reads every port that is up with a neighbour counts packets at a fixed rate of its own (1 to 4 per
 * millisecond, by port number) and 256 bytes per packet in each direction; one port in sixteen (chosen by the
 * switch's GUID) also counts an error every 65,536 packets received and a drop every 131,072 sent, so that the
 * status page and the CLI have something to highlight. Errors can be injected into a port ({@link #injectErrors}: the
 * demo's {@code POST /api/v1/sim/links/errors}), received at a given rate while the port is up with a neighbour, on
 * top of the others. Ports that are down count nothing. The counts start at 0 with
 * each run of the agent (a new incarnation) and only increase within it, like a real switch's after a reboot.
 * Confined to the agent's event loop.
 */
final class SimulatedCounters implements PortCounterSource {
    private static final long BYTES_PER_PACKET = 256;
    private static final long PACKETS_PER_RX_ERROR = 65_536;
    private static final long PACKETS_PER_TX_DROP = 131_072;

    private final long guid;
    private final LongSupplier incarnation;
    private final Supplier<List<PortRecord>> ports;
    private final LongSupplier nanoClock;
    private final long[] values;
    /** Received errors injected a second, per port (from any thread). */
    private final AtomicLongArray injectedPerSecond;
    /** Injected errors counted so far, and the millisecond remainder of each (event loop). */
    private final long[] injected;
    private final long[] injectedRemainder;
    private long run;
    private long lastNanos;

    /**
     * @param incarnation the agent's current run (a change resets the counts)
     * @param ports       the agent's port records, port 1 first
     * @param nanoClock   the time, in nanoseconds
     */
    SimulatedCounters(long guid, int portCount, LongSupplier incarnation, Supplier<List<PortRecord>> ports,
                      LongSupplier nanoClock) {
        this.guid = guid;
        this.incarnation = incarnation;
        this.ports = ports;
        this.nanoClock = nanoClock;
        this.values = new long[portCount * PortCounters.FIELDS];
        this.injectedPerSecond = new AtomicLongArray(portCount + 1);
        this.injected = new long[portCount + 1];
        this.injectedRemainder = new long[portCount + 1];
    }

    /** Makes port {@code port} receive {@code perSecond} errors a second from now on (0 stops them); any thread. */
    void injectErrors(int port, long perSecond) {
        if (port < 1 || port >= injectedPerSecond.length() || perSecond < 0) {
            throw new IllegalArgumentException("port " + port + " of 1.." + (injectedPerSecond.length() - 1)
                    + ", " + perSecond + " errors a second: out of range");
        }
        injectedPerSecond.set(port, perSecond);
    }

    @Override
    public PortCounters read(int firstPort, int lastPort) {
        advance();
        long[] out = new long[(lastPort - firstPort + 1) * PortCounters.FIELDS];
        System.arraycopy(values, (firstPort - 1) * PortCounters.FIELDS, out, 0, out.length);
        return new PortCounters(firstPort, out);
    }

    /** Counts what every up port carried since the last read (or zero after a new run). */
    private void advance() {
        long now = nanoClock.getAsLong();
        long current = incarnation.getAsLong();
        if (current != run) {
            run = current;
            lastNanos = now;
            Arrays.fill(values, 0);
            Arrays.fill(injected, 0);
            return;
        }
        long ms = Math.max(0, (now - lastNanos) / 1_000_000);
        lastNanos += ms * 1_000_000;
        List<PortRecord> records = ports.get();
        for (int i = 0; i < records.size() && i < values.length / PortCounters.FIELDS; i++) {
            PortRecord r = records.get(i);
            if (!r.isUp() || r.peerGuid() == 0) {
                continue;
            }
            int port = r.port();
            long packets = ms * (1 + port % 4);
            add(port, PortCounter.RX_PACKETS, packets);
            add(port, PortCounter.TX_PACKETS, packets);
            add(port, PortCounter.RX_BYTES, packets * BYTES_PER_PACKET);
            add(port, PortCounter.TX_BYTES, packets * BYTES_PER_PACKET);
            long rate = port < injected.length ? injectedPerSecond.get(port) : 0;
            if (rate > 0) {
                long thousandths = injectedRemainder[port] + rate * ms;
                injected[port] += thousandths / 1_000;
                injectedRemainder[port] = thousandths % 1_000;
            }
            long own = troubled(port) ? get(port, PortCounter.RX_PACKETS) / PACKETS_PER_RX_ERROR : 0;
            set(port, PortCounter.RX_ERRORS, own + (port < injected.length ? injected[port] : 0));
            if (troubled(port)) {
                set(port, PortCounter.TX_DROPS, get(port, PortCounter.TX_PACKETS) / PACKETS_PER_TX_DROP);
            }
        }
    }

    /** Whether {@code port} is one of the switch's ports that count errors (one in sixteen, by GUID). */
    boolean troubled(int port) {
        long h = (guid ^ port * 0x9E3779B97F4A7C15L) * 0xBF58476D1CE4E5B9L;
        return (h >>> 60) == 0;
    }

    private long get(int port, PortCounter c) {
        return values[(port - 1) * PortCounters.FIELDS + c.ordinal()];
    }

    private void set(int port, PortCounter c, long v) {
        values[(port - 1) * PortCounters.FIELDS + c.ordinal()] = v;
    }

    private void add(int port, PortCounter c, long v) {
        values[(port - 1) * PortCounters.FIELDS + c.ordinal()] += v;
    }
}
