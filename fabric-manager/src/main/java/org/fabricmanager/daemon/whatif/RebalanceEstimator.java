package org.fabricmanager.daemon.whatif;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.api.PatternFigures;
import org.fabricmanager.daemon.api.RebalanceEstimate;
import org.fabricmanager.daemon.api.RoutingQuality;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.QualityFigures;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TableQuality;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far the routing in force is from a full recompute ({@link RebalanceEstimate}): the engine routes the fabric in
 * force from scratch on the routing thread ({@link RoutingService#whatIf}, between real routings), and the comparison
 * with the tables in force and the quality of both run on a thread of its own. One estimate per routing version is
 * kept: a rebalance's what-if and {@code GET /api/v1/routing} read it, and only the first asks computes it. An
 * estimate under way is abandoned between two analyses once a newer routing is installed or the fabric changes
 * ({@link #installed}, {@link #fabricChanging}), so that it never competes with a fault's routing and push; the
 * next ask computes it again.
 */
public final class RebalanceEstimator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RebalanceEstimator.class);

    private final RoutingService routing;
    private final int threads;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fm-rebalance-estimate");
        t.setDaemon(true);
        return t;
    });
    /** The estimate of one routing version, done or under way. */
    private final AtomicReference<Kept> kept = new AtomicReference<>();
    private final AtomicLong installed = new AtomicLong();
    private final AtomicLong changes = new AtomicLong();

    private record Kept(long version, CompletableFuture<RebalanceEstimate> estimate) {
    }

    /**
     * Table entries (switches x destinations) up to which the daemon estimates a repair by itself, after its quality
     * measurement: the full routing runs on the routing thread, where a fault's routing would wait for it, and grows
     * with the tables (tens of milliseconds at 768 switches x 4,096 nodes, a second or more at 5,120 x 65,536:
     * docs/performance.md, "Repairs refined"). Larger fabrics are estimated when an operator asks (the rebalance's
     * what-if).
     */
    public static final long BACKGROUND_MAX_ENTRIES = 1L << 24;

    /** @param threads analysis threads of one estimate */
    public RebalanceEstimator(RoutingService routing, int threads) {
        this.routing = routing;
        this.threads = threads;
    }

    /** {@code routing} is the routing in force now (any thread): an estimate of an older one gives way. */
    public void installed(ActiveRouting active) {
        installed.accumulateAndGet(active.version(), Math::max);
    }

    /** The fabric is changing (any thread): an estimate under way gives way to its routing. */
    public void fabricChanging() {
        changes.incrementAndGet();
    }

    /**
     * The estimate for {@code active}, the routing in force (computed once per version; a failed or abandoned one is
     * computed again). {@code measured}, the quality of the tables in force when known ({@code null}, or of another
     * version: measured here).
     *
     * @return fails with {@link org.fabricmanager.routing.AbandonedException} when the routing in force changed
     *         meanwhile, with {@link org.fabricmanager.routing.RoutingException} when the engine refuses the fabric
     */
    public CompletableFuture<RebalanceEstimate> estimate(ActiveRouting active, RoutingQuality measured) {
        installed(active);
        while (true) {
            Kept k = kept.get();
            if (k != null && k.version() == active.version() && !k.estimate().isCompletedExceptionally()) {
                return k.estimate();
            }
            CompletableFuture<RebalanceEstimate> mine = new CompletableFuture<>();
            if (kept.compareAndSet(k, new Kept(active.version(), mine))) {
                try {
                    start(active, measured, mine);
                } catch (RuntimeException e) {
                    mine.completeExceptionally(e); // the routing thread refused it (stopping): the next ask tries again
                }
                return mine;
            }
        }
    }

    /** The estimate of {@code version} when it is done, else {@code null} (any thread, no waiting). */
    public RebalanceEstimate known(long version) {
        Kept k = kept.get();
        return k != null && k.version() == version && k.estimate().isDone() && !k.estimate().isCompletedExceptionally()
                ? k.estimate().join() : null;
    }

    /** True when the daemon estimates {@code active} by itself after its quality measurement (a repair, not too large). */
    public static boolean estimatedInBackground(ActiveRouting active) {
        return active.repaired()
                && (long) active.tables().rowCount() * active.tables().length() <= BACKGROUND_MAX_ENTRIES;
    }

    /** True while the estimate of {@code version} is under way. */
    public boolean computing(long version) {
        Kept k = kept.get();
        return k != null && k.version() == version && !k.estimate().isDone();
    }

    private void start(ActiveRouting active, RoutingQuality measured, CompletableFuture<RebalanceEstimate> into) {
        long changesAtStart = changes.get();
        BooleanSupplier superseded = () -> installed.get() > active.version() || changes.get() != changesAtStart;
        long begin = System.nanoTime();
        routing.whatIf(active.fabric())
                .thenApplyAsync(full -> analyse(active, measured, full, (System.nanoTime() - begin) / 1e6, superseded),
                        executor)
                .whenComplete((estimate, error) -> {
                    if (error != null) {
                        into.completeExceptionally(error);
                    } else {
                        into.complete(estimate);
                    }
                });
    }

    private RebalanceEstimate analyse(ActiveRouting active, RoutingQuality measured, RoutingResult full,
                                      double routingMs, BooleanSupplier superseded) {
        long begin = System.nanoTime();
        TableChanges changes = TableChanges.between(active.tables(), full.tables());
        RoutedFabric after = RoutedFabric.of(active.fabric().index(), full.tables());
        List<TrafficPattern> patterns = TableQuality.defaultPatterns(after.attachedCount());
        Map<String, PatternFigures> afterFigures = figures(new TableQuality(after, threads)
                .measure(full.validity(), patterns, superseded));
        Map<String, PatternFigures> beforeFigures;
        if (changes.entries() == 0) {
            beforeFigures = afterFigures; // the same tables
        } else if (measured != null && measured.routingVersion() == active.version()) {
            beforeFigures = measured.patterns();
        } else {
            RoutedFabric now = RoutedFabric.of(active.fabric().index(), active.tables().tables());
            beforeFigures = figures(new TableQuality(now, threads).measure(TracedValidity.of(now, superseded),
                    patterns, superseded));
        }
        double analysisMs = (System.nanoTime() - begin) / 1e6;
        RebalanceEstimate e = new RebalanceEstimate(active.version(), full.engine(), active.repaired(),
                changes.entries(), changes.blocks(), changes.switchesTouched(), full.validity().isValid(),
                full.validity().unreachablePairs(), beforeFigures, afterFigures, routingMs, analysisMs);
        LOG.info("v{} against a full {} routing: {} entries in {} blocks on {} switches differ; {} (routed in {} ms,"
                        + " analysed in {} ms)", active.version(), full.engine(), e.changedEntries(), e.changedBlocks(),
                e.switchesTouched(), gain(e), String.format("%.1f", routingMs), String.format("%.1f", analysisMs));
        return e;
    }

    /** The figures of {@code q}; {@code null} means the measurement was abandoned for a newer routing or a fault. */
    private static Map<String, PatternFigures> figures(QualityFigures q) {
        if (q == null) {
            throw new WhatIfException(WhatIfException.Kind.BUSY, "the routing in force changed while its rebalance was"
                    + " estimated: ask again once the fabric has converged");
        }
        Map<String, PatternFigures> out = new LinkedHashMap<>();
        for (PatternCongestion c : q.patterns()) {
            out.put(c.pattern().name(), PatternFigures.of(c));
        }
        return out;
    }

    /** "all2all max 48 -> 40, random max 6 -> 5", per pattern measured both ways. */
    static String gain(RebalanceEstimate e) {
        StringBuilder sb = new StringBuilder();
        e.after().forEach((name, after) -> {
            PatternFigures before = e.before().get(name);
            if (before != null) {
                sb.append(sb.length() == 0 ? "" : ", ").append(name).append(" max ").append(before.max())
                        .append(" -> ").append(after.max());
            }
        });
        return sb.length() == 0 ? "no pattern measured" : sb.toString();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
