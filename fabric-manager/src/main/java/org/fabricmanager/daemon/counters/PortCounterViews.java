package org.fabricmanager.daemon.counters;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.PortCountersView;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Guids;

/**
 * Builds {@link PortCountersView}s from the registry (control thread) and the {@link PortCounterStore}: counts as
 * unsigned numbers (a {@code long} above 2^63 read as signed would be negative, so JSON gets exact integers), totals
 * summed exactly without the values the store flagged implausible.
 */
public final class PortCounterViews {
    private final SwitchRegistry registry;
    private final PortCounterStore store;
    private final LongSupplier clock;
    private final long intervalMs;

    public PortCounterViews(SwitchRegistry registry, PortCounterStore store, LongSupplier clock) {
        this(registry, store, clock, PortCounterPoller.INTERVAL_MS);
    }

    /** @param intervalMs how often each switch is asked */
    public PortCounterViews(SwitchRegistry registry, PortCounterStore store, LongSupplier clock, long intervalMs) {
        this.registry = registry;
        this.store = store;
        this.clock = clock;
        this.intervalMs = intervalMs;
    }

    /** Switch {@code guid}'s counters, or {@code null} when it has neither a session nor a report (control thread). */
    public PortCountersView view(long guid) {
        ManagedSwitch ms = registry.get(guid);
        PortCounterStore.Report report = store.get(guid);
        if (ms == null && report == null) {
            return null;
        }
        boolean reporting = ms != null && (ms.hello().features() & Protocol.FEATURE_PORT_COUNTERS) != 0;
        Map<String, BigInteger> totals = new LinkedHashMap<>();
        List<PortCountersView.Port> ports = new ArrayList<>();
        if (report != null) {
            PortCounters c = report.counters();
            for (PortCounter k : PortCounter.ALL) {
                UnsignedSum sum = new UnsignedSum();
                for (int p = c.firstPort(); p <= c.lastPort(); p++) {
                    long v = c.get(p, k);
                    if (v != PortCounters.UNAVAILABLE && report.implausible(p, k) == null) {
                        sum.add(v);
                    }
                }
                totals.put(k.jsonName(), sum.value());
            }
            for (int p = c.firstPort(); p <= c.lastPort(); p++) {
                ports.add(port(report, p));
            }
        }
        return new PortCountersView(Guids.format(guid), ms != null ? ms.name() : null, reporting,
                report != null ? report.incarnation() : null, report != null ? report.receivedAtMillis() : null,
                report != null ? Math.max(0, clock.getAsLong() - report.receivedAtMillis()) : null,
                intervalMs, totals, ports);
    }

    private static PortCountersView.Port port(PortCounterStore.Report report, int p) {
        PortCounters c = report.counters();
        Map<String, String> implausible = null;
        for (PortCounter k : PortCounter.ALL) {
            PortCounterStore.Implausible i = report.implausible(p, k);
            if (i != null) {
                implausible = implausible == null ? new LinkedHashMap<>() : implausible;
                implausible.put(k.jsonName(), i.reason());
            }
        }
        return new PortCountersView.Port(p, v(c, p, PortCounter.RX_PACKETS), v(c, p, PortCounter.TX_PACKETS),
                v(c, p, PortCounter.RX_BYTES), v(c, p, PortCounter.TX_BYTES), v(c, p, PortCounter.RX_ERRORS),
                v(c, p, PortCounter.TX_ERRORS), v(c, p, PortCounter.RX_DROPS), v(c, p, PortCounter.TX_DROPS),
                implausible);
    }

    /** A counter for JSON, unsigned: {@code null} when not measured. */
    private static BigInteger v(PortCounters c, int port, PortCounter k) {
        long v = c.get(port, k);
        return v == PortCounters.UNAVAILABLE ? null : UnsignedSum.unsigned(v);
    }
}
