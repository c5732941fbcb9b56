package org.fabricmanager.daemon;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quiet-period policy ({@code routing.rebalance.quietPeriod}): once tables that are a repair have converged and
 * the fabric has not changed for the quiet period, the routing is rebalanced by itself (one {@code REBALANCED}
 * event). Any change of the fabric restarts the wait at the next convergence; tables routed in full (a rebalance, an
 * undrain, tables reused after a restart or a takeover) do not arm it. A deferred action of the control loop, not a
 * timer of its own: tests drive it with virtual time. Control thread only.
 */
final class QuietRebalance {
    /** The deferred action's tag. */
    static final String TAG = "rebalance-quiet-period";
    private static final Logger LOG = LoggerFactory.getLogger(QuietRebalance.class);

    private final ControlLoop queue;
    private final long quietMs;
    private final String text;
    private final Supplier<ActiveRouting> active;
    private final Function<String, CompletableFuture<RebalanceResult>> rebalance;

    /**
     * @param quietMs   the quiet period, 0 for off
     * @param text      the quiet period as configured ({@code 30m}), for the event
     * @param active    the routing in force
     * @param rebalance starts a rebalance with a reason ({@link Rebalancer#rebalance})
     */
    QuietRebalance(ControlLoop queue, long quietMs, String text, Supplier<ActiveRouting> active,
                   Function<String, CompletableFuture<RebalanceResult>> rebalance) {
        this.queue = queue;
        this.quietMs = quietMs;
        this.text = text;
        this.active = active;
        this.rebalance = rebalance;
    }

    /** The tables of {@code routing} converged: a repair arms the wait, anything else disarms it. */
    void converged(ActiveRouting routing) {
        if (quietMs <= 0) {
            return;
        }
        if (routing.repaired()) {
            long version = routing.version();
            queue.scheduleDeferred(TAG, quietMs, () -> quiet(version));
        } else {
            queue.cancelDeferred(TAG);
        }
    }

    /** The fabric changed: the wait starts again once the change's tables converge. */
    void changed() {
        if (quietMs > 0) {
            queue.cancelDeferred(TAG);
        }
    }

    private void quiet(long version) {
        ActiveRouting now = active.get();
        if (now == null || now.version() != version || !now.repaired()) {
            return; // another routing is in force since the wait was armed: its own convergence decides
        }
        LOG.info("routing v{} has been a repair with no change for {}: rebalancing", version, text);
        CompletableFuture<RebalanceResult> started;
        try {
            started = rebalance.apply("quiet period of " + text);
        } catch (RuntimeException e) {
            LOG.info("no rebalance after the quiet period: {}", e.getMessage());
            return;
        }
        started.whenComplete((r, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause()
                        : error;
                LOG.warn("the quiet period's rebalance failed: {}", cause.getMessage());
            }
        });
    }
}
