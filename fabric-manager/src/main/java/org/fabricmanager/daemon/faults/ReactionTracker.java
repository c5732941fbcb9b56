package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.push.PushFigures;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.push.PushTotals;
import org.fabricmanager.daemon.routing.NodeImpact;
import org.fabricmanager.routing.TableChurn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The figures of fault reactions: a reaction opens with the first fault event after convergence,
 * gathers the events, routing computations and pushes that follow, and closes when the tables have
 * converged again (a {@code REACTION} milestone and the {@code fabric.faults.converged} timer), or
 * without figures when the events needed no new tables. An operator's forced re-route is a reaction of
 * its own kind ({@code REROUTE}, timed in {@code fabric.reroutes.converged}), so that fault figures are only
 * ever from faults; a fault arriving while one is open starts a fault reaction from that fault. Runs on the
 * control thread.
 */
public final class ReactionTracker {
    private static final Logger LOG = LoggerFactory.getLogger(ReactionTracker.class);
    private static final int TRIGGERS_KEPT = 20;

    private final MilestoneLog milestones;
    private final DaemonMetrics metrics;
    /** Monotonic nanoseconds: the figures are differences of it (tests drive it). */
    private final LongSupplier nanoTime;
    private Reaction open;
    private long completed;
    /** The pusher's totals: a reaction's figures are what they rose by during it (each block and switch once). */
    private PushFigures push = PushFigures.NONE;

    /** What opened a reaction. */
    private enum Cause {
        FAULT, OPERATOR
    }

    /** Figures of one reaction, from its first event to convergence. */
    private static final class Reaction {
        final Cause cause;
        final long startNanos;
        /** The pusher's totals when the reaction opened. */
        final PushTotals pushedBefore;
        final List<String> triggers = new ArrayList<>();
        int triggerCount;
        int computations;
        double engineMs;
        double snapshotMs;
        long firstSnapshotNanos = -1;
        long lastPushNanos = -1;
        long changedEntries;
        long minimumEntries;
        long takenBackEntries;
        boolean churnKnown;
        final ReactionImpact nodes = new ReactionImpact();
        /** Routings of the reaction whose impact on the end nodes is still being taken (off the routing's path). */
        int impactsPending;
        /** The reaction's milestone, once converged, waiting for {@link #impactsPending} to reach 0. */
        Runnable closing;

        Reaction(Cause cause, long startNanos, PushTotals pushedBefore) {
            this.cause = cause;
            this.startNanos = startNanos;
            this.pushedBefore = pushedBefore;
        }

        void trigger(String what) {
            triggerCount++;
            if (triggers.size() < TRIGGERS_KEPT) {
                triggers.add(what);
            }
        }
    }

    public ReactionTracker(MilestoneLog milestones, DaemonMetrics metrics) {
        this(milestones, metrics, System::nanoTime);
    }

    /** As the public constructor, with the clock reactions are timed by. */
    ReactionTracker(MilestoneLog milestones, DaemonMetrics metrics, LongSupplier nanoTime) {
        this.milestones = milestones;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
    }

    /**
     * Where the pushes' figures come from (the pusher, set once before the first reaction). A reaction reports what the
     * totals rose by while it was open: a version's round counts again the switches that reconnect and get the same
     * version, and adding rounds counted the round in progress twice ("96 blocks, 96 switches acked" on 48 switches).
     */
    public void pushFigures(PushFigures figures) {
        this.push = figures;
    }

    /** A fault or recovery happened: it belongs to the open fault reaction (a new one when none is open). */
    public void event(String what) {
        if (open != null && open.cause == Cause.OPERATOR) {
            LOG.debug("fault during an operator's re-route: the reaction is the fault's from now on ({})", open.triggers);
            open = null;
        }
        if (open == null) {
            open = new Reaction(Cause.FAULT, nanoTime.getAsLong(), push.totals());
        }
        open.trigger(what);
        LOG.debug("fault event: {}", what);
    }

    /** An operator forced a re-route: a reaction of its own unless a fault reaction is open (it joins that). */
    public void operator(String what) {
        if (open == null) {
            open = new Reaction(Cause.OPERATOR, nanoTime.getAsLong(), push.totals());
        }
        open.trigger(what);
    }

    /** A fault event that needs nothing of its own (its switch already left): it joins an open reaction only. */
    public void joinIfOpen(String what) {
        if (open != null) {
            open.trigger(what);
        }
    }

    /** True while a reaction is open. */
    public boolean isOpen() {
        return open != null;
    }

    /** Events of the open reaction (0: none). */
    public int pendingEvents() {
        return open == null ? 0 : open.triggerCount;
    }

    /** Fault reactions and operator re-routes completed since start. */
    public long completed() {
        return completed;
    }

    /** The fabric was snapshotted for routing in {@code ms} during the open reaction, if any. */
    public void snapshot(double ms) {
        if (open != null) {
            if (open.firstSnapshotNanos < 0) {
                open.firstSnapshotNanos = nanoTime.getAsLong();
            }
            open.snapshotMs += ms;
        }
    }

    /** A routing computation of {@code engineMs} ended during the open reaction, if any. */
    public void computed(double engineMs) {
        if (open != null) {
            open.computations++;
            open.engineMs += engineMs;
        }
    }

    /**
     * A routing of the open reaction, if any, changed {@code churn.changedEntries()} table entries where any valid
     * routing changes {@code churn.minimumEntries()}, {@code churn.takenBack()} of them going back to elements that
     * came back (summed over the reaction's routings).
     */
    public void churn(TableChurn churn) {
        if (open != null) {
            open.changedEntries += churn.changedEntries();
            open.minimumEntries += churn.minimumEntries();
            open.takenBackEntries += churn.takenBack();
            open.churnKnown = true;
        }
    }

    /**
     * A routing of the open reaction, if any, was installed and its impact on the end nodes is being taken: the token to
     * hand back with it to {@link #impact} ({@code null} when no reaction is open). The impact is taken off the fault's
     * path at scale ({@code RoutingService.INLINE_ENTRIES}), so a reaction may converge before it comes: its milestone
     * then waits for it, while its times and metrics are those of the convergence.
     */
    public Object impactPending() {
        if (open == null) {
            return null;
        }
        open.impactsPending++;
        return open;
    }

    /** The impact of a routing announced by {@link #impactPending} (its token) came: the end nodes it touched. */
    public void impact(Object token, NodeImpact impact) {
        if (!(token instanceof Reaction r)) {
            return;
        }
        r.nodes.add(impact);
        r.impactsPending--;
        if (r.impactsPending == 0 && r.closing != null) {
            Runnable close = r.closing;
            r.closing = null;
            close.run();
        }
    }

    /** A new table version started installing with {@code round} (the push's time is measured from now). */
    public void pushStarted(PushRound previous, PushRound round) {
        if (open != null) {
            open.lastPushNanos = nanoTime.getAsLong();
        }
    }

    /**
     * The tables converged: closes the open reaction with its figures.
     *
     * @param last the round that converged (its version's figures; the reaction's own are the pusher's totals' rise)
     */
    public void converged(PushRound last, long tableVersion) {
        Reaction r = open;
        if (r == null) {
            return;
        }
        open = null;
        PushTotals pushed = push.totals().since(r.pushedBefore);
        int switchesAcked = push.switchesAckedAfter(r.pushedBefore.acks());
        completed++;
        double ms = (nanoTime.getAsLong() - r.startNanos) / 1e6;
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("triggerCount", r.triggerCount);
        d.put("triggers", List.copyOf(r.triggers));
        d.put("computations", r.computations);
        d.put("engineMs", Math.round(r.engineMs * 10) / 10.0);
        // table entries the reaction's routings moved, and the least any valid routing moves for the same change
        d.put("changedEntries", r.churnKnown ? r.changedEntries : null);
        d.put("minimumEntries", r.churnKnown ? r.minimumEntries : null);
        // of the changed entries, those that went back to switches and cables that came back
        d.put("takenBackEntries", r.churnKnown ? r.takenBackEntries : null);
        // where the time went: until the first snapshot (the settle window, and reports still arriving), in
        // snapshots, and from the last push's start to the last acknowledgement
        long now = nanoTime.getAsLong();
        d.put("settledAfterMs", r.firstSnapshotNanos < 0 ? null : Math.round((r.firstSnapshotNanos - r.startNanos) / 1e5) / 10.0);
        d.put("snapshotMs", Math.round(r.snapshotMs * 10) / 10.0);
        d.put("pushMs", r.lastPushNanos < 0 ? null : Math.round((now - r.lastPushNanos) / 1e5) / 10.0);
        d.put("blocksPushed", pushed.blocks());
        d.put("bytesPushed", pushed.bytes());
        d.put("switchesAcked", switchesAcked);
        // switches whose blocks went out during the verdict's confirmation: their commits alone were on the path
        d.put("switchesStagedAhead", pushed.stagedAhead());
        d.put("tableVersion", tableVersion);
        boolean fault = r.cause == Cause.FAULT;
        d.put(fault ? "faultToConvergedMs" : "requestToConvergedMs", Math.round(ms * 10) / 10.0);
        if (fault) {
            metrics.faultToConverged(ms);
        } else {
            metrics.rerouteToConverged(ms);
        }
        String text = String.format("%s: %d events (%s%s), "
                        + "%d routing computations (%.1f ms), %d blocks / %d bytes pushed%s, %d switches acked, "
                        + "converged %.1f ms after the first event", fault ? "fault reaction" : "operator re-route",
                r.triggerCount, r.triggers.get(0), r.triggerCount > 1 ? ", ..." : "", r.computations, r.engineMs,
                pushed.blocks(), pushed.bytes(), pushed.stagedAhead() == 0 ? ""
                        : " (staged ahead on " + pushed.stagedAhead() + " switches)", switchesAcked, ms);
        // the end nodes the reaction cut off (named), attached again and moved: who the fault touched, once known
        r.closing = () -> {
            r.nodes.figures(d);
            milestones.record(fault ? Milestone.Kind.REACTION : Milestone.Kind.REROUTE, text + r.nodes.text(), d);
        };
        if (r.impactsPending == 0) {
            Runnable close = r.closing;
            r.closing = null;
            close.run();
        }
    }

    /**
     * Converged all along: the events needed no new tables (a rejoin whose session is not back yet, a
     * change already undone). Left open, the reaction would swallow the next, unrelated fault and report
     * its fault-to-converged time from these events.
     */
    public void noTablesNeeded() {
        if (open != null) {
            LOG.debug("fault events without a table change: {}", open.triggers);
            open = null;
        }
    }
}
