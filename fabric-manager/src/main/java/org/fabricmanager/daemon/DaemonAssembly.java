package org.fabricmanager.daemon;

import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
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
    final EventQueue queue;
    /** Writes the stored routing off the control thread; the daemon waits for it before it releases the directory. */
    final ExecutorService storeExecutor;
    /** Checks each discovered fabric against the expected shape, off the control thread. */
    final ExecutorService checkExecutor;
    final FabricCoordinator coordinator;
    final FaultManager faults;
    final RoutingManager routingManager;
    final SwitchSessions sessions;
    /** Polls the agents' port counters and serves them ({@code docs/operations.md}, "Port counters"). */
    final PortCounterService counters;
    /** Quality, what-ifs, drains and rebalances of the routing in force. */
    final RoutingActions actions;
    final OpenSmLiveness opensmLiveness;
    final DaemonViews views;
    final HandedReads handedReads;
    final FabricGraphView graphView;
    final LinkLoadService linkLoads = new LinkLoadService();
    /** The fabric's health gauges (switches dead, links down, tables pending...), refreshed on the control thread. */
    final FabricGauges gauges;
    /** The expected PGFT generated at start for the ring's slots (the start rehearsal reuses it), or {@code null}. */
    final Fabric expectedFabric;

    DaemonAssembly(DaemonConfig config, StartOptions options) {
        metrics = new DaemonMetrics(options.registry());
        milestones = new MilestoneLog();
        for (DaemonListener l : options.listeners()) {
            milestones.addListener(l);
        }
        try {
            routing = options.engine() != null ? new RoutingService(options.engine(), config.routing().repairs())
                    : new RoutingService(config.routing().engine(), config.routing().effectiveThreads(),
                            config.routing().repairs());
        } catch (RoutingException e) {
            throw new ConfigException("option routing.engine: " + e.getMessage(), e);
        }
        queue = new EventQueue("fm-control");
        storeExecutor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fm-store");
            t.setDaemon(false);
            return t;
        });
        checkExecutor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fm-discovery-check");
            t.setDaemon(true);
            return t;
        });
        StateFiles files = options.files();
        long daemonId = new SecureRandom().nextLong();
        coordinator = new FabricCoordinator(SettleWindows.of(config), queue, milestones);
        SwitchRegistry switches = new SwitchRegistry();
        faults = new FaultManager(config.faults(), daemonId,
                new FaultDependencies(queue, switches, milestones, metrics, coordinator, System::nanoTime),
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
                new DiscoverySources(switches, p -> drains.masked(faults.masked(p)), () -> drains.view().keySet(),
                        TopologicalIndexer::order,
                        new IndexMapStore(config.state().path(), files), new RecognizingFabricChecker()),
                queue, milestones, checkExecutor, coordinator);
        routingManager = new RoutingManager(routing, new RoutingStateStore(config.state().path(), files),
                storeExecutor, queue, milestones, metrics.registry());
        routingManager.listener(coordinator);
        LftPusher pusher = new LftPusher(config.push().ackTimeoutMs(), config.push().retries(),
                config.push().maxInFlight(), queue, metrics.registry(), coordinator);
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
        sessions = new SwitchSessions(queue, milestones, metrics, daemonId, managers, coordinator,
                config.routing().engine().equals(VtftrEngine.NAME) ? config.routing().engine() : null);
        counters = new PortCounterService(switches, queue, metrics.registry(), System::currentTimeMillis,
                () -> coordinator.state() == DaemonState.CONVERGED);
        actions = new RoutingActions(new RoutingActions.Parts(config.routing().rebalance(), queue, milestones,
                coordinator, managers, drains, routing, metrics.registry()));
        opensmLiveness = new OpenSmLiveness(config.opensm().enabled(), queue, milestones::record, metrics.registry(),
                System::nanoTime, System::currentTimeMillis);
        views = new DaemonViews(new ViewSources(switches, discovery, routingManager, pusher, faults, drains),
                coordinator::state, daemonId, config.fabric().unreadyOnMismatch(), opensmLiveness::view);
        handedReads = new HandedReads(views::handed, queue, coordinator::onStateChanged);
        graphView = new FabricGraphView(switches, routingManager, pusher, faults, drains, coordinator::state);
        gauges = new FabricGauges(managers, drains, queue, metrics.registry(), config.fabric().expectedSpec() != null
                ? config.fabric().expectedSpec().totalSwitchCount() : hdft != null ? hdft.totalSwitchCount() : 0);
        metrics.bindState(coordinator::state);
        metrics.bindVerdict(() -> discovery.check().verdict());
    }
}
