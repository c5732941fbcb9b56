package org.fabricmanager.daemon;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.push.PushTotals;
import org.fabricmanager.daemon.routing.ActiveRouting;

/**
 * The daemon's {@link DaemonState}, judged from its managers after every step of the control loop, and its
 * convergences: each is timed from the first change since the last one and reported once (the CONVERGED event with
 * what was pushed, the end of a fault's reaction, the stored routing, the ring's start and the quality measurement).
 * Control thread, but for {@link #state()}.
 */
final class Convergence {
    /** Deferred: the work after the first convergence, if the ring's start has not ended by then. */
    static final String AFTER_RING_START = "after-ring-start";

    private final ControlLoop queue;
    private final MilestoneLog milestones;
    private final FabricCoordinator.Managers m;
    /** Whether a re-route is due ({@link RerouteSchedule#due}). */
    private final BooleanSupplier rerouteDue;
    private DaemonState state = DaemonState.DISCOVERING;
    private volatile DaemonState published = DaemonState.DISCOVERING;
    /** The first change since the last convergence (or the start): the start of the convergence time reported. */
    private long changeStartNanos = System.nanoTime();
    /** Whether {@link #changeStartNanos} holds the first change since the last convergence. */
    private boolean changeNoted = true;
    private long convergences;
    /** The pusher's totals at the last convergence: the next one reports what was pushed since. */
    private PushTotals pushedAtConvergence = PushTotals.ZERO;
    /**
     * The switches the tables being installed route no traffic through ({@link org.fabricmanager.daemon.push.RoutedAround}):
     * neither their push nor the judgement of their lost sessions holds back CONVERGED.
     */
    private LongPredicate routedAround = guid -> false;
    /** The fault rehearsal and the first quality measurement wait for the ring's start ({@link #afterRingStart}). */
    private boolean afterRingStartPending;
    /** Told of the routing in force each time the tables converge (the quality monitor). */
    private Consumer<ActiveRouting> convergedObserver = r -> { };
    /** Told after every change of state (the reads waiting for handed tables). */
    private Runnable stateObserver = () -> { };

    Convergence(ControlLoop queue, MilestoneLog milestones, FabricCoordinator.Managers managers,
                BooleanSupplier rerouteDue) {
        this.queue = queue;
        this.milestones = milestones;
        this.m = managers;
        this.rerouteDue = rerouteDue;
        m.faults().onRingStarted(this::afterRingStart);
    }

    /** The state as last published by the control thread (any thread). */
    DaemonState state() {
        return published;
    }

    /** The state as the control thread last judged it. */
    DaemonState judged() {
        return state;
    }

    LongPredicate routedAround() {
        return routedAround;
    }

    /** The tables being installed route no traffic through the switches {@code around} accepts. */
    void routedAround(LongPredicate around) {
        routedAround = around;
    }

    /** Starts the next convergence's clock at the first change since the last convergence. */
    void noteChange() {
        if (!changeNoted) {
            changeNoted = true;
            changeStartNanos = System.nanoTime();
        }
    }

    /** {@code observer} is told of the routing in force each time the tables converge on it. */
    void onConverged(Consumer<ActiveRouting> observer) {
        convergedObserver = observer;
    }

    /** Tells {@code observer} of every change of state (once, at wiring). */
    void onStateChanged(Runnable observer) {
        stateObserver = observer;
    }

    /** The measurement a computation interrupted starts again, if the tables are converged. */
    void measureAgain() {
        ActiveRouting active = m.routing().active();
        if (state == DaemonState.CONVERGED && active != null) {
            convergedObserver.accept(active);
        }
    }

    /** Judges the state from the managers now; a convergence is reported once. */
    void update() {
        ActiveRouting active = m.routing().active();
        int admitted = m.registry().admittedCount();
        DaemonState next;
        // a change that arrived during a prepared computation waits for it: ROUTING too (not CONVERGED, which would
        // close the reaction the change opened as needing no tables)
        // lost sessions waiting for their burst's judgement are a settle window: not CONVERGED on a fabric that has
        // lost switches the routing in force still routes traffic through (one it routes around changes nothing)
        if (m.routing().running() || rerouteDue.getAsBoolean() || m.losses().judging(routedAround)) {
            next = DaemonState.ROUTING;
        } else if (active == null || admitted == 0 || !m.discovery().done()) {
            // discovering again after every switch left: a change meanwhile (a drain, a port) waits for the end of
            // discovery to be routed, so the tables in force are not those of the fabric yet
            next = DaemonState.DISCOVERING;
        } else if (m.pusher().awaitedCount() > 0 || m.pusher().uncoveredCount() > 0) {
            next = DaemonState.PUSHING;
        } else if (m.discovery().routedCheck().verdict() == FabricCheck.Verdict.PENDING) {
            // the routed fabric's check against the expected shape runs off this thread and may end after the push:
            // CONVERGED waits for it, so that the status never gives the verdict of another fabric beside it
            next = DaemonState.ROUTING;
        } else {
            next = DaemonState.CONVERGED;
        }
        if (next != DaemonState.CONVERGED && state == DaemonState.CONVERGED) {
            noteChange(); // whatever took it out of CONVERGED, should no path have noted it
        }
        if (next == DaemonState.CONVERGED && state != DaemonState.CONVERGED) {
            converged(active, admitted);
        } else if (next == DaemonState.CONVERGED) {
            m.faults().reactions().noTablesNeeded();
        }
        boolean changed = state != next;
        state = next;
        published = next;
        if (changed) {
            stateObserver.run();
        }
    }

    private void converged(ActiveRouting active, int admitted) {
        PushRound round = m.pusher().round();
        convergences++;
        changeNoted = false;
        // what went out since the last convergence, each block once (a version's round also counts the switches
        // that reconnected and got it again)
        PushTotals totals = m.pusher().totals();
        PushTotals pushed = totals.since(pushedAtConvergence);
        pushedAtConvergence = totals;
        int around = m.pusher().routedAroundCount();
        milestones.record(Milestone.Kind.CONVERGED, String.format(
                "tables converged: v%d on %d/%d switches, %.0f ms after %s (%d blocks, %d bytes, %d retries)%s",
                active.version(), m.pusher().inSyncCount(), admitted, (System.nanoTime() - changeStartNanos) / 1e6,
                convergences == 1 ? "start" : "the first change", pushed.blocks(), pushed.bytes(),
                round == null ? 0 : round.retries(), around == 0 ? "" : "; " + around + (around == 1 ? " switch"
                        : " switches") + " without a link in the routed fabric not holding them yet (routed around)"));
        m.faults().reactions().converged(round, active.version());
        m.faults().tablesConverged(); // the first time: the ring starts now that the tables are in place
        m.routing().storeWhenQuiet(); // after the push, which needed the cores more, and after a burst of faults
        if (convergences == 1 && m.faults().ringStarting()) {
            // the ring starts now (the first tables are in place): its members and their lookups first
            afterRingStartPending = true;
            queue.scheduleDeferred(AFTER_RING_START, m.faults().ringStartWaitMs(), this::afterRingStart);
        } else {
            if (convergences == 1) {
                m.routing().rehearse(); // compiles the fault path before the first fault needs it
            }
            convergedObserver.accept(active);
        }
    }

    /**
     * The ring's start ended (every switch answered its configuration, or the wait for the last answer ended), or
     * the deferred bound passed: the fault rehearsal and the quality measurement held back at the first convergence
     * run now. Both take the daemon's cores for seconds at thousands of switches, while the ring's members start on
     * the agents' hosts (in a simulator, on the same cores) and ask the daemon for their configuration.
     */
    private void afterRingStart() {
        if (!afterRingStartPending) {
            return;
        }
        afterRingStartPending = false;
        queue.cancelDeferred(AFTER_RING_START);
        m.routing().rehearse(); // compiles the fault path before the first fault needs it
        measureAgain(); // otherwise the next convergence measures
    }
}
