package org.fabricmanager.daemon;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;

/**
 * The fabric's health as gauges an alert can compare without knowing the fabric's size: switches expected, dead
 * (declared by the failure detector) and disconnected (their session ended, not back), links down (links of the first
 * routed fabric with an end down, quarantined or gone), ports quarantined, switches and cables drained, tables
 * pending and failing, and end nodes no route reaches. The counts
 * are taken on the control thread every {@value #REFRESH_MS} ms (a link count reads every link once) and read at scrape
 * time from volatile fields.
 */
final class FabricGauges {
    /** Deferred-event tag of the refresh. */
    static final String REFRESH = "fabric-gauges";
    /** How often the counts are taken. */
    static final long REFRESH_MS = 5_000;

    private final SwitchRegistry registry;
    private final LftPusher pusher;
    private final FaultManager faults;
    private final ControlLoop queue;
    private volatile int dead;
    private volatile int disconnected;
    private volatile int linksDown;
    private volatile int quarantined;
    private volatile int pending;
    private volatile int failing;
    private final Drains drains;
    private volatile int drainedSwitches;
    private volatile int drainedLinks;
    private volatile int nodesUnreachable;

    /** @param expected the expected shape's switch count, or 0 without one */
    FabricGauges(FabricCoordinator.Managers m, Drains drains, ControlLoop queue, MeterRegistry meters, int expected) {
        this.drains = drains;
        this.registry = m.registry();
        this.pusher = m.pusher();
        this.faults = m.faults();
        this.queue = queue;
        Gauge.builder("fabric.switches.connected", registry, SwitchRegistry::admittedCountVolatile)
                .description("switches with a session, admitted into the fabric").register(meters);
        Gauge.builder("fabric.switches.expected", () -> expected)
                .description("switches of the expected fabric (fabric.expectedPgft or expectedHdft); 0 without one")
                .register(meters);
        Gauge.builder("fabric.switches.dead", () -> dead)
                .description("switches the failure detector declared dead and that have not rejoined").register(meters);
        Gauge.builder("fabric.switches.disconnected", () -> disconnected)
                .description("admitted switches whose session ended and that have not connected again").register(meters);
        Gauge.builder("fabric.links.down", () -> linksDown)
                .description("links of the first routed fabric with an end down, quarantined or without its switch")
                .register(meters);
        Gauge.builder("fabric.ports.quarantined", () -> quarantined)
                .description("ports kept down by flap quarantine").register(meters);
        Gauge.builder("fabric.drained.switches", () -> drainedSwitches)
                .description("switches an operator drained (routed around until undrained)").register(meters);
        Gauge.builder("fabric.drained.links", () -> drainedLinks)
                .description("cables an operator drained (routed around until undrained)").register(meters);
        Gauge.builder("fabric.tables.pending", () -> pending)
                .description("connected switches that do not hold the tables in force yet").register(meters);
        Gauge.builder("fabric.tables.failing", () -> failing)
                .description("connected switches whose pushes failed more than push.retries times in a row")
                .register(meters);
        Gauge.builder("fabric.nodes.unreachable", () -> nodesUnreachable)
                .description("end nodes no route reaches any more (leaf dead, node link down, leaf cut off)")
                .register(meters);
    }

    /** Takes the counts now and again every {@value #REFRESH_MS} ms (control thread). */
    void refresh() {
        dead = faults.failedSwitches().size();
        disconnected = registry.departed().size();
        quarantined = faults.flaps().quarantined().size();
        pending = pusher.pendingCount();
        failing = pusher.failingCount();
        drainedSwitches = drains.switchCount();
        drainedLinks = drains.linkCount();
        nodesUnreachable = faults.unreachable().count();
        linksDown = linksDown(faults.baseline());
        queue.scheduleDeferred(REFRESH, REFRESH_MS, this::refresh);
    }

    private int linksDown(Fabric baseline) {
        if (baseline == null) {
            return 0;
        }
        int down = 0;
        for (Link l : baseline.links()) {
            if (baseline.isSwitch(l.a()) && !up(l.a(), l.aPort()) || baseline.isSwitch(l.b()) && !up(l.b(), l.bPort())) {
                down++;
            }
        }
        return down;
    }

    private boolean up(long guid, int port) {
        ManagedSwitch ms = registry.get(guid);
        if (ms == null || !ms.admitted() || port > ms.ports().portCount()) {
            return false;
        }
        PortRecord r = ms.ports().port(port);
        return r.isUp() && !faults.flaps().isQuarantined(guid, port);
    }
}
