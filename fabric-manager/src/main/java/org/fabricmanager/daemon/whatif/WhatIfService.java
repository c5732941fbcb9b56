package org.fabricmanager.daemon.whatif;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fabricmanager.daemon.api.PatternFigures;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.QualityFigures;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TableQuality;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.topology.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs what-ifs, one at a time: the failures are applied to the fabric of the routing in force and the
 * degraded fabric is routed by the live engine on the routing thread as a real fault would be ({@link
 * RoutingService#whatIfFault}: repaired with {@code routing.onFault: repair}, with the churn a REACTION reports,
 * else from scratch; between real routings); the failures, the comparison with the tables in force and the quality
 * analysis run on the what-if executor. Nothing here writes daemon state: the routing in force, its
 * version, the stored routing and the pushed tables are never touched. A second what-if while one runs is
 * refused ({@link WhatIfException.Kind#BUSY}) rather than queued.
 */
public final class WhatIfService {
    /**
     * The traffic patterns of a what-if: those of {@code quality} but shift, whose N-1 permutations cost
     * O(N^2 x path length), seconds at 4,096 nodes on a small host: too slow for an answer an operator waits
     * for (the quality measured after each routing has it).
     */
    public static final List<TrafficPattern> PATTERNS = List.of(
            new TrafficPattern.RandomPermutations(TableQuality.RANDOM_PERMUTATIONS, TrafficPattern.DEFAULT_SEED),
            new TrafficPattern.AllToAll());

    private static final Logger LOG = LoggerFactory.getLogger(WhatIfService.class);

    private final RoutingService routing;
    private final Executor executor;
    private final int threads;
    private final AtomicBoolean running = new AtomicBoolean();

    /**
     * @param executor where failures are applied and results analysed (not the control thread)
     * @param threads  analysis threads of one what-if
     */
    public WhatIfService(RoutingService routing, Executor executor, int threads) {
        this.routing = routing;
        this.executor = executor;
        this.threads = threads;
    }

    /**
     * Starts a what-if against {@code active}, the routing in force (read on the control thread: the
     * routing and its fabric are immutable snapshots).
     *
     * @throws WhatIfException when nothing is routed yet or another what-if runs; the future fails with one
     *                         for a request that names what the fabric lacks or a fabric the engine refuses
     */
    public CompletableFuture<WhatIfResult> start(ActiveRouting active, WhatIfRequest request) {
        if (active == null) {
            throw new WhatIfException(WhatIfException.Kind.NOT_ROUTED, "the fabric has not been routed yet: there are"
                    + " no tables to compare with");
        }
        if (request.rebalance()) {
            throw new WhatIfException(WhatIfException.Kind.BAD_REQUEST, "a rebalance's what-if is answered by the"
                    + " rebalance estimate (DaemonApi.whatIfRebalance), not by a routing of failures");
        }
        if (!running.compareAndSet(false, true)) {
            throw new WhatIfException(WhatIfException.Kind.BUSY, "a what-if is already running (one at a time);"
                    + " ask again when it has answered");
        }
        CompletableFuture<WhatIfResult> result;
        try {
            result = CompletableFuture.supplyAsync(() -> WhatIfFailures.apply(active.fabric(), request), executor)
                    .thenCompose(degraded -> {
                        long begin = System.nanoTime();
                        return routing.whatIfFault(degraded, active.tables()).thenApplyAsync(r -> analyse(active,
                                request, degraded, r, (System.nanoTime() - begin) / 1e6), executor);
                    });
        } catch (RuntimeException e) {
            // the executor refused the task (shutting down): nothing runs, the next may try
            running.set(false);
            throw e;
        }
        return result.handle((r, error) -> {
            running.set(false);
            if (error == null) {
                return r;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RoutingException) {
                throw new WhatIfException(WhatIfException.Kind.REFUSED, "engine " + active.engine()
                        + " cannot route the fabric after these failures: " + cause.getMessage());
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    private WhatIfResult analyse(ActiveRouting active, WhatIfRequest request, Fabric degraded,
                                 RoutingService.FaultRouting routed, double routingMs) {
        long begin = System.nanoTime();
        RoutingResult result = routed.result();
        TableChanges changes = TableChanges.between(active.tables(), result.tables());
        QualityFigures figures = new TableQuality(RoutedFabric.of(degraded.index(), result.tables()), threads).measure(result.validity(), PATTERNS, () -> false);
        Map<String, PatternFigures> congestion = new LinkedHashMap<>();
        for (PatternCongestion c : figures.patterns()) {
            congestion.put(c.pattern().name(), PatternFigures.of(c));
        }
        double analysisMs = (System.nanoTime() - begin) / 1e6;
        WhatIfResult r = new WhatIfResult(active.version(), result.engine(), request.switches().size(),
                request.links().size(), changes.entries(), changes.blocks(), changes.switchesTouched(),
                result.validity().isValid(), result.validity().unreachablePairs(), figures.deadlockFree(),
                figures.maxPathLength() < 0 ? null : figures.maxPathLength(), congestion, routingMs, analysisMs,
                routed.churn() != null, routed.churn() == null ? null : routed.churn().minimumEntries());
        LOG.info("what-if on v{} ({} switch(es), {} link(s) failed): {} entries in {} blocks on {} switches would change"
                        + "{}, {}; {} in {} ms, analysed in {} ms", active.version(), r.failedSwitches(), r.failedLinks(),
                r.changedEntries(), r.changedBlocks(), r.switchesTouched(),
                r.minimumEntries() == null ? "" : " (minimum " + r.minimumEntries() + ")",
                r.valid() ? "valid" : r.unreachableLeafPairs() + " unreachable leaf pairs",
                r.repaired() ? "repaired" : "routed", String.format("%.1f", routingMs), String.format("%.1f", analysisMs));
        return r;
    }
}
