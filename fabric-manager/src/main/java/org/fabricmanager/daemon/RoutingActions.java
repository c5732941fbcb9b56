package org.fabricmanager.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.DrainResult;
import org.fabricmanager.daemon.api.QualityView;
import org.fabricmanager.daemon.api.RebalanceEstimate;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.api.RoutingView;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.config.Rebalance;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.quality.QualityMonitor;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.whatif.RebalanceEstimator;
import org.fabricmanager.daemon.whatif.WhatIfService;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.RoutingException;

/**
 * What the daemon does with the routing in force besides routing changes: measuring its quality once its tables
 * converged ({@link QualityMonitor}), what-ifs ({@link WhatIfService}, and a rebalance's: {@link RebalanceEstimator}),
 * an operator's drains ({@link Maintenance}) and rebalances ({@link Rebalancer}, and the quiet-period policy:
 * {@link QuietRebalance}), repairs refined ({@link RepairRefinement}), and how far the routing in force is from a
 * full recompute. Wires them to the coordinator's
 * and the routing manager's observers; the analyses run on threads of their own, never the control thread.
 */
final class RoutingActions implements AutoCloseable {
    /** What the actions are built from. */
    record Parts(Rebalance rebalance, ControlLoop queue, MilestoneLog milestones,
                 FabricCoordinator coordinator, FabricCoordinator.Managers managers, Drains drains, RoutingService routing,
                 MeterRegistry registry) {
    }

    private final ControlLoop queue;
    private final RoutingManager routingManager;
    private final QualityMonitor quality;
    /** Applies what-if failures and analyses their routing, off the control thread. */
    private final ExecutorService whatIfExecutor;
    private final WhatIfService whatIfs;
    private final Maintenance maintenance;
    private final RebalanceEstimator estimator;
    private final RoutingService routing;
    private final Rebalancer rebalancer;

    RoutingActions(Parts p) {
        this.queue = p.queue();
        this.routingManager = p.managers().routing();
        // analyses share the host with the routing of the next fault: half the processors, routing first
        int analysisThreads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        this.quality = new QualityMonitor(analysisThreads, p.registry());
        this.estimator = new RebalanceEstimator(p.routing(), analysisThreads);
        this.routing = p.routing();
        this.rebalancer = new Rebalancer(p.milestones(), p.coordinator(), p.managers());
        Rebalance policy = p.rebalance();
        QuietRebalance quiet = new QuietRebalance(p.queue(), policy.quietPeriodMs(), policy.quietPeriod(),
                routingManager::active, rebalancer::rebalance);
        long refineAfterMs = p.routing().repairs() ? policy.refineAfterMs() : 0;
        routingManager.refinesRepairs(refineAfterMs > 0);
        RepairRefinement refinement = new RepairRefinement(p.queue(), refineAfterMs, routingManager::active,
                routingManager::refinable, () -> routingManager.busy() || routingManager.hasPrepared(), () -> {
                    routingManager.refineNext();
                    p.coordinator().fabricChanged();
                });
        routingManager.onInstalled(r -> {
            quality.installed(r);
            estimator.installed(r);
        });
        p.coordinator().onConverged(r -> {
            quality.measure(r);
            quiet.converged(r);
            refinement.converged(r);
        });
        p.coordinator().onFabricChanging(() -> {
            quality.fabricChanging();
            estimator.fabricChanging();
            quiet.changed();
            refinement.changed();
        });
        p.coordinator().onRoutingEnded(rebalancer);
        // how far a repair is from a full recompute: after its quality, so that the two never share the cores, and
        // given up as soon as the fabric changes (GET /api/v1/routing shows it)
        quality.onMeasured((r, q) -> {
            if (estimatedInBackground(r)) {
                estimator.estimate(r, q);
            }
        });
        this.whatIfExecutor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fm-whatif");
            t.setDaemon(true);
            return t;
        });
        this.whatIfs = new WhatIfService(p.routing(), whatIfExecutor, analysisThreads);
        this.maintenance = new Maintenance(p.queue(), p.milestones(), p.coordinator(), p.managers(), p.drains(),
                whatIfs);
    }

    /** The drains' and isolations' path, for the gray-link policy. */
    Maintenance maintenance() {
        return maintenance;
    }

    CompletableFuture<DrainResult> drain(DrainRequest request) {
        return maintenance.drain(request);
    }

    CompletableFuture<DrainResult> undrain(DrainRequest request) {
        return maintenance.undrain(request);
    }

    /** A what-if of failures, or of a rebalance ({@link #whatIfRebalance}) for {@link WhatIfRequest#rebalance()}. */
    CompletableFuture<WhatIfResult> whatIf(WhatIfRequest request) {
        return queue.call("whatif", () -> whatIfs.start(routingManager.active(), request)).thenCompose(f -> f);
    }

    /** What a rebalance would change and gain (computed once per routing version). */
    CompletableFuture<RebalanceEstimate> whatIfRebalance() {
        return queue.call("whatif rebalance", () -> {
            ActiveRouting active = routingManager.active();
            if (active == null) {
                throw new WhatIfException(WhatIfException.Kind.NOT_ROUTED, "the fabric has not been routed yet: there"
                        + " are no tables to compare with");
            }
            return estimator.estimate(active, quality.view().quality());
        }).thenCompose(f -> f).handle((estimate, error) -> {
            if (error == null) {
                return estimate;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof AbandonedException) {
                throw new WhatIfException(WhatIfException.Kind.BUSY, "the routing in force changed while the rebalance"
                        + " was estimated: ask again");
            }
            if (cause instanceof RoutingException) {
                throw new WhatIfException(WhatIfException.Kind.REFUSED, "the engine cannot route the fabric in full: "
                        + cause.getMessage());
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    /** An operator's rebalance: completes once its routing is installed. */
    CompletableFuture<RebalanceResult> rebalance() {
        return queue.call("rebalance", () -> rebalancer.rebalance("operator")).thenCompose(f -> f);
    }

    /** {@code GET /api/v1/routing} (control thread): {@code routing} and how far it is from a full recompute. */
    RoutingView routingView(Views.Routing routing) {
        ActiveRouting a = routingManager.active();
        if (a == null) {
            return new RoutingView(routing, "none", null);
        }
        RebalanceEstimate known = estimator.known(a.version());
        String fromFull = !a.repaired() ? "full" : known != null ? "known"
                : estimator.computing(a.version()) ? "computing"
                : estimatedInBackground(a) ? "pending" : "onRequest";
        return new RoutingView(routing, fromFull, known);
    }

    /**
     * Whether the daemon estimates {@code r} by itself ({@link RebalanceEstimator#estimatedInBackground}), unless its
     * refinement is due: that routes the fabric in full too and replaces {@code r} a second later (any thread).
     */
    private boolean estimatedInBackground(ActiveRouting r) {
        return RebalanceEstimator.estimatedInBackground(r) && !routing.refinable(r.tables());
    }

    QualityView quality() {
        return quality.view();
    }

    /** Holds the background analyses (quality, then the rebalance estimate) until the hold is closed. */
    DaemonApi.Hold holdAnalyses() {
        return quality.hold();
    }

    @Override
    public void close() {
        quality.close();
        estimator.close();
        whatIfExecutor.shutdownNow();
    }
}
