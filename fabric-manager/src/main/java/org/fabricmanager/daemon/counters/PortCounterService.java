package org.fabricmanager.daemon.counters;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.registry.SwitchRegistry;

/** The port counters' parts as the daemon wires them: the store (and its meters), the poller and the views. */
public final class PortCounterService {
    private final PortCounterStore store;
    private final PortCounterPoller poller;
    private final PortCounterViews views;

    /**
     * @param clock     wall-clock time in ms
     * @param converged whether the daemon has converged (control thread): the polls start at its first convergence
     * @param intervalMs how often each switch is asked (whole seconds)
     */
    public PortCounterService(SwitchRegistry registry, ControlLoop queue, MeterRegistry meters, LongSupplier clock,
                              BooleanSupplier converged, long intervalMs) {
        this.store = new PortCounterStore(meters);
        this.poller = new PortCounterPoller(registry, queue, store, clock, System::nanoTime, converged, intervalMs);
        this.views = new PortCounterViews(registry, store, clock, intervalMs);
    }

    public PortCounterStore store() {
        return store;
    }

    public PortCounterPoller poller() {
        return poller;
    }

    public PortCounterViews views() {
        return views;
    }
}
