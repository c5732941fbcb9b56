package org.fabricmanager.daemon;

import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.daemon.control.ControlLoop;
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
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.registry.AdmissionPolicy;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.PendingSwitchStore;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.view.DaemonViews;
import org.fabricmanager.daemon.view.FabricGraphView;
import org.fabricmanager.daemon.view.HandedReads;
import org.fabricmanager.daemon.view.LinkLoadService;
import org.fabricmanager.daemon.view.ViewSources;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.vtftr.VtftrEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.TopologicalIndexer;

/**
 * Builds every part of a daemon from its configuration and wires them to one another: the control thread, the
 * managers and their stores, the coordinator that sequences them, the views the API reads. Nothing runs yet: the
 * daemon loads the state directory and opens its ports ({@link FabricManagerDaemon#start}).
 */
final class DaemonAssembly {
    final DaemonMetrics metrics;
    final MilestoneLog milestones;
    final RoutingService routing;
    /** The daemon's control thread; {@code null} in a simulation, whose loop is {@link #loop}. */
    final EventQueue queue;
    /** The loop every part appends to: {@link #queue}, or a simulation's on virtual time. */
    final ControlLoop loop;
    /** Writes the stored routing off the control thread; the daemon waits for it before it releases the directory. */
    final ExecutorService storeExecutor;
    /** Checks each discovered fabric against the expected shape, off the control thread. */
    final ExecutorService checkExecutor;
    /** Judges the links from their counters ({@link LinkJudge}), off the control thread. */
    final ExecutorService healthExecutor;
    final FabricCoordinator coordinator;
    final FaultManager faults;
    final RoutingManager routingManager;
    final SwitchSessions sessions;
    /** Polls the agents' port counters and serves them ({@code docs/operations.md}, "Port counters"). */
    final PortCounterService counters;
    /** Quality, what-ifs, drains and rebalances of the routing in force. */
    final RoutingActions actions;
    /** Gray links judged from the port counters, and the isolation policy ({@code linkHealth}); null when off. */
    final GrayLinks grayLinks;
    final OpenSmLiveness opensmLiveness;
    final DaemonViews views;
    final HandedReads handedReads;
    final FabricGraphView graphView;
    final LinkLoadService linkLoads = new LinkLoadService();
    /** The fabric's health gauges (switches dead, links down, tables pending...), refreshed on the control thread. */
    final FabricGauges gauges;
    /** The expected PGFT generated at start for the ring's slots (the start rehearsal reuses it), or {@code null}. */
    final Fabric expectedFabric;

    /**
     * What runs the parts: the control loop, the executors, the clocks, the routing service and the daemon's identity.
     * The daemon's are its threads and the system clocks ({@link #threads}); a deterministic simulation passes its
     * own, on one virtual clock.
     */
    record Clockwork(ControlLoop loop, EventQueue queue, ExecutorService storeExecutor, ExecutorService checkExecutor,
                     ExecutorService healthExecutor, LongSupplier nanoTime, LongSupplier millis, RoutingService routing, long daemonId) {
        /** The daemon's own: its control thread, its executors, the system clocks, a random identity. */
        static Clockwork threads(DaemonConfig config, StartOptions options) {
            RoutingService routing;
            try {
                routing = options.engine() != null ? new RoutingService(options.engine(), config.routing().repairs())
                        : new RoutingService(config.routing().engine(), config.routing().effectiveThreads(),
                                config.routing().repairs());
            } catch (RoutingException e) {
                throw new ConfigException("option routing.engine: " + e.getMessage(), e);
            }
            EventQueue queue = new EventQueue("fm-control");
            ExecutorService store = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "fm-store");
                t.setDaemon(false);
                return t;
            });
            ExecutorService check = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "fm-discovery-check");
                t.setDaemon(true);
                return t;
            });
            ExecutorService health = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "fm-link-health");
                t.setDaemon(true);
                return t;
            });
            return new Clockwork(queue, queue, store, check, health, System::nanoTime, System::currentTimeMillis, routing,
                    new SecureRandom().nextLong());
        }
    }

    DaemonAssembly(DaemonConfig config, StartOptions options) {
        this(config, options, Clockwork.threads(config, options));
    }

    DaemonAssembly(DaemonConfig config, StartOptions options, Clockwork clockwork) {
        metrics = new DaemonMetrics(options.registry() != null ? options.registry() : DaemonMetrics.newRegistry());
        milestones = new MilestoneLog();
        for (DaemonListener l : options.listeners()) {
            milestones.addListener(l);
        }
        routing = clockwork.routing();
        queue = clockwork.queue();
        loop = clockwork.loop();
        storeExecutor = clockwork.storeExecutor();
        checkExecutor = clockwork.checkExecutor();
        healthExecutor = clockwork.healthExecutor();
        StateFiles files = options.files();
        long daemonId = clockwork.daemonId();
        coordinator = new FabricCoordinator(SettleWindows.of(config), loop, milestones);
        SwitchRegistry switches = new SwitchRegistry();
        faults = new FaultManager(config.faults(), daemonId,
                new FaultDependencies(loop, switches, milestones, metrics, coordinator, clockwork.nanoTime()),
                new QuarantineStore(config.state().path(), files));
        Drains drains = new Drains(new DrainStore(config.state().path(), files));
        if (config.fabric().expectedSpec() != null && config.faults().detector().enabled()) {
            // the ring gets a slot for every expected switch: one that connects late joins it without a new epoch
            expectedFabric = PgftGenerator.generate(config.fabric().expectedSpec());
            faults.expectSwitches(expectedFabric);
        } else {
            expectedFabric = null;
        }
        HdftSpec hdft = config.fabric().expectedHdft() == null ? null : HdftSpec.parse(config.fabric().expectedHdft());
        DiscoveryManager discovery = new DiscoveryManager(new DiscoverySettings(config.discovery(),
                config.fabric().expectedSpec(), hdft),
                new DiscoverySources(switches, p -> drains.masked(faults.masked(p)), drains::masking,
                        TopologicalIndexer::order,
                        new IndexMapStore(config.state().path(), files), new RecognizingFabricChecker()),
                loop, milestones, checkExecutor, coordinator);
        routingManager = new RoutingManager(routing, new RoutingStateStore(config.state().path(), files),
                storeExecutor, loop, milestones, metrics.registry());
        routingManager.listener(coordinator);
        discovery.storedRouting(routingManager::storedSwitchCount, routingManager::fitsStored,
                routingManager::storedHas);
        LftPusher pusher = new LftPusher(config.push().ackTimeoutMs(), config.push().retries(),
                config.push().maxInFlight(), loop, metrics.registry(), coordinator);
        AdmissionPolicy admission = new AdmissionPolicy(AdmissionPolicy.Mode.of(config.fabric().admit(),
                config.fabric().expectedSpec()), config.fabric().admitGuids(), config.fabric().expectedSpec(),
                new AdmittedSwitchStore(config.state().path(), files), new PendingSwitchStore(config.state().path(), files));
        // sessions lost within two keepalive periods are one burst (their idle timeouts end up to one period apart):
        // an outage of the management network, or faults
        SessionLosses losses = new SessionLosses(loop, milestones, switches, faults,
                2L * config.southbound().echoIntervalMs());
        FabricCoordinator.Managers managers = new FabricCoordinator.Managers(switches, admission, discovery,
                routingManager, pusher, faults, losses,
                new SessionEnds(switches, discovery, pusher, faults, losses, milestones));
        coordinator.wire(managers);
        sessions = new SwitchSessions(loop, milestones, metrics, daemonId, managers, coordinator,
                config.routing().engine().equals(VtftrEngine.NAME) ? config.routing().engine() : null);
        counters = new PortCounterService(switches, loop, metrics.registry(), clockwork.millis(),
                () -> coordinator.state() == DaemonState.CONVERGED, config.linkHealth().pollIntervalMs());
        actions = new RoutingActions(new RoutingActions.Parts(config.routing().rebalance(), loop, milestones,
                coordinator, managers, drains, routing, metrics.registry()));
        grayLinks = config.linkHealth().mode() == LinkHealthSection.Policy.OFF ? null
                : new GrayLinks(new GrayLinks.Parts(config.linkHealth(), loop, milestones, coordinator, routingManager,
                drains, actions.maintenance(), healthExecutor), metrics.registry(), clockwork.millis());
        if (grayLinks != null) {
            counters.poller().onReport(grayLinks::reported);
        }
        opensmLiveness = new OpenSmLiveness(config.opensm().enabled(), loop, milestones::record, metrics.registry(),
                clockwork.nanoTime(), clockwork.millis());
        views = new DaemonViews(new ViewSources(switches, discovery, routingManager, pusher, faults, drains),
                coordinator::state, daemonId, config.fabric().unreadyOnMismatch(), opensmLiveness::view);
        handedReads = new HandedReads(views::handed, loop, coordinator::onStateChanged);
        graphView = new FabricGraphView(switches, routingManager, pusher, faults, drains, coordinator::state);
        gauges = new FabricGauges(managers, drains, loop, metrics.registry(), config.fabric().expectedSpec() != null
                ? config.fabric().expectedSpec().totalSwitchCount() : hdft != null ? hdft.totalSwitchCount() : 0);
        metrics.bindState(coordinator::state);
        metrics.bindVerdict(() -> discovery.check().verdict());
    }

    /**
     * Applies a reload's run-time changes ({@link ConfigReload}): the settle windows and the flap quarantine's knobs,
     * each read afresh at its next use; tells the operators what changed and what waits for a restart. Control thread.
     */
    void reloaded(ConfigReload plan) {
        coordinator.retune(SettleWindows.of(plan.effective()));
        faults.retune(plan.effective().faults());
        // in the events too, not only the log: what an operator's reload changed, and what it could not
        milestones.record(Milestone.Kind.CONFIG_RELOADED, "configuration reloaded; changed: "
                + (plan.changed().isEmpty() ? "nothing" : String.join(", ", plan.changed())) + "; needs a restart: "
                + (plan.needRestart().isEmpty() ? "nothing" : String.join(", ", plan.needRestart())));
    }
}
