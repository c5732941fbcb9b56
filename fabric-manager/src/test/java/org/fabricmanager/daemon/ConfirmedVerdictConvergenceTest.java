package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.DiscoveryManager;
import org.fabricmanager.daemon.discovery.DiscoverySettings;
import org.fabricmanager.daemon.discovery.DiscoverySources;
import org.fabricmanager.daemon.discovery.RecognizingFabricChecker;
import org.fabricmanager.daemon.faults.FaultDependencies;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.registry.AdmissionPolicy;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.testing.FabricReports;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologicalIndexer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A top switch's death as the ring's verdict brings it: the routing without the switch is prepared while the verdict
 * is confirmed, its blocks staged on the switches it changes, and the confirmation installs it with commits alone.
 * Once those commits are acknowledged the daemon is {@code CONVERGED}: nothing else on the way (at 5,120 switches the
 * check of the fabric against the expected shape, started only at the confirmation, held it 560-650 ms after the last
 * acknowledgement). The coordinator and its managers on virtual time ({@link ManualControlLoop}), with fake sessions
 * and a check executor run by hand; the routing runs on its thread.
 */
class ConfirmedVerdictConvergenceTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,2;1,1)");

    @TempDir
    Path state;
    private final ManualControlLoop loop = new ManualControlLoop();
    /** The check executor: what was handed to it, run only when the test says. */
    private final List<Runnable> checks = new ArrayList<>();
    private final Fabric fabric = PgftGenerator.generate(SPEC);
    private final Map<Long, FakeSession> sessions = new LinkedHashMap<>();
    private RoutingService routing;
    private FabricCoordinator coordinator;
    private SwitchRegistry registry;
    private SwitchSessions southbound;

    @BeforeEach
    void wire() {
        DaemonConfig config = DaemonSimulationTest.config(state, SPEC);
        MilestoneLog milestones = new MilestoneLog();
        DaemonMetrics metrics = new DaemonMetrics(new SimpleMeterRegistry());
        coordinator = new FabricCoordinator(SettleWindows.of(config), loop, milestones);
        registry = new SwitchRegistry();
        FaultManager faults = new FaultManager(config.faults(), 1, new FaultDependencies(loop, registry, milestones,
                metrics, coordinator, () -> loop.nowMs() * 1_000_000L), null);
        DiscoveryManager discovery = new DiscoveryManager(new DiscoverySettings(config.discovery(), SPEC),
                new DiscoverySources(registry, faults::masked, List::of, TopologicalIndexer::order,
                        new IndexMapStore(state), new RecognizingFabricChecker()), loop, milestones, checks::add, coordinator);
        routing = new RoutingService("dmodc", 1, true); // repairs after faults, as the daemon does by default
        RoutingManager routingManager = new RoutingManager(routing, new RoutingStateStore(state), Runnable::run, loop,
                milestones, metrics.registry());
        routingManager.listener(coordinator);
        LftPusher pusher = new LftPusher(2_000, 3, config.push().maxInFlight(), loop, metrics.registry(), coordinator);
        AdmissionPolicy admission = new AdmissionPolicy(AdmissionPolicy.Mode.EXPECTED, Set.of(), SPEC,
                new AdmittedSwitchStore(state));
        SessionLosses losses = new SessionLosses(loop, milestones, registry, faults, 6_000);
        FabricCoordinator.Managers m = new FabricCoordinator.Managers(registry, admission, discovery, routingManager,
                pusher, faults, losses, new SessionEnds(registry, discovery, pusher, faults, losses, milestones));
        coordinator.wire(m);
        southbound = new SwitchSessions(loop, milestones, metrics, 1, m, coordinator);
    }

    @AfterEach
    void close() {
        routing.close();
    }

    @Test
    void aStagedRoutingInstalledOnTheConfirmationConvergesOnItsCommitsAcknowledgements() throws Exception {
        connectAll();
        loop.advance(DaemonSimulationTest.config(state, SPEC).discovery().settleMs());
        // the first routing, pushed: its result may come back within advance, so the wait is on its effect
        loop.runUntil("the first routing pushed to every switch", 30,
                () -> sessions.values().stream().noneMatch(s -> s.batches.isEmpty()));
        ackAll();
        assertThat(coordinator.state()).isEqualTo(DaemonState.CONVERGED);

        // the ring suspects a top switch and its early echo goes unanswered: the routing without it is prepared
        long top = PgftGenerator.switchGuid(2, 0);
        coordinator.prepareWithout(top);
        loop.awaitAndRun(30);
        int staged = sessions.values().stream().mapToInt(s -> s.staged.size()).sum();
        assertThat(staged).as("blocks staged ahead of the confirmation").isPositive();
        checks.forEach(Runnable::run); // the check executor is free during the echo wait
        checks.clear();
        loop.runPending();

        // the verdict is confirmed: the switch's session is dropped and the prepared routing installed
        Map<FakeSession, Integer> sentBefore = new LinkedHashMap<>();
        sessions.values().forEach(s -> sentBefore.put(s, s.batches.size()));
        coordinator.dropSession(registry.get(top), "declared dead by the failure detector");
        loop.advance(0);
        List<FakeSession.SentBatch> commits = new ArrayList<>();
        sentBefore.forEach((s, n) -> commits.addAll(s.batches.subList(n, s.batches.size())));
        assertThat(commits).as("a commit to each switch with staged blocks").hasSize(staged);
        assertThat(commits).allSatisfy(c -> assertThat(c.batch().blocks()).as("blocks sent with the commit").isEmpty());

        assertThat(coordinator.state()).as("waiting for the commits").isEqualTo(DaemonState.PUSHING);

        commits.forEach(FakeSession.SentBatch::ack);
        loop.runPending();
        assertThat(coordinator.state()).as("converged on the commits' round trip, the check executor not run since the "
                + "confirmation (%d tasks handed to it)", checks.size()).isEqualTo(DaemonState.CONVERGED);
    }

    /** Every switch of the fabric says HELLO and reports its ports, as its agent would. */
    private void connectAll() {
        FabricReports reports = new FabricReports(fabric);
        for (FabricSwitch s : fabric.switches()) {
            FakeSession session = FakeSession.of(s.guid(), s.name(), s.ports(), 1);
            sessions.put(s.guid(), session);
            southbound.helloReceived(session, session.hello());
            southbound.portInfoReceived(session, new PortInfo(1, reports.of(s.guid())));
        }
        loop.runPending();
    }

    /** Acknowledges every batch sent and not answered yet, until none is left. */
    private void ackAll() {
        boolean any = true;
        while (any) {
            any = false;
            for (FakeSession s : sessions.values()) {
                for (FakeSession.SentBatch b : List.copyOf(s.batches)) {
                    if (!b.future().isDone()) {
                        b.ack();
                        any = true;
                    }
                }
            }
            loop.runPending();
        }
    }
}
