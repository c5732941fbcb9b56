package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flap quarantine as the daemon applies it: judges each port transition with {@link FlapGuard}, records the
 * quarantines and releases as milestones, masks quarantined ports in the reports routing sees, releases a port once it
 * has stayed up for the quarantine time (a deferred event, not a sleep), and keeps the quarantine in its
 * {@link QuarantineStore} so that the next manager (a standby taking over, a restart) starts with it. Runs on the
 * control thread.
 */
final class QuarantineKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(QuarantineKeeper.class);

    private DaemonConfig.Faults settings; // re-tuned by a reload (control thread)
    private final FaultDependencies deps;
    private final ReactionTracker reactions;
    private final FlapGuard flaps;
    /** Where the quarantine is kept for the next manager, {@code null}: nowhere (tests). */
    private final QuarantineStore store;
    /** Whether the daemon is stopping: from then on, lost sessions are its own doing (FaultManager#stopping). */
    private final BooleanSupplier stopping;

    /**
     * A keeper with the ports {@code store} holds quarantined from the start; every quarantine and release is written
     * to it ({@code store} {@code null}: kept nowhere).
     *
     * @throws StoreException when the stored quarantine is damaged
     */
    QuarantineKeeper(DaemonConfig.Faults settings, FaultDependencies deps, ReactionTracker reactions,
                     QuarantineStore store, BooleanSupplier stopping) {
        this.stopping = stopping;
        this.settings = settings;
        this.deps = deps;
        this.reactions = reactions;
        this.store = store;
        this.flaps = new FlapGuard(settings.flapThreshold(), settings.flapWindowMs(), settings.quarantineMs());
        if (store != null) {
            restore(store.load());
        }
    }

    /**
     * Quarantines the ports an earlier manager quarantined (a standby taking over, a restart): without this a
     * flapping link would be routed back in, and pushed to the switches, until it flapped again. Each is
     * released once it has stayed up for the quarantine time as this manager sees it.
     */
    private void restore(List<QuarantineStore.Entry> stored) {
        for (QuarantineStore.Entry e : stored) {
            flaps.restore(e.guid(), e.port(), e.flaps(), e.sinceMillis(), deps.nanoTime().getAsLong());
            scheduleRelease(e.guid(), e.port());
        }
        if (!stored.isEmpty()) {
            LOG.info("flap quarantine: {} port(s) still quarantined from the state directory, released after {} ms up",
                    stored.size(), flaps.quarantineMs());
        }
    }

    /** Writes the quarantine as it is now (control thread); a failure leaves the next manager the previous one. */
    private void save() {
        if (store == null) {
            return;
        }
        List<QuarantineStore.Entry> entries = new ArrayList<>();
        for (FaultReport.Quarantine q : flaps.quarantined()) {
            entries.add(new QuarantineStore.Entry(Guids.parse(q.guid()), q.port(), q.flaps(), q.sinceMillis()));
        }
        try {
            store.save(entries);
        } catch (StoreException e) {
            LOG.error("flap quarantine not stored ({}): a manager started next would not know it", e.getMessage());
        }
    }

    /**
     * Judges a port going up or down (after discovery): false when the change must not move the fabric
     * because the port is quarantined.
     */
    boolean portTransition(ManagedSwitch ms, int port, boolean up) {
        long guid = ms.guid();
        switch (flaps.transition(guid, port, up, deps.nanoTime().getAsLong())) {
            case QUARANTINED -> {
                deps.milestones().record(Milestone.Kind.LINK_QUARANTINED, "link at " + ms.name() + " port " + port
                        + " flaps (more than " + settings.flapThreshold() + " downs in " + settings.flapWindowMs()
                        + " ms): quarantined, kept down until it is up for " + settings.quarantineMs() + " ms");
                save();
                return true;
            }
            case MASKED -> {
                if (up) {
                    scheduleRelease(guid, port);
                }
                LOG.debug("{} port {} {} while quarantined: ignored", ms.name(), port, up ? "up" : "down");
                return false;
            }
            default -> {
                return true;
            }
        }
    }

    /**
     * A switch's whole port report (its PORT_INFO, when it connects, reconnects or comes back from a reboot): each
     * quarantined port of it reported up is released once it stays up for the quarantine time, as after a PORT_STATUS
     * "up". Without this a port that came back up while its switch was away stayed quarantined for good, since no
     * transition is ever reported for it.
     */
    void portsReported(SwitchPorts ports) {
        long guid = ports.guid();
        if (!flaps.hasQuarantined(guid)) {
            return;
        }
        long now = deps.nanoTime().getAsLong();
        for (int p = 1; p <= ports.portCount(); p++) {
            if (flaps.reported(guid, p, ports.port(p).isUp(), now)) {
                scheduleRelease(guid, p);
            }
        }
    }

    /** One port of {@code guid} reported up or down outside a judged transition: as {@link #portsReported}. */
    void portReported(long guid, int port, boolean up) {
        if (flaps.reported(guid, port, up, deps.nanoTime().getAsLong())) {
            scheduleRelease(guid, port);
        }
    }

    /** The reports as routing must see them: a copy with the quarantined ports down, or the reports themselves. */
    SwitchPorts masked(SwitchPorts ports) {
        if (!flaps.hasQuarantined(ports.guid())) {
            return ports;
        }
        SwitchPorts copy = new SwitchPorts(ports.guid(), ports.name(), ports.portCount());
        for (int p = 1; p <= ports.portCount(); p++) {
            copy.update(flaps.isQuarantined(ports.guid(), p) ? PortRecord.down(p) : ports.port(p));
        }
        return copy;
    }

    /** Checks the port again once it may have stayed up for the quarantine time. */
    private void scheduleRelease(long guid, int port) {
        deps.queue().scheduleDeferred("quarantine " + Guids.format(guid) + "/" + port, flaps.quarantineMs(),
                () -> release(guid, port));
    }

    private void release(long guid, int port) {
        if (stopping.getAsBoolean()) {
            return;
        }
        long now = deps.nanoTime().getAsLong();
        if (!flaps.releaseIfStable(guid, port, now)) {
            // up, but not for the quarantine time: a reload lengthened it since this check was scheduled
            long left = flaps.upRemainingMs(guid, port, now);
            if (left > 0) {
                deps.queue().scheduleDeferred("quarantine " + Guids.format(guid) + "/" + port, left,
                        () -> release(guid, port));
            }
            return;
        }
        ManagedSwitch ms = deps.registry().get(guid);
        String name = ms == null ? Guids.format(guid) : ms.name();
        deps.milestones().record(Milestone.Kind.LINK_RELEASED, "link at " + name + " port " + port + " stable for "
                + settings.quarantineMs() + " ms: quarantine lifted");
        reactions.event("quarantine lifted: " + name + " port " + port);
        save();
        deps.actions().maskChanged();
    }

    /** Quarantine state, for the views. */
    FlapGuard flaps() {
        return flaps;
    }

    /** The flap knobs of a configuration reload (control thread). */
    void retune(DaemonConfig.Faults faults) {
        settings = faults;
        flaps.retune(faults.flapThreshold(), faults.flapWindowMs(), faults.quarantineMs());
    }

}
