package org.fabricmanager.daemon.routing;

import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableChurn;

/**
 * A finished job: the fabric's fingerprint and, unless that equals the job's active fingerprint (then
 * nothing was routed and {@code result} and {@code tables} are {@code null}), the engine's result, the tables
 * ready to push (hashed, with the blocks changed since the previous version), the engine's wall-clock time
 * including indexing, the time it took to compare the tables with the previous version, and a
 * breakdown of the routing time for the log ({@code ""} when nothing was routed). For tables with
 * virtual-channel rules, {@code deadlockFree} says whether their (link, VC) dependency graph is acyclic
 * ({@code null}: not checked). {@code churn}: entries changed against the job's previous tables and the minimum
 * ({@code null}: no previous tables, or not a Dmodc routing); {@code repaired}: the tables are a repair;
 * {@code impact}: the end nodes cut off, attached again and moved against the job's previous routing, taken after
 * the outcome on a thread of its own (it is not on the fault's path).
 */
public record RoutingOutcome(RoutingJob job, String fingerprint, RoutingResult result, TableSet tables, long nanos,
                             long compareNanos, String detail, Boolean deadlockFree, TableChurn churn,
                             boolean repaired, CompletableFuture<NodeImpact> impact) {

    /** An outcome without the impact on end nodes. */
    public RoutingOutcome(RoutingJob job, String fingerprint, RoutingResult result, TableSet tables, long nanos,
                          long compareNanos, String detail, Boolean deadlockFree, TableChurn churn, boolean repaired) {
        this(job, fingerprint, result, tables, nanos, compareNanos, detail, deadlockFree, churn, repaired,
                CompletableFuture.completedFuture(NodeImpact.NONE));
    }

    /** An outcome without churn figures, not a repair. */
    public RoutingOutcome(RoutingJob job, String fingerprint, RoutingResult result, TableSet tables, long nanos,
                          long compareNanos, String detail, Boolean deadlockFree) {
        this(job, fingerprint, result, tables, nanos, compareNanos, detail, deadlockFree, null, false);
    }

    /** Nothing routed for {@code job}: its fabric was the routed one, or its refinement changed or gave up nothing. */
    public static RoutingOutcome unchanged(RoutingJob job, String fingerprint) {
        return new RoutingOutcome(job, fingerprint, null, null, 0, 0, "", null);
    }

    /** True when the fabric was the routed one: nothing was computed. */
    public boolean unchanged() {
        return result == null;
    }

    public double millis() {
        return nanos / 1e6;
    }

    public double compareMillis() {
        return compareNanos / 1e6;
    }
}
