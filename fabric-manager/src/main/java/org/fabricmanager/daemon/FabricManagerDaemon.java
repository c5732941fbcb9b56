package org.fabricmanager.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.DrainResult;
import org.fabricmanager.daemon.api.FabricGraph;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.LinkLoad;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.PortCountersView;
import org.fabricmanager.daemon.api.QualityView;
import org.fabricmanager.daemon.api.RebalanceEstimate;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.api.RoutingView;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.config.AdminTokenFile;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.TrustedFiles;
import org.fabricmanager.daemon.control.EventQueue;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.counters.PortCounterService;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.discovery.DiscoverySettings;
import org.fabricmanager.daemon.discovery.DiscoverySources;
import org.fabricmanager.daemon.discovery.RecognizingFabricChecker;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.faults.FaultDependencies;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.opensm.OpenSmLiveness;
import org.fabricmanager.daemon.opensm.OpenSmProvider;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.registry.AdmissionPolicy;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.rest.RestExtension;
import org.fabricmanager.daemon.rest.RestHttps;
import org.fabricmanager.daemon.rest.RestListener;
import org.fabricmanager.daemon.rest.RestRejections;
import org.fabricmanager.daemon.rest.RestServer;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.PendingSwitchStore;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.store.StateDirectory;
import org.fabricmanager.daemon.store.StateDirectoryLock;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.view.DaemonViews;
import org.fabricmanager.daemon.view.FabricGraphView;
import org.fabricmanager.daemon.view.HandedReads;
import org.fabricmanager.daemon.view.LinkLoadService;
import org.fabricmanager.daemon.view.ViewSources;
import org.fabricmanager.release.BuildInfo;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.vtftr.VtftrEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.TopologicalIndexer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running daemon: wires the control thread, the stores, the routing service, the southbound
 * server and REST, and shuts them down in order (stop accepting, finish the control events, persist).
 * Built by {@link #start}; the {@link DaemonApi} methods query it from any thread.
 */
public final class FabricManagerDaemon implements DaemonApi, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FabricManagerDaemon.class);

    // volatile: a reload (SIGHUP) swaps in the run-time changes; REST threads read the admin token from it
    private volatile DaemonConfig config;
    private final FaultManager faultManager;
    private final DaemonMetrics metrics;
    private final MeterRegistry registry;
    private final EventQueue queue;
    private final RoutingService routing;
    private final ExecutorService storeExecutor;
    /** Checks each discovered fabric against the expected shape, off the control thread. */
    private final ExecutorService checkExecutor;
    /** The fabric's health gauges (switches dead, links down, tables pending...), refreshed on the control thread. */
    private final FabricGauges gauges;
    private final FabricCoordinator coordinator;
    /** Quality, what-ifs, drains and rebalances of the routing in force. */
    private final RoutingActions actions;
    private final SwitchSessions sessions;
    private final DaemonViews views;
    private final HandedReads handedReads;
    private final FabricGraphView graphView;
    private final LinkLoadService linkLoads = new LinkLoadService();
    private final RoutingManager routingManager;
    private final MilestoneLog milestones;
    /** Polls the agents' port counters and serves them ({@code docs/operations.md}, "Port counters"). */
    private final PortCounterService counters;
    /** The expected PGFT generated at start for the ring's slots (the start rehearsal reuses it), or {@code null}. */
    private final Fabric expectedFabric;
    private final StateDirectoryLock stateLock;
    /** Where agents connect; {@code null} with {@code southbound.enabled: false}. */
    private SouthboundPort southbound;
    /** OpenSM's plug-in's end ({@code opensm.socket}), or {@code null}; and whether OpenSM is there. */
    private OpenSmProvider opensm;
    private final OpenSmLiveness opensmLiveness;
    private RestServer rest;
    /** The REST actions' bearer token ({@code rest.adminToken} or read from {@code rest.adminTokenFile}). */
    private volatile String adminToken;
    private InetSocketAddress restAddress;

    private FabricManagerDaemon(DaemonConfig config, MeterRegistry registry, List<DaemonListener> listeners,
                                RoutingEngine engine, StateDirectoryLock stateLock, StateFiles files) {
        this.config = config;
        this.stateLock = stateLock;
        this.metrics = new DaemonMetrics(registry);
        this.registry = metrics.registry();
        this.milestones = new MilestoneLog();
        for (DaemonListener l : listeners) {
            milestones.addListener(l);
        }
        try {
            this.routing = engine != null ? new RoutingService(engine, config.routing().repairs())
                    : new RoutingService(config.routing().engine(), config.routing().effectiveThreads(),
                            config.routing().repairs());
        } catch (RoutingException e) {
            throw new ConfigException("option routing.engine: " + e.getMessage(), e);
        }
        this.queue = new EventQueue("fm-control");
        this.storeExecutor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fm-store");
            t.setDaemon(false);
            return t;
        });
        this.checkExecutor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fm-discovery-check");
            t.setDaemon(true);
            return t;
        });
        this.adminToken = AdminTokenFile.resolve(config.rest());
        long daemonId = new SecureRandom().nextLong();
        this.coordinator = new FabricCoordinator(SettleWindows.of(config), queue, milestones);
        SwitchRegistry switches = new SwitchRegistry();
        FaultManager faults = new FaultManager(config.faults(), daemonId,
                new FaultDependencies(queue, switches, milestones, metrics, coordinator, System::nanoTime),
                new QuarantineStore(config.state().path(), files));
        this.faultManager = faults;
        Drains drains = new Drains(new DrainStore(config.state().path(), files));
        if (config.fabric().expectedSpec() != null && config.faults().detector().enabled()) {
            // the ring gets a slot for every expected switch: one that connects late joins it without a new epoch
            expectedFabric = PgftGenerator.generate(config.fabric().expectedSpec());
            faults.expectSwitches(expectedFabric);
        } else {
            expectedFabric = null;
        }
        DiscoveryManager discovery = new DiscoveryManager(new DiscoverySettings(config.discovery(),
                config.fabric().expectedSpec(),
                config.fabric().expectedHdft() == null ? null : HdftSpec.parse(config.fabric().expectedHdft())),
                new DiscoverySources(switches, p -> drains.masked(faults.masked(p)), () -> drains.view().keySet(),
                        TopologicalIndexer::order,
                        new IndexMapStore(config.state().path(), files), new RecognizingFabricChecker()),
                queue, milestones, checkExecutor, coordinator);
        this.routingManager = new RoutingManager(routing, new RoutingStateStore(config.state().path(), files),
                storeExecutor, queue, milestones, registry);
        routingManager.listener(coordinator);
        LftPusher pusher = new LftPusher(config.push().ackTimeoutMs(), config.push().retries(),
                config.push().maxInFlight(), queue, registry, coordinator);
        AdmissionPolicy admission = new AdmissionPolicy(AdmissionPolicy.Mode.of(config.fabric().admit(),
                config.fabric().expectedSpec()), config.fabric().admitGuids(), config.fabric().expectedSpec(),
                new AdmittedSwitchStore(config.state().path(), files), new PendingSwitchStore(config.state().path(), files));
        // sessions lost within two keepalive periods are one burst (their idle timeouts end up to one period apart):
        // an outage of the management network, or faults
        SessionLosses losses = new SessionLosses(queue, milestones, switches, faults,
                2L * config.southbound().echoIntervalMs());
        FabricCoordinator.Managers managers = new FabricCoordinator.Managers(switches, admission, discovery,
                routingManager, pusher, faults, losses,
                new SessionEnds(switches, discovery, pusher, faults, losses, milestones));
        coordinator.wire(managers);
        this.sessions = new SwitchSessions(queue, milestones, metrics, daemonId, managers, coordinator,
                config.routing().engine().equals(VtftrEngine.NAME)
                        ? config.routing().engine() : null);
        this.counters = new PortCounterService(switches, queue, this.registry, System::currentTimeMillis,
                () -> coordinator.state() == DaemonState.CONVERGED);
        this.actions = new RoutingActions(new RoutingActions.Parts(config.routing().rebalance(), queue, milestones,
                coordinator, managers, drains, routing, this.registry));
        this.opensmLiveness = new OpenSmLiveness(config.opensm().enabled(), queue, milestones::record, this.registry,
                System::nanoTime, System::currentTimeMillis);
        this.views = new DaemonViews(new ViewSources(switches, discovery, routingManager, pusher, faults, drains),
                coordinator::state, daemonId, config.fabric().unreadyOnMismatch(), opensmLiveness::view);
        this.handedReads = new HandedReads(views::handed, queue, coordinator::onStateChanged);;
        this.graphView = new FabricGraphView(switches, routingManager, pusher, faults, drains, coordinator::state);
        this.gauges = new FabricGauges(managers, drains, queue, registry, config.fabric().expectedSpec() != null
                ? config.fabric().expectedSpec().totalSwitchCount() : config.fabric().expectedHdft() != null
                ? HdftSpec.parse(config.fabric().expectedHdft()).totalSwitchCount() : 0);
        metrics.bindState(coordinator::state);
        metrics.bindVerdict(() -> discovery.check().verdict());
    }

    /**
     * Starts a daemon: loads the state directory, then listens for agents and REST.
     *
     * @throws ConfigException for an unusable configuration (unknown engine, port in use, bad state directory)
     */
    public static FabricManagerDaemon start(DaemonConfig config, List<DaemonListener> listeners) throws InterruptedException {
        return start(config, listeners, DaemonMetrics.newRegistry(), null);
    }

    /**
     * As {@link #start(DaemonConfig, List)}, with the meter registry to report to and, optionally, an
     * engine instance instead of the configured one ({@code null}: {@code routing.engine}). Every meter
     * is also exported on {@code /metrics} whatever the registry (see {@link DaemonMetrics}).
     */
    public static FabricManagerDaemon start(DaemonConfig config, List<DaemonListener> listeners, MeterRegistry registry,
                                            RoutingEngine engine) throws InterruptedException {
        return start(config, listeners, registry, engine, List.of());
    }

    /**
     * As {@link #start(DaemonConfig, List, MeterRegistry, RoutingEngine)}, with REST actions served by the
     * caller under {@code /api/v1/{resource}} (the demo's simulator endpoints).
     */
    public static FabricManagerDaemon start(DaemonConfig config, List<DaemonListener> listeners, MeterRegistry registry,
                                            RoutingEngine engine, List<RestExtension> restExtensions)
            throws InterruptedException {
        return start(config, listeners, registry, engine, restExtensions, StateFiles.LOCAL, 0, () -> { });
    }

    /**
     * As {@link #start(DaemonConfig, List, MeterRegistry, RoutingEngine, List)}, with the stores writing
     * through {@code files} and the Raft term sent to agents: the active manager of a hot-standby group
     * replicates its state and is fenced by its term ({@code daemon.ha}); 0 = no group. {@code beforeListening}
     * runs once the state is loaded, just before the ports are bound: a hot standby frees the same ports there,
     * so that they are unbound for as short a time as possible.
     */
    public static FabricManagerDaemon start(DaemonConfig config, List<DaemonListener> listeners, MeterRegistry registry,
                                            RoutingEngine engine, List<RestExtension> restExtensions, StateFiles files,
                                            long managerTerm, Runnable beforeListening)
            throws InterruptedException {
        TrustedFiles.check(config);
        StateDirectory.prepare(config.state().path());
        StateDirectoryLock lock = StateDirectoryLock.acquire(config.state().path());
        FabricManagerDaemon d;
        try {
            d = new FabricManagerDaemon(config, registry, listeners, engine, lock, files);
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        try {
            d.queue.call("load-state", () -> {
                d.coordinator.loadState();
                return null;
            }).get();
            beforeListening.run();
            if (config.southbound().enabled()) {
                d.southbound = SouthboundPort.open(config, managerTerm, files, d.sessions, d.registry);
            } else {
                LOG.info("southbound disabled (southbound.enabled: false): no agent can connect, no TLS file is read for it");
            }
            d.rest = new RestServer(RestListener.of(config.rest(),
                    RestHttps.context(config.rest().tls()), new RestRejections(d.registry, 10_000, System::currentTimeMillis)),
                    config.rest().ioThreads(), d, d.metrics::scrape, restExtensions);
            InetSocketAddress http = bind("rest", config.rest().bind(), config.rest().port(), d.rest::start);
            d.restAddress = InetSocketAddress.createUnresolved(config.rest().bind(), http.getPort());
            d.queue.append("gauges", d.gauges::refresh);
            d.queue.append("port counters", d.counters.poller()::tick);
            if (config.opensm().enabled()) {
                d.opensm = OpenSmProvider.start(config.opensm(), d.sessions, d, d.opensmLiveness, d.registry,
                        (kind, message, details) -> d.queue.append("opensm-event", () -> d.milestones.record(kind, message,
                                details)));
            }
            d.queue.append("started", () -> d.milestones.record(Milestone.Kind.STARTED, BuildInfo.current().describe()
                    + " started: " + (d.southbound == null ? "no southbound" : "agents on "
                    + d.southbound.address().getHostString() + ":" + d.southbound.address().getPort()) + ", REST on "
                    + d.rest.scheme() + "://"
                    + d.restAddress.getHostString() + ":" + d.restAddress.getPort() + "/api/v1/status, engine "
                    + d.routing.engineName() + (config.fabric().expectedPgft() == null ? "" : ", expecting "
                    + config.fabric().expectedPgft())));
            // while the agents connect: the first discovery's and routing's code compiled before they need it
            StartRehearsal.startIfWorthIt(config.fabric().expectedSpec(), d.expectedFabric, d.routing.engineName(),
                    new RecognizingFabricChecker(), TopologicalIndexer::order,
                    () -> d.coordinator.state() == DaemonState.DISCOVERING);
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
        return sessions.closesHandled();
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
        return registry;
    }

    /** The fault-reaction meters and the Prometheus export. */
    public DaemonMetrics metrics() {
        return metrics;
    }

    /** Routing computations since start (0 when stored routing was reused). */
    public CompletableFuture<Long> computations() {
        return queue.call("computations", routingManager::computations);
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
            coordinator.retune(SettleWindows.of(plan.effective()));
            faultManager.retune(plan.effective().faults());
            config = plan.effective();
            // in the events too, not only the log: what an operator's reload changed, and what it could not
            milestones.record(Milestone.Kind.CONFIG_RELOADED, "configuration reloaded; changed: "
                    + (plan.changed().isEmpty() ? "nothing" : String.join(", ", plan.changed())) + "; needs a restart: "
                    + (plan.needRestart().isEmpty() ? "nothing" : String.join(", ", plan.needRestart())));
            return plan;
        });
    }

    @Override
    public CompletableFuture<Views.Status> status() {
        return queue.call("status", views::status);
    }

    @Override
    public CompletableFuture<Fabric> topology() {
        return queue.call("topology", views::topology);
    }

    @Override
    public <T> CompletableFuture<T> whenHanded(Function<Fabric, T> read) {
        return queue.call("read handed tables", () -> handedReads.read(read)).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<Views.DiscoveryReport> discovery() {
        return queue.call("discovery", views::discovery);
    }

    @Override
    public CompletableFuture<List<Views.Switch>> switches() {
        return queue.call("switches", views::switchList);
    }

    @Override
    public CompletableFuture<FabricGraph> fabricGraph() {
        return queue.call("fabric graph", graphView::graph);
    }

    @Override
    public CompletableFuture<LinkLoad> linkLoad(TrafficPattern pattern) {
        // the control thread only hands over the routing in force; the analysis runs on the service's thread
        return queue.call("link load", routingManager::active).thenCompose(a -> linkLoads.load(a, pattern));
    }

    @Override
    public CompletableFuture<Views.SwitchDetail> switchDetail(long guid) {
        return queue.call("switch " + Guids.format(guid), () -> views.switchDetail(guid));
    }

    @Override
    public CompletableFuture<PortCountersView> portCounters(long guid) {
        return queue.call("ports " + Guids.format(guid), () -> counters.views().view(guid));
    }

    @Override
    public CompletableFuture<Views.Lft> lft(long guid) {
        return queue.call("lft " + Guids.format(guid), () -> views.lft(guid));
    }

    @Override
    public CompletableFuture<Views.Vc> vc(long guid) {
        return queue.call("vc " + Guids.format(guid), () -> views.vc(guid));
    }

    @Override
    public CompletableFuture<Views.Route> route(int src, int dst) {
        return queue.call("route", () -> views.route(src, dst));
    }

    @Override
    public CompletableFuture<List<Milestone>> milestones(long since) {
        return queue.call("milestones", () -> milestones.since(since));
    }

    @Override
    public CompletableFuture<FaultReport> faults() {
        return queue.call("faults", views::faults);
    }

    @Override
    public CompletableFuture<String> reroute() {
        return queue.call("reroute", coordinator::forceReroute);
    }

    @Override
    public CompletableFuture<DrainResult> drain(DrainRequest request) {
        return actions.drain(request);
    }

    @Override
    public CompletableFuture<DrainResult> undrain(DrainRequest request) {
        return actions.undrain(request);
    }

    @Override
    public CompletableFuture<RebalanceResult> rebalance() {
        return actions.rebalance();
    }

    @Override
    public CompletableFuture<RoutingView> routing() {
        return queue.call("routing", () -> actions.routingView(views.routing()));
    }

    @Override
    public CompletableFuture<List<Views.Drained>> drained() {
        return queue.call("drains", views::drained);
    }

    @Override
    public CompletableFuture<String> admit(long guid) {
        return queue.call("admit " + Guids.format(guid), () -> sessions.admitByAdmin(guid));
    }

    @Override
    public CompletableFuture<List<Views.PendingSwitch>> pendingSwitches() {
        return queue.call("pending switches", views::pending);
    }

    @Override
    public CompletableFuture<WhatIfResult> whatIf(WhatIfRequest request) {
        return actions.whatIf(request);
    }

    @Override
    public CompletableFuture<RebalanceEstimate> whatIfRebalance() {
        return actions.whatIfRebalance();
    }

    @Override
    public CompletableFuture<QualityView> routingQuality() {
        return CompletableFuture.completedFuture(actions.quality());
    }

    @Override
    public Hold holdAnalyses() {
        return actions.holdAnalyses();
    }

    @Override
    public String adminToken() {
        return adminToken;
    }

    /** Stops accepting, closes every session, runs the remaining control events and persists. */
    @Override
    public void close() {
        long begin = System.nanoTime();
        DaemonState at = coordinator.state();
        LOG.info("fabric-manager stopping (state {}){}", at, at == DaemonState.PUSHING || at == DaemonState.ROUTING
                ? ": the unfinished re-route/push is abandoned; switches keep the tables they hold and the next start"
                + " completes it" : "");
        if (rest != null) {
            rest.close();
        }
        queue.append("stopping", coordinator::stopping);
        counters.poller().stop();
        if (opensm != null) {
            opensm.close();
        }
        if (southbound != null) {
            southbound.close();
        }
        queue.close();
        routing.close();
        actions.close();
        linkLoads.close();
        checkExecutor.shutdownNow();
        storeExecutor.shutdown();
        try {
            if (!storeExecutor.awaitTermination(60, TimeUnit.SECONDS)) {
                LOG.error("stored routing not written within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        metrics.close();
        // last: the stored routing is written, another daemon may now take the directory
        stateLock.close();
        LOG.info("fabric-manager stopped in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
    }
}
