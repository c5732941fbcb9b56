package org.fabricmanager.daemon;

import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.topology.Guids;

/**
 * What the end of a switch's session does, on the control thread: the switch leaves the registry, discovery and
 * the pusher, the fault manager hears of it, and a loss after discovery is judged with its burst
 * ({@link SessionLosses}). It ends the sessions that close ({@link SwitchSessions}) and those the daemon drops
 * (the failure detector's confirmed verdict, through {@link FabricCoordinator}), and answers what the fabric must
 * do next ({@link Outcome}), which the coordinator carries out: so neither needs the other to end a session.
 */
final class SessionEnds {
    /** What the fabric must do after a session ended ({@link FabricCoordinator#sessionEnded}). */
    enum Outcome {
        /** Nothing: the session held no switch, or the daemon is stopping. */
        NONE,
        /** The switch was not in the fabric: only the daemon's state may follow. */
        STATE,
        /** A switch left the fabric: route again once it settles. */
        FABRIC_CHANGED,
        /** An admitted switch's session was lost after discovery: routed once its burst is judged. */
        SESSION_LOST,
        /** Every switch is gone: discover again before routing. */
        EVERY_SWITCH_GONE
    }

    private final SwitchRegistry registry;
    private final DiscoveryManager discovery;
    private final LftPusher pusher;
    private final FaultManager faults;
    private final SessionLosses losses;
    private final MilestoneLog milestones;
    private boolean stopping;

    SessionEnds(SwitchRegistry registry, DiscoveryManager discovery, LftPusher pusher, FaultManager faults,
                SessionLosses losses, MilestoneLog milestones) {
        this.registry = registry;
        this.discovery = discovery;
        this.pusher = pusher;
        this.faults = faults;
        this.losses = losses;
        this.milestones = milestones;
    }

    /**
     * Ends {@code session}'s switch, if it still holds one.
     *
     * @param known the daemon knows why the session ends (a restarted agent takes it over, the failure detector's
     *              confirmed verdict drops it, or OpenSM's subnet no longer holds the switch): routed at once, not
     *              judged with a burst of losses
     */
    Outcome end(SwitchSession session, String reason, boolean known) {
        ManagedSwitch ms = registry.current(session);
        if (ms == null) {
            return Outcome.NONE;
        }
        if (stopping) {
            registry.remove(session);
            return Outcome.NONE;
        }
        remove(ms);
        boolean judged = ms.admitted() && discovery.done() && !known;
        if (!judged) {
            // a loss judged with its burst counts toward the switch's flapping only if the burst is no outage
            faults.switchSessionLost(ms);
        }
        if (!ms.admitted()) {
            return Outcome.STATE;
        }
        boolean discovered = discovery.done();
        if (discovered && !known) {
            // a fault event, announced and routed around once its burst is judged: many at once may be the
            // management network, whose switches keep forwarding
            losses.lost(ms, reason, registry.admittedCount() + 1);
        } else {
            if (discovered) {
                faults.event("switch " + ms.name() + " disconnected");
            }
            milestones.record(Milestone.Kind.SWITCH_LOST, "switch " + Guids.format(ms.guid()) + " (" + ms.name()
                    + ") disconnected: " + reason);
        }
        if (registry.admittedCount() == 0 && discovered) {
            // every agent is gone (daemon network cut, mass restart): rediscover before routing again,
            // instead of routing each partial fabric as agents come back one by one
            return Outcome.EVERY_SWITCH_GONE;
        }
        return discovered && !known ? Outcome.SESSION_LOST : Outcome.FABRIC_CHANGED;
    }

    /** Takes a switch out of the registry, discovery and the pusher. */
    void remove(ManagedSwitch ms) {
        if (ms.admitted()) {
            discovery.leaving(ms.ports());
            pusher.detach(ms.guid());
        }
        registry.remove(ms.session());
    }

    /** From now on, lost sessions are the daemon's own doing: no milestones, no re-routing. */
    void stopping() {
        stopping = true;
        losses.cancel();
    }

    /** Whether the daemon is stopping ({@link #stopping()}). */
    boolean isStopping() {
        return stopping;
    }
}
