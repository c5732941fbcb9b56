package org.fabricmanager.daemon.counters;

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

/** Builds {@link PortCountersView}s from the registry (control thread) and the {@link PortCounterStore}. */
public final class PortCounterViews {
    private final SwitchRegistry registry;
    private final PortCounterStore store;
    private final LongSupplier clock;

    public PortCounterViews(SwitchRegistry registry, PortCounterStore store, LongSupplier clock) {
        this.registry = registry;
        this.store = store;
        this.clock = clock;
    }

    /** Switch {@code guid}'s counters, or {@code null} when it has neither a session nor a report (control thread). */
    public PortCountersView view(long guid) {
        ManagedSwitch ms = registry.get(guid);
        PortCounterStore.Report report = store.get(guid);
        if (ms == null && report == null) {
            return null;
        }
        boolean reporting = ms != null && (ms.hello().features() & Protocol.FEATURE_PORT_COUNTERS) != 0;
        Map<String, Long> totals = new LinkedHashMap<>();
        List<PortCountersView.Port> ports = new ArrayList<>();
        if (report != null) {
            PortCounters c = report.counters();
            for (PortCounter k : PortCounter.ALL) {
                long sum = 0;
                for (int p = c.firstPort(); p <= c.lastPort(); p++) {
                    long v = c.get(p, k);
                    sum += v == PortCounters.UNAVAILABLE ? 0 : v;
                }
                totals.put(k.jsonName(), sum);
            }
            for (int p = c.firstPort(); p <= c.lastPort(); p++) {
                ports.add(new PortCountersView.Port(p, v(c, p, PortCounter.RX_PACKETS), v(c, p, PortCounter.TX_PACKETS),
                        v(c, p, PortCounter.RX_BYTES), v(c, p, PortCounter.TX_BYTES), v(c, p, PortCounter.RX_ERRORS),
                        v(c, p, PortCounter.TX_ERRORS), v(c, p, PortCounter.RX_DROPS), v(c, p, PortCounter.TX_DROPS)));
            }
        }
        return new PortCountersView(Guids.format(guid), ms != null ? ms.name() : null, reporting,
                report != null ? report.incarnation() : null, report != null ? report.receivedAtMillis() : null,
                report != null ? Math.max(0, clock.getAsLong() - report.receivedAtMillis()) : null,
                PortCounterPoller.INTERVAL_MS, totals, ports);
    }

    /** A counter for JSON: {@code null} when not measured (or beyond what a JSON reader's long holds). */
    private static Long v(PortCounters c, int port, PortCounter k) {
        long v = c.get(port, k);
        return v < 0 ? null : v;
    }
}
