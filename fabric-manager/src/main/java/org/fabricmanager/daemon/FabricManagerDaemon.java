package org.fabricmanager.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.AdminTokenFile;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.TrustedFiles;
import org.fabricmanager.daemon.control.EventQueue;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.RecognizingFabricChecker;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.opensm.OpenSmProvider;
import org.fabricmanager.daemon.rest.RestHttps;
import org.fabricmanager.daemon.rest.RestListener;
import org.fabricmanager.daemon.rest.RestRejections;
import org.fabricmanager.daemon.rest.RestServer;
import org.fabricmanager.daemon.store.StateDirectory;
import org.fabricmanager.daemon.store.StateDirectoryLock;
import org.fabricmanager.release.BuildInfo;
import org.fabricmanager.topology.TopologicalIndexer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running daemon's lifecycle: starts its parts ({@link DaemonAssembly}) in order (the state directory, then the
 * ports), applies a reload, and shuts them down in order (stop accepting, finish the control events, persist). Its
 * API is {@link #api()}, callable from any thread.
 */
public final class FabricManagerDaemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FabricManagerDaemon.class);

    // volatile: a reload (SIGHUP) swaps in the run-time changes
    private volatile DaemonConfig config;
    private final DaemonAssembly parts;
    private final EventQueue queue;
    private final FabricCoordinator coordinator;
    private final MilestoneLog milestones;
    private final ControlApi api;
    private final StateDirectoryLock stateLock;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Where agents connect; {@code null} with {@code southbound.enabled: false}. */
    private SouthboundPort southbound;
    /** OpenSM's plug-in's end ({@code opensm.socket}), or {@code null}; and whether OpenSM is there. */
    private OpenSmProvider opensm;
    private RestServer rest;
    /** The REST actions' bearer token ({@code rest.adminToken} or read from {@code rest.adminTokenFile}). */
    private volatile String adminToken;
    private InetSocketAddress restAddress;

    private FabricManagerDaemon(DaemonConfig config, StartOptions options, StateDirectoryLock stateLock) {
        this.config = config;
        this.stateLock = stateLock;
        this.adminToken = AdminTokenFile.resolve(config.rest());
        this.parts = new DaemonAssembly(config, options);
        this.queue = parts.queue;
        this.coordinator = parts.coordinator;
        this.milestones = parts.milestones;
        this.api = new ControlApi(parts, () -> adminToken);
    }

    /**
     * Starts a standalone daemon telling {@code listeners} of its events ({@link StartOptions#of}).
     *
     * @throws ConfigException for an unusable configuration (unknown engine, port in use, bad state directory)
     */
    public static FabricManagerDaemon start(DaemonConfig config, List<DaemonListener> listeners) throws InterruptedException {
        return start(config, StartOptions.of(listeners));
    }

    /**
     * Starts a daemon: loads the state directory, then listens for agents, OpenSM's plug-in and REST.
     *
     * @throws ConfigException for an unusable configuration (unknown engine, port in use, bad state directory)
     */
    public static FabricManagerDaemon start(DaemonConfig config, StartOptions options) throws InterruptedException {
        TrustedFiles.check(config);
        StateDirectory.prepare(config.state().path());
        StateDirectoryLock lock = StateDirectoryLock.acquire(config.state().path());
        FabricManagerDaemon d;
        try {
            d = new FabricManagerDaemon(config, options, lock);
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        try {
            d.queue.call("load-state", () -> {
                d.coordinator.loadState();
                return null;
            }).get();
            options.beforeListening().run();
            d.listen(options);
            return d;
        } catch (ExecutionException e) {
            d.close();
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException re ? re : new IllegalStateException(cause);
        } catch (RuntimeException | InterruptedException e) {
            d.close();
            throw e;
        }
    }

    /** Opens the southbound, REST and OpenSM's socket, and starts what runs beside the control thread. */
    private void listen(StartOptions options) throws InterruptedException {
        DaemonConfig config = this.config;
        MeterRegistry registry = parts.metrics.registry();
        if (config.southbound().enabled()) {
            southbound = SouthboundPort.open(config, options.managerTerm(), options.files(), parts.sessions, registry);
        } else {
            LOG.info("southbound disabled (southbound.enabled: false): no agent can connect, no TLS file is read for it");
        }
        rest = new RestServer(RestListener.of(config.rest(), RestHttps.context(config.rest().tls()),
                new RestRejections(registry, 10_000, System::currentTimeMillis)), config.rest().ioThreads(), api,
                parts.metrics::scrape, options.restExtensions());
        InetSocketAddress http = bind("rest", config.rest().bind(), config.rest().port(), rest::start);
        restAddress = InetSocketAddress.createUnresolved(config.rest().bind(), http.getPort());
        queue.append("gauges", parts.gauges::refresh);
        queue.append("port counters", parts.counters.poller()::tick);
        if (config.opensm().enabled()) {
            opensm = OpenSmProvider.start(config.opensm(), parts.sessions, api, parts.opensmLiveness, registry,
                    (kind, message, details) -> queue.append("opensm-event", () -> milestones.record(kind, message,
                            details)));
        }
        queue.append("started", () -> milestones.record(Milestone.Kind.STARTED, BuildInfo.current().describe()
                + " started: " + (southbound == null ? "no southbound" : "agents on "
                + southbound.address().getHostString() + ":" + southbound.address().getPort()) + ", REST on "
                + rest.scheme() + "://" + restAddress.getHostString() + ":" + restAddress.getPort()
                + "/api/v1/status, engine " + parts.routing.engineName()
                + (config.fabric().expectedPgft() == null ? "" : ", expecting " + config.fabric().expectedPgft())));
        // while the agents connect: the first discovery's and routing's code compiled before they need it
        StartRehearsal.startIfWorthIt(config.fabric().expectedSpec(), parts.expectedFabric, parts.routing.engineName(),
                new RecognizingFabricChecker(), TopologicalIndexer::order,
                () -> coordinator.state() == DaemonState.DISCOVERING);
    }

    /** The daemon's API: queries and actions, each served on the control thread (any thread may call). */
    public DaemonApi api() {
        return api;
    }
    interface Binder {
        InetSocketAddress bind() throws InterruptedException;
    }

    static InetSocketAddress bind(String what, String host, int port, Binder binder) throws InterruptedException {
        try {
            return binder.bind();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new ConfigException("cannot listen for " + what + " on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Records an event that happened outside the control loop (a hot standby's leadership moved here because of OpenSM),
     * in order with the loop's own.
     */
    public void recordEvent(Milestone.Kind kind, String message) {
        queue.append("external-event", () -> milestones.record(kind, message));
    }

    public DaemonConfig config() {
        return config;
    }

    /**
     * Where agents connect (with the actual port when 0 was configured); {@code null} with
     * {@code southbound.enabled: false}.
     */
    public InetSocketAddress southboundAddress() {
        return southbound == null ? null : southbound.address();
    }

    /** Where REST listens (with the actual port when 0 was configured). */
    public InetSocketAddress restAddress() {
        return restAddress;
    }

    /**
     * Southbound sessions whose close the control thread has handled (tests and diagnostics: after this counts
     * a peer's close, anything that close was going to start has started, or never will).
     */
    public long sessionClosesHandled() {
        return parts.sessions.closesHandled();
    }

    /** The REST base URL, e.g. {@code http://127.0.0.1:7680}. */
    public String restUrl() {
        return rest.scheme() + "://" + restAddress.getHostString() + ":" + restAddress.getPort();
    }

    /** The state as of the last control event (any thread, no waiting). */
    public DaemonState state() {
        return coordinator.state();
    }

    /**
     * Where components register meters (exported on {@code /metrics}); the ring detector's member in
     * the daemon takes this registry.
     */
    public MeterRegistry registry() {
        return parts.metrics.registry();
    }

    /** The fault-reaction meters and the Prometheus export. */
    public DaemonMetrics metrics() {
        return parts.metrics;
    }

    /** Routing computations since start (0 when stored routing was reused). */
    public CompletableFuture<Long> computations() {
        return queue.call("computations", parts.routingManager::computations);
    }

    /**
     * Applies what can change at run time from a configuration just read (SIGHUP): the admin token, the
     * settle windows and the flap quarantine knobs ({@link ConfigReload}); the rest is reported as needing a
     * restart. Completes once the control thread uses the new values.
     */
    public CompletableFuture<ConfigReload> reload(DaemonConfig read) {
        return queue.call("reload", () -> {
            // the token file is read again (rotated tokens take effect); a bad one refuses the whole reload
            String token = AdminTokenFile.resolve(read.rest());
            ConfigReload plan = ConfigReload.plan(config, read);
            if (!Objects.equals(token, adminToken) && read.rest().adminTokenFile() != null) {
                List<String> changed = new ArrayList<>(plan.changed());
                changed.add("admin token read from " + read.rest().adminTokenFile() + ": another");
                plan = new ConfigReload(plan.effective(), changed, plan.needRestart());
            }
            adminToken = token;
            parts.reloaded(plan);
            config = plan.effective();
            return plan;
        });
    }

    /** Stops accepting, closes every session, runs the remaining control events and persists. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return; // closed already: a second close (a test's, a shutdown hook's) has nothing left to stop
        }
        long begin = System.nanoTime();
        DaemonState at = coordinator.state();
        LOG.info("fabric-manager stopping (state {}){}", at, at == DaemonState.PUSHING || at == DaemonState.ROUTING
                ? ": the unfinished re-route/push is abandoned; switches keep the tables they hold and the next start"
                + " completes it" : "");
        if (rest != null) {
            rest.close();
        }
        queue.append("stopping", coordinator::stopping);
        parts.counters.poller().stop();
        if (opensm != null) {
            opensm.close();
        }
        if (southbound != null) {
            southbound.close();
        }
        queue.close();
        parts.routing.close();
        parts.actions.close();
        parts.linkLoads.close();
        parts.checkExecutor.shutdownNow();
        parts.healthExecutor.shutdownNow();
        parts.storeExecutor.shutdown();
        try {
            if (!parts.storeExecutor.awaitTermination(60, TimeUnit.SECONDS)) {
                LOG.error("stored routing not written within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        parts.metrics.close();
        // last: the stored routing is written, another daemon may now take the directory
        stateLock.close();
        LOG.info("fabric-manager stopped in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
    }
}
