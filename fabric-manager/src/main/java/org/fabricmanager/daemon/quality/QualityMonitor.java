package org.fabricmanager.daemon.quality;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.ToDoubleFunction;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.PatternFigures;
import org.fabricmanager.daemon.api.QualityView;
import org.fabricmanager.daemon.api.RoutingQuality;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.analysis.QualityFigures;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TableQuality;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures the quality of every routing in force ({@link TableQuality}: the figures of {@code quality
 * --lft} on the tables in force) on a background thread of its own, never the control thread, and keeps
 * the latest for REST and the {@code fabric.routing.*} gauges.
 *
 * <p>The daemon hands a routing over when its tables have converged ({@link #measure}), not when it is
 * installed ({@link #installed}): on a large fabric the measurement costs a core for tens of seconds (65,536
 * nodes: deadlock analysis, traced validity, path lengths, congestion), and measured during the push it took
 * three quarters of the daemon's CPU while the agents were still waiting for their tables. At most one
 * measurement runs and at most one routing waits: a routing converged meanwhile replaces the waiting one, and
 * the running measurement is abandoned between two analyses as soon as a newer routing is installed, so that
 * it never competes with the routing and push of a fault; so is a measurement under way when the fabric starts to
 * change ({@link #fabricChanging}), before the fault's routing is even computed. A version already measured is not
 * measured again.
 */
public final class QualityMonitor implements AutoCloseable {
    /** Gauge with tag {@value #PATTERN_TAG}: routes on the busiest switch-to-switch link under the pattern. */
    public static final String CONGESTION_MAX = "fabric.routing.congestion.max";
    /** Gauge with tag {@value #PATTERN_TAG} (shift, random): mean over the permutations of their maxima. */
    public static final String CONGESTION_MEAN = "fabric.routing.congestion.mean";
    /** Gauge: the routing version the quality gauges describe (0 before the first measurement). */
    public static final String VERSION = "fabric.routing.quality.version";
    /** Gauge: leaf pairs the tables in force do not connect (traced). */
    public static final String UNREACHABLE = "fabric.routing.quality.unreachable.pairs";
    /** Gauge: 1 when the tables' channel dependency graph is acyclic. */
    public static final String DEADLOCK_FREE = "fabric.routing.quality.deadlock.free";
    /** Gauge: the longest route, in switch-to-switch links. */
    public static final String MAX_PATH = "fabric.routing.quality.max.path";
    /** Timer: one routing's quality measurement. */
    public static final String DURATION = "fabric.routing.quality.duration";
    /** The tag naming the traffic pattern. */
    public static final String PATTERN_TAG = "pattern";

    private static final Logger LOG = LoggerFactory.getLogger(QualityMonitor.class);

    private final int threads;
    private final ExecutorService executor;
    private final Timer timer;
    /** The routing waiting to be measured (the newest installed not yet taken), or {@code null}. */
    private final AtomicReference<Handover> waiting = new AtomicReference<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    /** Holds taken ({@link #hold}): while any is held, a measurement waits instead of starting. */
    private final AtomicInteger holds = new AtomicInteger();
    private volatile RoutingQuality latest;
    /** The version being measured, 0 when none. */
    private volatile long measuring;
    /** The version installed last, 0 before the first. */
    private volatile long installed;
    /** Fabric changes seen ({@link #fabricChanging}): a measurement started before the last one gives way. */
    private final AtomicLong changes = new AtomicLong();
    /** Told of each measurement done, on the measuring thread (the rebalance estimate of a repair follows it). */
    private volatile BiConsumer<ActiveRouting, RoutingQuality> measured = (r, q) -> { };

    /**
     * @param threads analysis threads of one measurement; fewer than the routing pool's leave the routing of
     *                a fault room on a busy host
     */
    public QualityMonitor(int threads, MeterRegistry registry) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.threads = threads;
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fm-quality");
            t.setDaemon(true);
            return t;
        });
        this.timer = Timer.builder(DURATION).description("quality measurement of one routing's tables").register(registry);
        for (String pattern : List.of("shift", "random", "all2all")) {
            gauge(registry, CONGESTION_MAX, pattern, "routes on the busiest directed switch-to-switch link under the"
                    + " pattern, tables in force (NaN: not measured)", q -> {
                PatternFigures f = q.patterns().get(pattern);
                return f == null ? Double.NaN : f.max();
            });
            if (!pattern.equals("all2all")) {
                gauge(registry, CONGESTION_MEAN, pattern, "mean over the pattern's permutations of the busiest link's"
                        + " routes, tables in force (NaN: not measured)", q -> {
                    PatternFigures f = q.patterns().get(pattern);
                    return f == null || f.mean() == null ? Double.NaN : f.mean();
                });
            }
        }
        Gauge.builder(VERSION, () -> latest == null ? 0 : latest.routingVersion())
                .description("routing version the fabric.routing.quality and congestion gauges describe").register(registry);
        Gauge.builder(UNREACHABLE, () -> latest == null ? Double.NaN : latest.unreachableLeafPairs())
                .description("leaf pairs the tables in force do not connect").register(registry);
        Gauge.builder(DEADLOCK_FREE, () -> latest == null ? Double.NaN : latest.deadlockFree() ? 1 : 0)
                .description("1 when the tables' channel dependency graph is acyclic").register(registry);
        Gauge.builder(MAX_PATH, () -> latest == null || latest.maxPathLength() == null ? Double.NaN
                : latest.maxPathLength()).description("longest route of the tables in force, in switch-to-switch links")
                .register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String pattern, String description,
                       ToDoubleFunction<RoutingQuality> value) {
        Gauge.builder(name, () -> {
            RoutingQuality q = latest;
            return q == null ? Double.NaN : value.applyAsDouble(q);
        }).tag(PATTERN_TAG, pattern).description(description).register(registry);
    }

    /** {@code observer} is told of each routing measured and its quality, on the measuring thread (set once). */
    public void onMeasured(BiConsumer<ActiveRouting, RoutingQuality> observer) {
        measured = observer;
    }

    /**
     * {@code routing} is now the routing in force (any thread): the figures held describe an older one, and a
     * measurement of an older one still running is abandoned at its next step.
     */
    public void installed(ActiveRouting routing) {
        installed = Math.max(installed, routing.version());
    }

    /**
     * The fabric is changing (any thread; a fault or a report the daemon will route): the running measurement
     * is abandoned within about a millisecond of its work, so that the re-route and its push have the cores.
     * The routing in force is measured again, from the start, when tables converge next ({@link #measure}).
     */
    public void fabricChanging() {
        changes.incrementAndGet();
    }

    /**
     * Measures {@code routing}, whose tables have converged, in the background (any thread, returns at once);
     * nothing when it is no longer the routing in force or was measured already.
     */
    public void measure(ActiveRouting routing) {
        installed(routing);
        if (routing.version() < installed) {
            return;
        }
        RoutingQuality q = latest;
        if (q != null && q.routingVersion() == routing.version()) {
            return;
        }
        waiting.set(new Handover(routing, changes.get()));
        startIfFree();
    }

    /**
     * Holds measurements back (any thread) until the returned hold is closed: work that ends a routing after its
     * tables converged (the tables by LID answered to OpenSM) has both cores, instead of sharing one with the
     * measurement. A measurement already running goes on; one asked for meanwhile starts once every hold is closed.
     */
    public DaemonApi.Hold hold() {
        holds.incrementAndGet();
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true) && holds.decrementAndGet() == 0) {
                startIfFree();
            }
        };
    }

    /** Starts the drain of the waiting routing unless one runs or a hold is taken (both sides check after writing). */
    private void startIfFree() {
        if (holds.get() == 0 && waiting.get() != null && draining.compareAndSet(false, true)) {
            executor.execute(this::drain);
        }
    }

    private void drain() {
        while (true) {
            if (holds.get() > 0) {
                draining.set(false);
                // the hold's close starts a drain (startIfFree) unless it ran while this one was still flagged
                if (holds.get() > 0 || waiting.get() == null || !draining.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            Handover h = waiting.getAndSet(null);
            if (h == null) {
                draining.set(false);
                // a routing set after the getAndSet but before the flag was cleared has no drain to take it
                if (waiting.get() == null || !draining.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            measuring = h.routing().version();
            try {
                measureNow(h.routing(), h.changes());
            } catch (RuntimeException e) {
                LOG.warn("routing v{}: quality not measured: {}", h.routing().version(), e.toString());
            } finally {
                measuring = 0;
            }
        }
    }

    /** Measures {@code r}, giving up once a newer routing waits or the fabric changed after {@code changesAtHandover}. */
    private void measureNow(ActiveRouting r, long changesAtHandover) {
        long begin = System.nanoTime();
        BooleanSupplier superseded = () -> waiting.get() != null || installed > r.version()
                || changes.get() != changesAtHandover;
        RoutedFabric routed = RoutedFabric.of(r.fabric().index(), r.tables().tables());
        TableQuality quality = new TableQuality(routed, threads);
        QualityFigures figures = null;
        try {
            Validity validity = TracedValidity.of(routed, superseded);
            figures = quality.measure(validity, TableQuality.defaultPatterns(routed.attachedCount()), superseded);
        } catch (AbandonedException e) {
            // figures stay null: given up below
        }
        if (figures == null) {
            LOG.debug("routing v{}: quality measurement abandoned after {} ms for a newer routing or a fabric change",
                    r.version(), String.format("%.0f", (System.nanoTime() - begin) / 1e6));
            return;
        }
        long nanos = System.nanoTime() - begin;
        timer.record(nanos, TimeUnit.NANOSECONDS);
        RoutingQuality q = RoutingQuality.of(r.version(), r.engine(), figures, nanos / 1e6);
        latest = q;
        LOG.info("routing v{} quality measured in {} ms: {}{}", r.version(), String.format("%.0f", nanos / 1e6),
                q.valid() ? "valid" : q.unreachableLeafPairs() + " unreachable leaf pairs", summary(q));
        measured.accept(r, q);
    }

    /** A routing handed over for measurement, and the fabric changes seen by then. */
    private record Handover(ActiveRouting routing, long changes) {
    }

    private static String summary(RoutingQuality q) {
        StringBuilder sb = new StringBuilder();
        q.patterns().forEach((name, f) -> sb.append(", ").append(name).append(" max ").append(f.max())
                .append(f.mean() == null ? "" : " mean " + f.mean()));
        return sb.toString();
    }

    /** The latest quality and whether it describes the routing installed last (any thread). */
    public QualityView view() {
        RoutingQuality q = latest;
        long version = installed;
        return new QualityView(version, measuring != 0 || waiting.get() != null,
                q == null || q.routingVersion() != version, q);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
