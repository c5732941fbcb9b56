package org.fabricmanager.daemon.discovery;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftSpec;

/**
 * The checks of discovery's snapshots against the expected shape ({@link ShapeCheck}), by snapshot number: the one
 * handed out last, the ones done, and the one whose fabric the routing in force was computed for. A check runs off the
 * control thread and may end after the routing of its snapshot did; the status must then say that the check is
 * pending, not give the verdict of the snapshot before (a CONVERGED on the new routing beside the old fabric's
 * verdict). A check's result counts only if no later one's did; what it changed is announced
 * ({@link CheckAnnouncements}). Control thread, but for {@link #check()}.
 */
final class SnapshotChecks {
    /** Checks kept: the routed snapshot is at most a few snapshots behind the last one (one routing at a time). */
    private static final int KEPT = 8;

    private final PgftSpec expected;
    private final HdftSpec expectedHdft;
    /** The expected shape's notation, {@code null} when none is configured (checks then end at once). */
    private final String shape;
    private final FabricChecker checker;
    /** Where the checks run, off the control thread. */
    private final Executor checks;
    private final ControlLoop queue;
    private final CheckAnnouncements announcements;
    /** Told when a check ended (the status may change with it). */
    private final Runnable onChecked;
    // volatile: the verdict gauge reads it at scrape time, off the control thread
    private volatile FabricCheck check;
    private long handedOut;
    private long done;
    private long inForce = -1;
    /** The check of snapshot {@link #inForce}, {@code null} while it runs (kept apart: never dropped from the recent). */
    private FabricCheck inForceCheck;
    private final Map<Long, FabricCheck> recent = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, FabricCheck> eldest) {
            return size() > KEPT;
        }
    };

    SnapshotChecks(DiscoverySettings settings, FabricChecker checker, Executor checks, ControlLoop queue,
                   MilestoneLog milestones, Runnable onChecked) {
        this.expected = settings.expected();
        this.expectedHdft = settings.expectedHdft();
        this.shape = expected != null ? expected.toString() : expectedHdft != null ? expectedHdft.toString() : null;
        this.checker = checker;
        this.checks = checks;
        this.queue = queue;
        this.announcements = new CheckAnnouncements(milestones, shape != null);
        this.onChecked = onChecked;
        // discovering: a configured shape is not checked yet, which is not "no shape configured"
        this.check = shape == null ? FabricCheck.notChecked() : FabricCheck.pending(shape);
    }

    /**
     * Checks snapshot {@code r}: with {@code ready}, the check the completeness test made of this very build; with
     * {@code ahead}, the check started when it was derived ahead of a switch's leaving; otherwise from now, off the
     * control thread, with the drained parts {@code parts} gives. The result comes back as a control event.
     */
    void start(TopologyBuilder.Result r, FabricCheck ready, CompletableFuture<FabricCheck> ahead,
               Supplier<DrainedParts> parts) {
        long seq = ++handedOut;
        if (shape == null) {
            checked(seq, r, FabricCheck.notChecked());
        } else if (ready != null) {
            checked(seq, r, ready);
        } else if (ahead != null) {
            // an event, as the others: the coordinator is in the middle of a re-route
            ahead.thenAccept(c -> queue.append("fabric-check", () -> checked(seq, r, c)));
        } else {
            // recognising thousands of switches takes a while: off the control thread, so a fault's re-route does
            // not wait for the operator's verdict
            DrainedParts drained = parts.get();
            Fabric fabric = r.fabric();
            checks.execute(() -> {
                FabricCheck c = ShapeCheck.of(fabric, expected, expectedHdft, checker, drained);
                queue.append("fabric-check", () -> checked(seq, r, c));
            });
        }
    }

    /** Starts the check of {@code fabric}, derived ahead of a change, off the control thread ({@code null}: no shape). */
    CompletableFuture<FabricCheck> ahead(Fabric fabric, DrainedParts parts) {
        if (shape == null) {
            return null;
        }
        CompletableFuture<FabricCheck> c = new CompletableFuture<>();
        checks.execute(() -> c.complete(ShapeCheck.of(fabric, expected, expectedHdft, checker, parts)));
        return c;
    }

    private void checked(long seq, TopologyBuilder.Result r, FabricCheck c) {
        if (seq <= done) {
            return; // a later check ended first: this one is stale
        }
        done = seq;
        recent.put(seq, c);
        if (seq == inForce) {
            inForceCheck = c;
        }
        FabricCheck before = check;
        check = c;
        announcements.checked(r, before, c);
        onChecked.run();
    }

    /** The last check that ended (pending before the first; any thread). */
    FabricCheck check() {
        return check;
    }

    /** The number of the last snapshot handed out (0 before the first). */
    long last() {
        return handedOut;
    }

    /** The fabric of snapshot {@code seq} is the one the routing in force was computed for (or one equal to it). */
    void inForce(long seq) {
        inForce = seq;
        inForceCheck = recent.get(seq);
    }

    /** The check of the last snapshot: its verdict, or pending while it runs. */
    FabricCheck ofLast() {
        return done < handedOut ? pending() : check;
    }

    /** The check of the snapshot in force, pending while it runs; the last snapshot's before any routing. */
    FabricCheck ofRouted() {
        if (inForce < 0) {
            return ofLast();
        }
        return inForceCheck == null ? pending() : inForceCheck;
    }

    private FabricCheck pending() {
        return shape == null ? FabricCheck.notChecked() : FabricCheck.pending(shape);
    }
}
