package org.fabricmanager.daemon.counters;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.math.BigInteger;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each switch's last port counters report, which of its values no port could have counted, and the fabric's totals
 * as monotonic counters. A report replaces the switch's previous one. Each value is judged against the switch's
 * previous report: its increase (its whole value after a decrease, a reset) must fit what a port can count between
 * the previous poll's request and this answer ({@link PortSpeedLimit}). An increase beyond that is flagged
 * implausible and added to nothing; the flag stays with the value until the counter goes down (the jump is still in
 * it). What the totals add is each plausible increase, so they only increase, whatever switches come, go or restart,
 * and they are exact (unsigned, beyond 2^64). A count that did not go down is taken as continuing across an agent's
 * restart too: a Linux agent's counters belong to the interfaces and outlive its runs. A value measured for the first
 * time (in a switch's first report to this daemon, or of a port not measured before, such as one OpenSM's
 * performance manager had not read yet) cannot be judged, since nothing says how long the port counted, and is added
 * whole; a value that was measured, then not, is judged from 0 when it comes back. Written by the southbound
 * threads that complete the polls, read by REST and scrapes: thread-safe.
 *
 * <p>Bounded: at most {@link #MAX_SWITCHES} switches (reports of more are dropped and counted), and only switches the
 * daemon polled, i.e. with an authenticated session. Metrics: the totals {@code fabric.port.packets},
 * {@code fabric.port.bytes}, {@code fabric.port.errors} and {@code fabric.port.drops}, tagged {@code direction}
 * (rx, tx: eight series), {@code fabric.switch.port.errors} tagged {@code switch} (one series per switch that
 * reported: errors of all its ports, rx and tx, the one per-switch meter, so that an alert names the switch) and
 * {@code fabric.port.implausible} (values flagged; a WARN line names the last, at most one a minute).
 */
public final class PortCounterStore {
    /** Most switches whose reports are kept (more than the largest fabric the daemon routes). */
    public static final int MAX_SWITCHES = 16_384;
    /** Least time between two WARN lines about implausible values. */
    static final long WARN_INTERVAL_MS = 60_000;
    private static final Logger LOG = LoggerFactory.getLogger(PortCounterStore.class);

    /** When a poll was asked and answered: monotonic times for the window its counts cover, wall time for its age. */
    public record Poll(long askedNanos, long answeredNanos, long answeredAtMillis) {
    }

    /**
     * A value no port could have counted: counter {@code counter} of port {@code port} rose by {@code increase}
     * (unsigned) in {@code windowMs}.
     */
    public record Implausible(int port, PortCounter counter, long increase, long windowMs) {
        /** Why it cannot be a count. */
        public String reason() {
            return PortSpeedLimit.reason(counter, increase, windowMs);
        }
    }

    /**
     * One switch's last report: the agent's run, when it arrived, the counters of ports 1..portCount, when its poll
     * was asked, its implausible values by their index in {@link PortCounters#values()}, and which values any report
     * of the switch measured so far (by the same index; never modified once stored).
     */
    public record Report(long guid, long incarnation, long receivedAtMillis, PortCounters counters, long askedNanos,
                         Map<Integer, Implausible> implausible, BitSet measured) {
        /** Whether value {@code port}, {@code c} is flagged. */
        public Implausible implausible(int port, PortCounter c) {
            return implausible.get((port - counters.firstPort()) * PortCounters.FIELDS + c.ordinal());
        }
    }

    private final Map<Long, Report> reports = new ConcurrentHashMap<>();
    private final Map<Long, Counter> switchErrors = new ConcurrentHashMap<>();
    /** The fabric's totals, indexed by {@link PortCounter#ordinal()}; guarded by itself. */
    private final UnsignedSum[] totals = new UnsignedSum[PortCounters.FIELDS];
    private final MeterRegistry meters;
    private final Counter dropped;
    private final Counter implausible;
    private final AtomicLong lastWarnMillis = new AtomicLong(Long.MIN_VALUE / 2);
    private final AtomicLong flaggedSinceWarn = new AtomicLong();

    public PortCounterStore(MeterRegistry meters) {
        this.meters = meters;
        for (PortCounter c : PortCounter.ALL) {
            totals[c.ordinal()] = new UnsignedSum();
            String name = c.name().endsWith("PACKETS") ? "fabric.port.packets" : c.name().endsWith("BYTES")
                    ? "fabric.port.bytes" : c.name().endsWith("ERRORS") ? "fabric.port.errors" : "fabric.port.drops";
            FunctionCounter.builder(name, this, s -> s.totalAsDouble(c))
                    .tag("direction", c.name().startsWith("RX") ? "rx" : "tx")
                    .baseUnit(name.endsWith("bytes") ? "bytes" : null)
                    .description("sum over the fabric's switch ports of what agents report (" + c.jsonName()
                            + "), increases only").register(meters);
        }
        this.dropped = Counter.builder("fabric.port.reports.dropped")
                .description("port counters reports not kept: more than " + MAX_SWITCHES + " switches").register(meters);
        this.implausible = Counter.builder("fabric.port.implausible")
                .description("port counter values that rose more than a port can count since the previous report, "
                        + "left out of the totals").register(meters);
    }

    /** Keeps {@code counters}: switch {@code guid}'s answer to {@code poll}, of its run {@code incarnation}. */
    public void put(long guid, long incarnation, PortCounters counters, Poll poll) {
        if (!reports.containsKey(guid) && reports.size() >= MAX_SWITCHES) {
            dropped.increment();
            return;
        }
        Report previous = reports.get(guid);
        long[] now = counters.values();
        long[] before = previous == null || previous.counters().firstPort() != counters.firstPort() ? null
                : previous.counters().values();
        long windowMs = previous == null ? 0 : (poll.answeredNanos() - previous.askedNanos()) / 1_000_000;
        Map<Integer, Implausible> flagged = new HashMap<>();
        BitSet measured = previous == null ? new BitSet(now.length) : (BitSet) previous.measured().clone();
        // summed here first: one locked add per counter and report, not one per port
        UnsignedSum[] increase = new UnsignedSum[PortCounters.FIELDS];
        for (int f = 0; f < increase.length; f++) {
            increase[f] = new UnsignedSum();
        }
        for (int i = 0; i < now.length; i++) {
            long v = now[i];
            if (v == PortCounters.UNAVAILABLE) {
                continue;
            }
            PortCounter c = PortCounter.ALL[i % PortCounters.FIELDS];
            boolean measuredBefore = measured.get(i);
            measured.set(i);
            if (!measuredBefore || before == null || i >= before.length) {
                // a first measurement (a port OpenSM's performance manager had not read yet, a first report): no
                // baseline, taken whole; a value measured before and gone meanwhile is judged from 0 below
                increase[c.ordinal()].add(v);
                continue;
            }
            long b = before[i] == PortCounters.UNAVAILABLE ? 0 : before[i];
            boolean reset = Long.compareUnsigned(v, b) < 0;
            long rise = reset ? v : v - b;
            if (PortSpeedLimit.exceeds(c, rise, windowMs)) {
                flagged.put(i, new Implausible(i / PortCounters.FIELDS + counters.firstPort(), c, rise, windowMs));
                continue;
            }
            Implausible earlier = previous.implausible().get(i);
            if (earlier != null && !reset && before[i] != PortCounters.UNAVAILABLE) {
                flagged.put(i, earlier); // the jump is still in the value
            }
            increase[c.ordinal()].add(rise);
        }
        reports.put(guid, new Report(guid, incarnation, poll.answeredAtMillis(), counters, poll.askedNanos(),
                flagged.isEmpty() ? Map.of() : Map.copyOf(flagged), measured));
        synchronized (totals) {
            for (int f = 0; f < increase.length; f++) {
                totals[f].add(increase[f]);
            }
        }
        UnsignedSum errors = new UnsignedSum();
        errors.add(increase[PortCounter.RX_ERRORS.ordinal()]);
        errors.add(increase[PortCounter.TX_ERRORS.ordinal()]);
        Counter perSwitch = switchErrors.computeIfAbsent(guid, g -> Counter.builder("fabric.switch.port.errors")
                .tag("switch", Guids.format(g))
                .description("rx and tx errors over the switch's ports, as its agent reports them; increases only")
                .register(meters));
        perSwitch.increment(errors.doubleValue());
        warnOfNew(guid, previous, flagged, poll.answeredAtMillis());
    }

    /** Counts the values flagged by this report (not those carried over) and names the last in a rate-limited WARN. */
    private void warnOfNew(long guid, Report previous, Map<Integer, Implausible> flagged, long nowMillis) {
        if (flagged.isEmpty()) {
            return;
        }
        Implausible last = null;
        long fresh = 0;
        for (Map.Entry<Integer, Implausible> e : flagged.entrySet()) {
            if (previous.implausible().get(e.getKey()) != e.getValue()) {
                fresh++;
                last = e.getValue();
            }
        }
        if (fresh == 0) {
            return;
        }
        implausible.increment(fresh);
        long since = flaggedSinceWarn.addAndGet(fresh);
        long lastLine = lastWarnMillis.get();
        if (nowMillis - lastLine >= WARN_INTERVAL_MS && lastWarnMillis.compareAndSet(lastLine, nowMillis)) {
            flaggedSinceWarn.addAndGet(-since);
            LOG.warn("port counters: {} value(s) no port can count since the last such line; the last: switch {} "
                            + "port {} {}: {} (at most one such line a minute; counted in {})",
                    since, Guids.format(guid), last.port(), last.counter().jsonName(), last.reason(),
                    "fabric_port_implausible_total");
        }
    }

    /** Switch {@code guid}'s last report, or {@code null}. */
    public Report get(long guid) {
        return reports.get(guid);
    }

    /** Switches with a report. */
    public int size() {
        return reports.size();
    }

    /** The fabric's total of counter {@code c} since the daemon started, exact. */
    public BigInteger total(PortCounter c) {
        synchronized (totals) {
            return totals[c.ordinal()].value();
        }
    }

    private double totalAsDouble(PortCounter c) {
        synchronized (totals) {
            return totals[c.ordinal()].doubleValue();
        }
    }
}
