package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the fault manager sends the agents about the ring: one DETECTOR_WINDOW each at the plan, nothing to
 * ring members when a switch outside the ring connects, and to a rejoining member's window only a
 * one-member update, with no new epoch.
 */
class FaultManagerRingTest {
    static final String SPEC = "PGFT(3;8,8,4;1,8,4;1,1,1)"; // 64 + 64 + 32 = 160 switches

    final ManualControlLoop loop = new ManualControlLoop();
    final SwitchRegistry registry = new SwitchRegistry();
    final DaemonMetrics metrics = new DaemonMetrics(new SimpleMeterRegistry());
    final Map<Long, FakeSession> sessions = new HashMap<>();
    Fabric fabric;
    FaultManager faults;

    @BeforeEach
    void plan() throws Exception {
        faults = RingFaultManagers.start(loop, registry, metrics, new RecordingFaultActions());
        fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        int i = 0;
        for (FabricSwitch s : fabric.switches()) {
            connect(s.guid(), endpoint(i++, 7684), true);
        }
        faults.planRing(fabric);
    }

    @AfterEach
    void close() {
        faults.close();
        metrics.close();
    }

    static InetSocketAddress endpoint(int i, int port) throws Exception {
        return RingFaultManagers.endpoint(i, port);
    }

    ManagedSwitch connect(long guid, InetSocketAddress endpoint, boolean admit) {
        return connect(guid, endpoint, admit, Protocol.FEATURE_DETECTOR_WINDOW);
    }

    ManagedSwitch connect(long guid, InetSocketAddress endpoint, boolean admit, int features) {
        ManagedSwitch old = registry.get(guid);
        if (old != null) {
            registry.remove(old.session());
        }
        FakeSession s = FakeSession.of(guid, "s" + Long.toHexString(guid), 16, 1, features);
        sessions.put(guid, s);
        ManagedSwitch ms = registry.register(s, s.hello(), 0);
        if (admit) {
            registry.admit(ms);
            faults.switchAdmitted(ms);
        }
        ms.detectorEndpoint(endpoint);
        faults.detectorEndpoint(ms);
        return ms;
    }

    int framesToRingMembers() {
        return sessions.values().stream().mapToInt(s -> s.detectorFrames.size()).sum();
    }

    @Test
    void everyAgentGetsOneWindowOfTheSameSizeAtThePlan() {
        assertThat(faults.ring().size()).isEqualTo(fabric.switches().size() + 1);
        for (FakeSession s : sessions.values()) {
            assertThat(s.detectorFrames).singleElement().isInstanceOfSatisfying(Message.DetectorWindow.class,
                    w -> assertThat(w.members()).hasSize(2 * RingDirectory.WINDOW + 1));
        }
    }

    @Test
    void aSwitchOutsideTheRingConnectingSendsNothingToRingMembers() throws Exception {
        long epoch = faults.ring().epoch();
        int before = framesToRingMembers();
        // pending admission: not in the fabric yet
        connect(0xABCDEFL, endpoint(900, 7684), false);
        // and routing runs again (the daemon re-plans only for admitted switches outside the ring)
        faults.planRing(fabric);
        assertThat(faults.ring().epoch()).isEqualTo(epoch);
        assertThat(framesToRingMembers()).as("nothing to the ring's members").isEqualTo(before);
        assertThat(sessions.get(0xABCDEFL).detectorFrames).isEmpty();
    }

    @Test
    void aSwitchLeftOutOfTheRingDoesNotReplanItWhenItReconnects() throws Exception {
        // a plan in which two switches share an endpoint: the later one in ring order is left out
        long a = fabric.switches().get(0).guid();
        long b = fabric.switches().get(fabric.switches().size() - 1).guid();
        faults.close();
        connect(b, endpoint(0, 7684), true); // a's endpoint
        faults.planRing(fabric);
        long epoch = faults.ring().epoch();
        long out = faults.ring().leftOut(a) ? a : b;
        assertThat(faults.ring().leftOut(out)).isTrue();
        assertThat(faults.ring().contains(out)).isFalse();
        assertThat(faults.ring().contains(out == a ? b : a)).isTrue();
        for (FakeSession s : sessions.values()) {
            s.detectorFrames.clear();
        }
        connect(out, endpoint(0, 7684), true); // its agent reconnects, still on the shared endpoint
        faults.planRing(fabric);
        assertThat(faults.ring().epoch()).as("no new epoch").isEqualTo(epoch);
        assertThat(framesToRingMembers()).as("nothing sent to anyone").isZero();
    }

    @Test
    void switchesWhoseEndpointsComeAfterThePlanAreAllInTheRing() throws Exception {
        // the ring planned before any agent said where its member listens (their DETECTOR_ENDPOINT follows PORT_INFO
        // and may come after the first routing): all of them share one session address, so a guessed endpoint
        // (that address and the default port) would be the same for all and leave all but one out of the epoch
        faults.close();
        List.copyOf(registry.all()).forEach(ms -> registry.remove(ms.session()));
        sessions.clear();
        for (FabricSwitch s : fabric.switches()) {
            connect(s.guid(), null, true);
        }
        faults.planRing(fabric);
        assertThat(faults.ring().size()).isEqualTo(fabric.switches().size() + 1);
        for (FabricSwitch s : fabric.switches()) {
            assertThat(faults.ring().leftOut(s.guid())).as("%x left out", s.guid()).isFalse();
            assertThat(faults.ring().contains(s.guid())).isTrue();
        }
        assertThat(framesToRingMembers()).as("windows wait for the endpoints").isZero();
        int i = 0;
        for (FabricSwitch s : fabric.switches()) {
            InetSocketAddress at = endpoint(i++, 7684);
            ManagedSwitch ms = registry.get(s.guid());
            ms.detectorEndpoint(at);
            faults.detectorEndpoint(ms);
            assertThat(sessions.get(s.guid()).detectorFrames).as("%x", s.guid()).last()
                    .isInstanceOfSatisfying(Message.DetectorWindow.class, w -> assertThat(w.members())
                            .filteredOn(p -> p.guid() == s.guid()).singleElement()
                            .satisfies(p -> {
                                assertThat(p.address()).isEqualTo(at.getAddress());
                                assertThat(p.port()).isEqualTo(at.getPort());
                            }));
        }
    }

    @Test
    void aRejoiningMemberOnANewEndpointIsAnnouncedOnlyToItsWindow() throws Exception {
        long epoch = faults.ring().epoch();
        for (FakeSession s : sessions.values()) {
            s.detectorFrames.clear();
        }
        long mover = fabric.switches().get(77).guid();
        connect(mover, endpoint(77, 9000), true); // its agent restarted and listens elsewhere now
        assertThat(faults.ring().epoch()).isEqualTo(epoch);
        assertThat(sessions.get(mover).detectorFrames).singleElement().isInstanceOfSatisfying(
                Message.DetectorWindow.class, w -> assertThat(w.startMode()).isEqualTo(Message.StartMode.JOIN));
        List<FakeSession> told = sessions.entrySet().stream().filter(e -> e.getKey() != mover)
                .filter(e -> !e.getValue().detectorFrames.isEmpty()).map(Map.Entry::getValue).toList();
        assertThat(told.size()).as("its window (the daemon is told directly)").isBetween(2 * RingDirectory.WINDOW - 1,
                2 * RingDirectory.WINDOW);
        for (FakeSession s : told) {
            assertThat(s.detectorFrames).singleElement().isInstanceOfSatisfying(Message.DetectorPeers.class,
                    p -> assertThat(p.members()).singleElement().extracting(Message.DetectorPeer::port).isEqualTo(9000));
        }
    }

    @Test
    void anAgentThatPredatesTheWindowStillGetsTheWholeRing() throws Exception {
        long old = fabric.switches().get(5).guid();
        connect(old, endpoint(5, 7684), true, 0); // reconnects without features bit 1: it rejoins
        List<Message> frames = sessions.get(old).detectorFrames;
        assertThat(frames).isNotEmpty().allSatisfy(f -> assertThat(f).isInstanceOf(Message.DetectorConfig.class));
        int members = frames.stream().mapToInt(f -> ((Message.DetectorConfig) f).members().size()).sum();
        assertThat(members).as("every member of the ring").isEqualTo(faults.ring().size());
        assertThat(((Message.DetectorConfig) frames.get(0)).startMode()).isEqualTo(Message.StartMode.JOIN);
    }

    @Test
    void aMemberWhoseEndpointComesAfterThePlanGetsOneWindowAtItsOwnEndpoint() throws Exception {
        // a cold start in which one agent's DETECTOR_ENDPOINT is still on its way when the first routing plans the ring
        long late = fabric.switches().get(42).guid();
        faults.close();
        ManagedSwitch ms = registry.get(late);
        ms.detectorEndpoint(null);
        for (FakeSession s : sessions.values()) {
            s.detectorFrames.clear();
        }
        faults.planRing(fabric);
        assertThat(faults.ring().contains(late)).as("in the ring, at a guessed address for now").isTrue();
        assertThat(sessions.get(late).detectorFrames).as("no window with the guessed address").isEmpty();

        InetSocketAddress advertised = endpoint(42, 9042);
        ms.detectorEndpoint(advertised);
        faults.detectorEndpoint(ms);
        assertThat(sessions.get(late).detectorFrames).singleElement().isInstanceOfSatisfying(Message.DetectorWindow.class,
                w -> {
                    assertThat(w.startMode()).as("it starts with the others").isEqualTo(Message.StartMode.BOOTSTRAP);
                    assertThat(w.members()).filteredOn(p -> p.index() == w.selfIndex()).singleElement()
                            .extracting(Message.DetectorPeer::port).isEqualTo(9042);
                });
    }

    @Test
    void theFirstRingWaitsForTheFirstTablesSoThatAgentsTakeThemFirst() throws Exception {
        faults.close();
        sessions.values().forEach(s -> s.detectorFrames.clear());
        FaultManager cold = RingFaultManagers.beforeFirstConvergence(loop, registry, metrics, new RecordingFaultActions());
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        cold.onRingStarted(started::incrementAndGet);
        try {
            cold.planRing(fabric); // the first routing
            loop.advance(RingPlanner.FIRST_PUSH_WAIT_MS - 1);
            assertThat(cold.ring().active()).as("not while the first push runs").isFalse();
            assertThat(cold.ringStarting()).isFalse();
            assertThat(framesToRingMembers()).isZero();
            cold.tablesConverged();
            assertThat(cold.ring().active()).isTrue();
            assertThat(cold.ringStarting()).as("every answer awaited").isTrue();
            assertThat(started).hasValue(0);
            loop.advance(0); // the agents' answers
            assertThat(cold.ringStarting()).isFalse();
            assertThat(started).as("told once, when the last answer came").hasValue(1);
            assertThat(cold.ring().size()).isEqualTo(fabric.switches().size() + 1);
            assertThat(sessions.values()).allSatisfy(s -> assertThat(s.detectorFrames).singleElement()
                    .isInstanceOf(Message.DetectorWindow.class));
            long epoch = cold.ring().epoch();
            cold.tablesConverged(); // every later convergence changes nothing
            loop.advance(2 * RingPlanner.FIRST_PUSH_WAIT_MS);
            assertThat(cold.ring().epoch()).isEqualTo(epoch);
            assertThat(framesToRingMembers()).isEqualTo(sessions.size());
        } finally {
            cold.close();
        }
    }

    @Test
    void aFirstPushThatNeverConvergesDelaysTheRingOnlySoLong() throws Exception {
        faults.close();
        sessions.values().forEach(s -> s.detectorFrames.clear());
        FaultManager cold = RingFaultManagers.beforeFirstConvergence(loop, registry, metrics, new RecordingFaultActions());
        try {
            cold.planRing(fabric);
            cold.planRing(fabric); // a re-route during the push: still one wait, counted from the first routing
            loop.advance(RingPlanner.FIRST_PUSH_WAIT_MS);
            assertThat(cold.ring().active()).as("a hung agent must not keep the ring from starting").isTrue();
            assertThat(framesToRingMembers()).isEqualTo(sessions.size());
        } finally {
            cold.close();
        }
    }
}
