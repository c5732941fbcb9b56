package org.fabricmanager.daemon.faults;

import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.topology.Guids;

/**
 * Flap damping of whole switches, as {@link QuarantineKeeper} damps links: a switch whose session is lost more than
 * {@code faults.flapThreshold} times within {@code faults.flapWindowMs} (an agent in a reconnect loop, a switch
 * rebooting over and over, or whoever holds its key reconnecting on purpose) is quarantined: when it connects again it
 * waits, pending, until its session has stayed up for {@code faults.quarantineMs}, and only then enters the fabric.
 * Without this each reconnect moved the fabric twice (out, then in) and cost a re-route each time. Judged with a
 * {@link FlapGuard} whose port 0 stands for the whole switch. Runs on the control thread.
 */
final class SwitchFlaps {
    /** FlapGuard's port number for the switch itself (ports are numbered from 1). */
    private static final int WHOLE_SWITCH = 0;

    private final FaultDependencies deps;
    private final FlapGuard flaps;
    private DaemonConfig.Faults settings; // re-tuned by a reload

    SwitchFlaps(DaemonConfig.Faults settings, FaultDependencies deps) {
        this.settings = settings;
        this.deps = deps;
        this.flaps = new FlapGuard(settings.flapThreshold(), settings.flapWindowMs(), settings.quarantineMs());
    }

    /** Whether switch {@code guid} is quarantined for flapping. */
    boolean isQuarantined(long guid) {
        return flaps.isQuarantined(guid, WHOLE_SWITCH);
    }

    /** The session of switch {@code guid} ({@code name}), in the fabric or waiting out its quarantine, was lost. */
    void sessionLost(long guid, String name) {
        if (flaps.transition(guid, WHOLE_SWITCH, false, deps.nanoTime().getAsLong()) == FlapGuard.Verdict.QUARANTINED) {
            deps.milestones().record(Milestone.Kind.SWITCH_QUARANTINED, "switch " + Guids.format(guid) + " ("
                    + name + ") flaps (more than " + settings.flapThreshold() + " lost sessions in "
                    + settings.flapWindowMs() + " ms): quarantined, kept out of the fabric until its session is up for "
                    + settings.quarantineMs() + " ms");
        }
    }

    /**
     * Why {@code ms}, connecting, must wait before it enters the fabric, or {@code null} when it may enter now.
     * When it must wait, {@code release} runs (on the control thread) once its session has stayed up for the
     * quarantine time; a lost session meanwhile cancels it.
     */
    String held(ManagedSwitch ms, Runnable release) {
        long guid = ms.guid();
        if (flaps.transition(guid, WHOLE_SWITCH, true, deps.nanoTime().getAsLong()) != FlapGuard.Verdict.MASKED) {
            return null;
        }
        long quarantineMs = flaps.quarantineMs();
        deps.queue().scheduleDeferred("switch quarantine " + Guids.format(guid), quarantineMs, () -> {
            if (flaps.releaseIfStable(guid, WHOLE_SWITCH, deps.nanoTime().getAsLong())) {
                deps.milestones().record(Milestone.Kind.SWITCH_RELEASED, "switch " + Guids.format(guid) + " ("
                        + ms.name() + ") connected for " + quarantineMs + " ms: quarantine lifted, it enters the fabric");
                release.run();
            }
        });
        return "quarantined for flapping (more than " + settings.flapThreshold() + " lost sessions in "
                + settings.flapWindowMs() + " ms): enters the fabric once connected for " + quarantineMs + " ms";
    }

    /** The flap knobs of a configuration reload. */
    void retune(DaemonConfig.Faults faults) {
        settings = faults;
        flaps.retune(faults.flapThreshold(), faults.flapWindowMs(), faults.quarantineMs());
    }
}
