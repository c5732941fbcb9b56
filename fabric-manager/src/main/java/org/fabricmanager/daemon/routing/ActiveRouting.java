package org.fabricmanager.daemon.routing;

import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.topology.Fabric;

/**
 * The routing in force: the fabric its tables were computed for (with the destination indices in use),
 * that fabric's fingerprint, the tables, and figures of their computation.
 *
 * @param durationMs       the computation's wall-clock time, {@code null} when reused from the state directory
 * @param unreachablePairs leaf pairs the tables do not connect
 * @param reused           true when the tables were reused from the state directory, not computed
 * @param churn            entries changed against the tables in force before, and the minimum for that change
 *                         ({@code null}: the first tables, reused ones, or an engine other than dmodc)
 * @param repaired         true when the tables are a repair of the last full routing ({@code routing.onFault: repair})
 * @param impact           the end nodes these tables cut off, attached again and moved against the routing before
 *                         (taken off the fault's path: completes after the routing is installed)
 */
public record ActiveRouting(long version, Fabric fabric, String fingerprint, TableSet tables, String engine,
                            Double durationMs, boolean valid, long unreachablePairs, boolean reused,
                            Boolean deadlockFree, TableChurn churn, boolean repaired,
                            CompletableFuture<NodeImpact> impact) {

    /** A routing without the impact on end nodes. */
    public ActiveRouting(long version, Fabric fabric, String fingerprint, TableSet tables, String engine,
                         Double durationMs, boolean valid, long unreachablePairs, boolean reused, Boolean deadlockFree,
                         TableChurn churn, boolean repaired) {
        this(version, fabric, fingerprint, tables, engine, durationMs, valid, unreachablePairs, reused, deadlockFree,
                churn, repaired, CompletableFuture.completedFuture(NodeImpact.NONE));
    }

    /** A routing without churn figures, not a repair. */
    public ActiveRouting(long version, Fabric fabric, String fingerprint, TableSet tables, String engine,
                         Double durationMs, boolean valid, long unreachablePairs, boolean reused, Boolean deadlockFree) {
        this(version, fabric, fingerprint, tables, engine, durationMs, valid, unreachablePairs, reused, deadlockFree,
                null, false);
    }

    /** The same routing, marked so that the next fabric, even an equal one, is routed again. */
    ActiveRouting forcedStale() {
        return new ActiveRouting(version, fabric, "forced", tables, engine, durationMs, valid, unreachablePairs, reused,
                deadlockFree, churn, repaired, impact);
    }
}
