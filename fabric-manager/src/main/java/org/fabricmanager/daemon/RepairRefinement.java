package org.fabricmanager.daemon;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refines repairs ({@code routing.rebalance.refineAfter}): once the tables of a repair converged and the fabric has
 * not changed for that long, the entries the repair moved take the ports of the engine's full routing of the fabric
 * ({@link RoutingManager#refinable}): one more routing version that changes only entries the repair changed, with a
 * full routing's balance. The fault's own reaction is the repair, which takes milliseconds where the full routing
 * takes hundreds at 65,536 nodes. Any change of the fabric restarts the wait at the next convergence; a routing that
 * is not such a repair disarms it. A deferred action of the control loop; control thread only.
 */
final class RepairRefinement {
    /** The deferred action's tag. */
    static final String TAG = "refine-repair";
    private static final Logger LOG = LoggerFactory.getLogger(RepairRefinement.class);

    private final ControlLoop queue;
    private final long delayMs;
    private final Supplier<ActiveRouting> active;
    private final BooleanSupplier refinable;
    private final BooleanSupplier busy;
    private final Runnable refine;

    /**
     * @param delayMs   the wait, 0 for off
     * @param active    the routing in force
     * @param refinable whether it is a repair that a refinement changes ({@link RoutingManager#refinable})
     * @param busy      whether a computation runs or is prepared
     * @param refine    routes the fabric again as a refinement ({@link RoutingManager#refineNext}, then the
     *                  coordinator, after its settle window)
     */
    RepairRefinement(ControlLoop queue, long delayMs, Supplier<ActiveRouting> active, BooleanSupplier refinable,
                     BooleanSupplier busy, Runnable refine) {
        this.queue = queue;
        this.delayMs = delayMs;
        this.active = active;
        this.refinable = refinable;
        this.busy = busy;
        this.refine = refine;
    }

    /** The tables of {@code converged} are in force on every switch: a repair to refine arms the wait. */
    void converged(ActiveRouting converged) {
        if (delayMs <= 0) {
            return;
        }
        if (refinable.getAsBoolean()) {
            long version = converged.version();
            queue.scheduleDeferred(TAG, delayMs, () -> refine(version));
        } else {
            queue.cancelDeferred(TAG);
        }
    }

    /** The fabric changed: the wait starts again once the change's tables converge. */
    void changed() {
        if (delayMs > 0) {
            queue.cancelDeferred(TAG);
        }
    }

    private void refine(long version) {
        ActiveRouting now = active.get();
        if (now == null || now.version() != version || !refinable.getAsBoolean() || busy.getAsBoolean()) {
            return; // another routing is in force or under way since the wait was armed: its convergence decides
        }
        LOG.debug("routing v{}: refining the repair's moved entries", version);
        refine.run();
    }
}
