package org.fabricmanager.daemon.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.release.BuildInfo;

/**
 * The daemon's operator-facing meters beyond those its components register themselves, and the
 * registry they are exported from. The fault reaction records into {@link #faultToConverged} (timer
 * {@value #FAULTS_CONVERGED}: first fault event to the last acknowledgement of the tables that route
 * around it) and {@link #fault} (counter {@value #FAULTS} tagged with the fault type). One instance
 * per daemon ({@code FabricManagerDaemon.metrics()}); every method is thread-safe.
 *
 * <p>Whatever registry the daemon is given, its meters are also kept in a Prometheus registry so that
 * {@code GET /metrics} always answers; the JVM meters (memory, GC, threads, CPU, uptime) are bound once
 * there. Other components (the ring detector) register into {@link #registry()}.
 */
public final class DaemonMetrics implements AutoCloseable {
    /** Timer: first fault event of a reaction to the last switch acknowledging the new tables. */
    public static final String FAULTS_CONVERGED = "fabric.faults.converged";
    /** Timer: an operator's forced re-route to the last switch acknowledging its tables (not a fault). */
    public static final String REROUTES_CONVERGED = "fabric.reroutes.converged";
    /** Counter with tag {@value #TYPE_TAG}: faults the daemon learned of. */
    public static final String FAULTS = "fabric.faults";
    /** Counter with tag {@value #TYPE_TAG}: recoveries (a link back up, a switch back). */
    public static final String RECOVERIES = "fabric.recoveries";
    /** Gauge with tag {@code verdict}: 1 for the last expected-shape verdict, 0 for the others. */
    public static final String VERDICT = "fabric.discovery.verdict";
    /** Gauge with tag {@code state}: 1 for the daemon's current state, 0 for the others. */
    public static final String STATE = "fabric.daemon.state";
    /** Gauge, constant 1, tagged with the running release's {@code version} and {@code commit}. */
    public static final String BUILD_INFO = "fabric.build.info";
    /** The tag naming the kind of fault or recovery. */
    public static final String TYPE_TAG = "type";

    /** What failed (or recovered); the tag value is the lower-case name. */
    public enum FaultType {
        /** A link went down: PORT_STATUS from either end, or the detector. */
        LINK,
        /** A switch died or became unmanageable: ring detector or lost session. */
        SWITCH;

        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final MeterRegistry registry;
    private final PrometheusMeterRegistry prometheus;
    private final JvmGcMetrics gc;
    private final Timer faultToConverged;
    private final Timer rerouteToConverged;
    private final Map<FaultType, Counter> faults = new EnumMap<>(FaultType.class);
    private final Map<FaultType, Counter> recoveries = new EnumMap<>(FaultType.class);

    /**
     * @param given where the caller wants meters (a {@link PrometheusMeterRegistry} is used as is; any
     *              other registry, e.g. a test's {@code SimpleMeterRegistry}, gets every meter too)
     */
    public DaemonMetrics(MeterRegistry given) {
        if (given instanceof PrometheusMeterRegistry p) {
            this.prometheus = p;
            this.registry = p;
        } else {
            this.prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            CompositeMeterRegistry composite = new CompositeMeterRegistry();
            composite.add(given);
            composite.add(prometheus);
            this.registry = composite;
        }
        new JvmMemoryMetrics().bindTo(prometheus);
        this.gc = new JvmGcMetrics();
        gc.bindTo(prometheus);
        new JvmThreadMetrics().bindTo(prometheus);
        new ProcessorMetrics().bindTo(prometheus);
        new UptimeMetrics().bindTo(prometheus);
        this.faultToConverged = Timer.builder(FAULTS_CONVERGED)
                .description("first fault event of a reaction to the last switch acknowledging the re-routed tables")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(2))
                .register(registry);
        // the release running, as Prometheus "info" metrics do it: constant 1, the facts in the tags
        BuildInfo build = BuildInfo.current();
        Gauge.builder(BUILD_INFO, () -> 1).tag("version", build.version()).tag("commit", build.commitLabel())
                .description("1; the tags name the fabric-manager release running").register(registry);
        this.rerouteToConverged = Timer.builder(REROUTES_CONVERGED)
                .description("an operator's forced re-route to the last switch acknowledging its tables")
                .register(registry);
        for (FaultType t : FaultType.values()) {
            faults.put(t, Counter.builder(FAULTS).tag(TYPE_TAG, t.tag()).description("faults the daemon learned of")
                    .register(registry));
            recoveries.put(t, Counter.builder(RECOVERIES).tag(TYPE_TAG, t.tag())
                    .description("recoveries the daemon learned of").register(registry));
        }
    }

    /** A registry for a daemon that exports nothing else: Prometheus. */
    public static MeterRegistry newRegistry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /** Where components register their meters (the ring detector included). */
    public MeterRegistry registry() {
        return registry;
    }

    /** Registers the per-state gauge over a state source read at scrape time. */
    public void bindState(Supplier<DaemonState> state) {
        for (DaemonState s : DaemonState.values()) {
            Gauge.builder(STATE, () -> state.get() == s ? 1 : 0).tag("state", s.name())
                    .description("1 for the daemon's current state").register(registry);
        }
    }

    /**
     * Registers the per-verdict gauge of the expected-shape check ({@code fabric.discovery.verdict}), read at
     * scrape time, so that an alert can fire on MISWIRED without parsing logs.
     */
    public void bindVerdict(Supplier<FabricCheck.Verdict> verdict) {
        for (FabricCheck.Verdict v : FabricCheck.Verdict.values()) {
            Gauge.builder(VERDICT, () -> verdict.get() == v ? 1 : 0).tag("verdict", v.name())
                    .description("1 for the verdict of the last check of the fabric against fabric.expectedPgft")
                    .register(registry);
        }
    }

    /** Records one reaction: first fault event to the last acknowledgement, in milliseconds. */
    public void faultToConverged(double millis) {
        faultToConverged.record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    /** Records one operator-forced re-route: request to the last acknowledgement, in milliseconds. */
    public void rerouteToConverged(double millis) {
        rerouteToConverged.record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    /** Counts a fault the daemon learned of. */
    public void fault(FaultType type) {
        faults.get(type).increment();
    }

    /** Counts a recovery (link back up, switch rejoined). */
    public void recovery(FaultType type) {
        recoveries.get(type).increment();
    }

    /** The Prometheus text exposition of every meter (format 0.0.4). */
    public String scrape() {
        return prometheus.scrape();
    }

    @Override
    public void close() {
        gc.close();
    }
}
