package org.fabricmanager.daemon.counters;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.topology.Guids;

/**
 * Each switch's last port counters report, and the fabric's totals as monotonic counters. A report replaces the
 * switch's previous one; what it adds to the totals is its increase over that previous one, or its whole value after
 * the agent restarted (another incarnation) or a counter went down (an interface re-created on a Linux switch): so the
 * exported totals only increase, whatever switches come, go or restart. Written by the southbound threads that
 * complete the polls, read by REST and scrapes: thread-safe.
 *
 * <p>Bounded: at most {@link #MAX_SWITCHES} switches (reports of more are dropped and counted), and only switches the
 * daemon polled, i.e. with an authenticated session. Metrics: the totals {@code fabric.port.packets},
 * {@code fabric.port.bytes}, {@code fabric.port.errors} and {@code fabric.port.drops}, tagged {@code direction}
 * (rx, tx: eight series), and {@code fabric.switch.port.errors} tagged {@code switch} (one series per switch that
 * reported: errors of all its ports, rx and tx, the one per-switch meter, so that an alert names the switch).
 */
public final class PortCounterStore {
    /** Most switches whose reports are kept (more than the largest fabric the daemon routes). */
    public static final int MAX_SWITCHES = 16_384;

    /** One switch's last report: the agent's run, when it arrived and the counters of ports 1..portCount. */
    public record Report(long guid, long incarnation, long receivedAtMillis, PortCounters counters) {
    }

    private final Map<Long, Report> reports = new ConcurrentHashMap<>();
    private final Map<Long, Counter> switchErrors = new ConcurrentHashMap<>();
    /** The fabric's totals, indexed by {@link PortCounter#ordinal()}. */
    private final AtomicLongArray totals = new AtomicLongArray(PortCounters.FIELDS);
    private final MeterRegistry meters;
    private final Counter dropped;

    public PortCounterStore(MeterRegistry meters) {
        this.meters = meters;
        for (PortCounter c : PortCounter.ALL) {
            String name = c.name().endsWith("PACKETS") ? "fabric.port.packets" : c.name().endsWith("BYTES")
                    ? "fabric.port.bytes" : c.name().endsWith("ERRORS") ? "fabric.port.errors" : "fabric.port.drops";
            FunctionCounter.builder(name, totals, t -> t.get(c.ordinal()))
                    .tag("direction", c.name().startsWith("RX") ? "rx" : "tx")
                    .baseUnit(name.endsWith("bytes") ? "bytes" : null)
                    .description("sum over the fabric's switch ports of what agents report (" + c.jsonName()
                            + "), increases only").register(meters);
        }
        this.dropped = Counter.builder("fabric.port.reports.dropped")
                .description("port counters reports not kept: more than " + MAX_SWITCHES + " switches").register(meters);
    }

    /** Keeps {@code counters}, switch {@code guid}'s report of its run {@code incarnation} at {@code nowMillis}. */
    public void put(long guid, long incarnation, PortCounters counters, long nowMillis) {
        if (!reports.containsKey(guid) && reports.size() >= MAX_SWITCHES) {
            dropped.increment();
            return;
        }
        Report next = new Report(guid, incarnation, nowMillis, counters);
        Report previous = reports.put(guid, next);
        long[] now = counters.values();
        long[] before = previous != null && previous.incarnation() == incarnation
                && previous.counters().portCount() == counters.portCount() ? previous.counters().values() : null;
        // summed here first: one atomic add per counter and report, not one per port
        long[] increase = new long[PortCounters.FIELDS];
        for (int i = 0; i < now.length; i++) {
            long v = now[i];
            if (v == PortCounters.UNAVAILABLE) {
                continue;
            }
            long b = before == null || before[i] == PortCounters.UNAVAILABLE ? 0 : before[i];
            increase[i % PortCounters.FIELDS] += Long.compareUnsigned(v, b) >= 0 ? v - b : v;
        }
        for (int f = 0; f < increase.length; f++) {
            totals.addAndGet(f, increase[f]);
        }
        long errors = increase[PortCounter.RX_ERRORS.ordinal()] + increase[PortCounter.TX_ERRORS.ordinal()];
        Counter perSwitch = switchErrors.computeIfAbsent(guid, g -> Counter.builder("fabric.switch.port.errors")
                .tag("switch", Guids.format(g))
                .description("rx and tx errors over the switch's ports, as its agent reports them; increases only")
                .register(meters));
        perSwitch.increment(errors);
    }

    /** Switch {@code guid}'s last report, or {@code null}. */
    public Report get(long guid) {
        return reports.get(guid);
    }

    /** Switches with a report. */
    public int size() {
        return reports.size();
    }

    /** The fabric's total of counter {@code c} since the daemon started. */
    public long total(PortCounter c) {
        return totals.get(c.ordinal());
    }
}
