package org.fabricmanager.daemon;

import org.fabricmanager.daemon.control.ControlLoop;

/**
 * When the next routing starts. A change of the fabric waits for the routing settle window, or the shorter fault
 * settle window during a fault's reaction, so that the reports of one event coalesce; once both ends of every changed
 * link have reported ({@link LinkReports}) there is nothing left to wait for. A change during a computation waits for
 * its end, then settles as it would have. Control thread only.
 */
final class RerouteSchedule {
    private static final String REROUTE = "reroute";
    /** The fault settle window once every changed link was reported by both its ends: reports of one burst coalesce. */
    static final long LINKS_COMPLETE_SETTLE_MS = 5;

    private final ControlLoop queue;
    private final FabricCoordinator.Managers m;
    /** Snapshots the fabric and routes it (the coordinator's step). */
    private final Runnable route;
    private SettleWindows settle; // re-tuned by a reload
    /** Whether the changes since the last re-route are links reported by both ends (the settle can end at once). */
    private final LinkReports links = new LinkReports();
    private boolean scheduled;
    /** A change arrived while a computation was under way: the re-route follows its end. */
    private boolean changedWhileRouting;

    RerouteSchedule(SettleWindows settle, ControlLoop queue, FabricCoordinator.Managers managers, Runnable route) {
        this.settle = settle;
        this.queue = queue;
        this.m = managers;
        this.route = route;
    }

    /** A port changed state; its peer's end reported the same state already when {@code peerAgrees}. */
    void portChanged(long guid, int port, long peerGuid, int peerPort, boolean peerAgrees) {
        links.portChanged(guid, port, peerGuid, peerPort, peerAgrees);
    }

    /** Something other than a link changed: the whole window is waited. */
    void otherChange() {
        links.otherChange();
    }

    /**
     * The fabric changed after discovery: a re-route once it settles, or after the computation under way.
     *
     * @return true when a computation is under way (the change waits for its end)
     */
    boolean changed() {
        if (m.routing().busy()) {
            changedWhileRouting = true;
            return true;
        }
        if (!scheduled) {
            // a prepared routing waits for the confirmation of a verdict, whose echo wait was the settle window
            schedule(m.routing().hasPrepared() ? 0 : m.faults().reactions().isOpen() ? settle.faultsMs()
                    : settle.routingMs());
        }
        return false;
    }

    /** After ports changed: during a fault's reaction, at once when both ends of every changed link reported. */
    void linksChanged(boolean discovering) {
        if (scheduled && links.complete() && m.faults().reactions().isOpen() && !m.routing().hasPrepared()
                && !discovering) {
            schedule(Math.min(LINKS_COMPLETE_SETTLE_MS, settle.faultsMs()));
        }
    }

    /** A computation ended: a change that arrived meanwhile settles as it would have without it. */
    void computationEnded() {
        if (changedWhileRouting) {
            changedWhileRouting = false;
            schedule(links.complete() && m.faults().reactions().isOpen()
                    ? Math.min(LINKS_COMPLETE_SETTLE_MS, settle.faultsMs()) : settle.routingMs());
        }
    }

    /**
     * A routing prepared ahead of a verdict was computed.
     *
     * @return true when its confirmation came during the computation: the re-route is due at once (its snapshot is
     *         the prepared fabric, no settle needed)
     */
    boolean prepared() {
        if (!changedWhileRouting) {
            return false;
        }
        changedWhileRouting = false;
        schedule(0);
        return true;
    }

    /** The routing starts from a snapshot that takes every change reported so far. */
    void routing() {
        links.clear();
    }

    /** A computation started: the changes it was started for are in it. */
    void computationStarted() {
        changedWhileRouting = false;
    }

    /** Whether a re-route is due: scheduled, or waiting for the computation under way. */
    boolean due() {
        return scheduled || changedWhileRouting && m.routing().busy();
    }

    boolean scheduled() {
        return scheduled;
    }

    /** Drops the re-route due (every switch gone, stopping). */
    void cancel() {
        queue.cancelDeferred(REROUTE);
        scheduled = false;
    }

    /** The settle windows of a configuration reload: the next re-route uses them. */
    void retune(SettleWindows windows) {
        settle = windows;
    }

    private void schedule(long delayMs) {
        scheduled = true;
        queue.scheduleDeferred(REROUTE, delayMs, this::fire);
    }

    private void fire() {
        scheduled = false;
        if (m.routing().busy()) {
            changedWhileRouting = true;
            return;
        }
        route.run();
    }
}
