package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.detector.message.DetectorEvent;
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
 * The ring planned over every switch the daemon expects (issue 17: no new epoch for a switch that connects late):
 * an expected switch that has not connected at the plan gets a slot that starts dead in every view; when it connects
 * it joins that slot in the running epoch and only the agents holding its address hear of it. A switch the ring has
 * no slot for (a GUID outside the expected fabric) still needs a new epoch, at most one per replan interval.
 */
class FaultManagerSlotsTest {
    static final String SPEC = "PGFT(3;8,8,4;1,8,4;1,1,1)"; // 64 + 64 + 32 = 160 switches
    static final int SLOTS = Protocol.FEATURE_DETECTOR_WINDOW | Protocol.FEATURE_DETECTOR_SLOTS;

    final ManualControlLoop loop = new ManualControlLoop();
    final SwitchRegistry registry = new SwitchRegistry();
    final DaemonMetrics metrics = new DaemonMetrics(new SimpleMeterRegistry());
    final Map<Long, FakeSession> sessions = new HashMap<>();
    final RecordingFaultActions recorded = new RecordingFaultActions();
    final Fabric expected = PgftGenerator.generate(PgftSpec.parse(SPEC));
    /** A leaf whose simulator starts after the ring runs. */
    final long late = PgftGenerator.switchGuid(1, 5);
    FaultManager faults;

    @BeforeEach
    void start() throws Exception {
        faults = RingFaultManagers.start(loop, registry, metrics, recorded);
        faults.expectSwitches(expected);
    }

    @AfterEach
    void close() {
        faults.close();
        metrics.close();
    }

    static InetSocketAddress endpoint(int i, int port) throws Exception {
        return RingFaultManagers.endpoint(i, port);
    }

    ManagedSwitch connect(long guid, InetSocketAddress endpoint, int features) {
        ManagedSwitch old = registry.get(guid);
        if (old != null) {
            registry.remove(old.session());
        }
        FakeSession s = FakeSession.of(guid, "s" + Long.toHexString(guid), 16, 1, features);
        sessions.put(guid, s);
        ManagedSwitch ms = registry.register(s, s.hello(), 0);
        registry.admit(ms);
        faults.switchAdmitted(ms);
        ms.detectorEndpoint(endpoint);
        faults.detectorEndpoint(ms);
        return ms;
    }

    /** Every expected switch but {@code except} connects, then the first routing plans the ring. */
    void planWithout(long except, int features) throws Exception {
        int i = 0;
        for (FabricSwitch s : expected.switches()) {
            if (s.guid() != except) {
                connect(s.guid(), endpoint(i, 7684), features);
            }
            i++;
        }
        faults.planRing(expected.withoutSwitches(List.of(except)));
    }

    void clearFrames() {
        sessions.values().forEach(s -> s.detectorFrames.clear());
    }

    @Test
    void anExpectedSwitchNotConnectedHasASlotThatStartsDeadEverywhere() throws Exception {
        planWithout(late, SLOTS);
        RingCoordinator ring = faults.ring();
        assertThat(ring.size()).as("the daemon and every expected switch").isEqualTo(expected.switches().size() + 1);
        assertThat(ring.contains(late)).isTrue();
        assertThat(ring.vacant(late)).isTrue();
        int slot = indexOf(ring, late);
        assertThat(ring.deadCount()).as("the daemon's own member starts with the slot dead").isEqualTo(1);
        for (FakeSession s : sessions.values()) {
            assertThat(s.detectorFrames).singleElement().isInstanceOfSatisfying(Message.DetectorWindow.class, w -> {
                assertThat(w.startMode()).isEqualTo(Message.StartMode.BOOTSTRAP);
                assertThat(w.deadAtStart()).as("every member starts with the same dead set").containsExactly(slot);
                // where a window holds the slot, its address is a placeholder no datagram may go to
                assertThat(w.members()).filteredOn(m -> m.index() == slot).allSatisfy(m -> assertThat(
                        org.fabricmanager.detector.VacantAddress.is(new java.net.InetSocketAddress(m.address(), m.port())))
                        .as("slot address %s:%d is a vacant placeholder", m.address(), m.port()).isTrue());
            });
        }
        // operators see the slot as unwatched, with why; the ring never sent a verdict, and a stray one is ignored
        assertThat(ring.unwatchedSwitches()).containsEntry(late, RingCoordinator.VACANT);
        loop.runPending();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberFailed(slot, 0));
        assertThat(faults.failedSwitches()).isEmpty();
        assertThat(recorded.dropped()).isEmpty();
    }

    @Test
    void aLateSwitchJoinsItsSlotInTheSameEpochAndOnlyItsWindowHearsOfIt() throws Exception {
        planWithout(late, SLOTS);
        long epoch = faults.ring().epoch();
        int slot = indexOf(faults.ring(), late);
        clearFrames();

        connect(late, endpoint(900, 9100), SLOTS);
        faults.planRing(expected); // the routing that follows its connection
        assertThat(faults.ring().epoch()).as("no new epoch").isEqualTo(epoch);
        assertThat(loop.isScheduled(RingPlanner.REPLAN)).as("nor one deferred").isFalse();
        assertThat(faults.ring().vacant(late)).isFalse();
        assertThat(sessions.get(late).detectorFrames).singleElement().isInstanceOfSatisfying(Message.DetectorWindow.class,
                w -> {
                    assertThat(w.epoch()).isEqualTo(epoch);
                    assertThat(w.startMode()).as("it joins the running ring").isEqualTo(Message.StartMode.JOIN);
                    assertThat(w.selfIndex()).isEqualTo(slot);
                });
        int n = faults.ring().size();
        for (Map.Entry<Long, FakeSession> e : sessions.entrySet()) {
            if (e.getKey() == late) {
                continue;
            }
            int holder = indexOf(faults.ring(), e.getKey());
            int d = Math.floorMod(holder - slot, n);
            boolean inWindow = Math.min(d, n - d) <= RingDirectory.WINDOW;
            if (inWindow) {
                assertThat(e.getValue().detectorFrames).as("member %d holds the slot's address", holder).singleElement()
                        .isInstanceOfSatisfying(Message.DetectorPeers.class, p -> assertThat(p.members()).singleElement()
                                .satisfies(peer -> {
                                    assertThat(peer.index()).isEqualTo(slot);
                                    assertThat(peer.port()).isEqualTo(9100);
                                }));
            } else {
                assertThat(e.getValue().detectorFrames).as("member %d is told nothing", holder).isEmpty();
            }
        }
        // its member answers that it runs: the switch is watched from now on
        assertThat(faults.ring().unwatched(late)).isTrue();
        faults.ring().answered(epoch, late, org.fabricmanager.southbound.DetectorConfigReply.RUNNING);
        assertThat(faults.ring().unwatched(late)).isFalse();
    }

    @Test
    void aLateSwitchsJoinNamesTheOtherVacantSlotsSoItsJoinSkipsThem() throws Exception {
        long other = PgftGenerator.switchGuid(2, 3);
        int i = 0;
        for (FabricSwitch s : expected.switches()) {
            if (s.guid() != late && s.guid() != other) {
                connect(s.guid(), endpoint(i, 7684), SLOTS);
            }
            i++;
        }
        faults.planRing(expected.withoutSwitches(List.of(late, other)));
        int otherSlot = indexOf(faults.ring(), other);
        assertThat(faults.ring().deadCount()).isEqualTo(2);
        connect(late, endpoint(900, 9100), SLOTS);
        assertThat(sessions.get(late).detectorFrames).singleElement().isInstanceOfSatisfying(Message.DetectorWindow.class,
                w -> {
                    assertThat(w.startMode()).isEqualTo(Message.StartMode.JOIN);
                    assertThat(w.deadAtStart()).as("the other vacant slot, not itself").containsExactly(otherSlot);
                });
    }

    @Test
    void withoutAnExpectedFabricANeighbourNamedInPortReportsHasASlotAndJoinsItLate() throws Exception {
        faults.expectSwitches(null); // no expected PGFT (or a fabric with its own GUIDs): only port reports name it
        int i = 0;
        for (FabricSwitch s : expected.switches()) {
            if (s.guid() != late) {
                connect(s.guid(), endpoint(i, 7684), SLOTS);
            }
            i++;
        }
        int cabled = 0;
        for (org.fabricmanager.topology.Link l : expected.links()) {
            // its neighbours' ports are up and name it (the cable is there; its agent is not)
            if (!expected.isSwitch(l.a()) || !expected.isSwitch(l.b())) {
                continue; // its end nodes have no agent to report them
            }
            if (l.b() == late) {
                registry.get(l.a()).ports().update(org.fabricmanager.southbound.PortRecord.toSwitch(l.aPort(), late,
                        l.bPort(), "late"));
                cabled++;
            } else if (l.a() == late) {
                registry.get(l.b()).ports().update(org.fabricmanager.southbound.PortRecord.toSwitch(l.bPort(), late,
                        l.aPort(), "late"));
                cabled++;
            }
        }
        assertThat(cabled).as("a leaf has uplinks").isPositive();
        faults.planRing(expected.withoutSwitches(List.of(late)));
        long epoch = faults.ring().epoch();
        assertThat(faults.ring().size()).isEqualTo(expected.switches().size() + 1);
        assertThat(faults.ring().vacant(late)).isTrue();
        assertThat(faults.ring().deadCount()).isEqualTo(1);

        connect(late, endpoint(900, 9100), SLOTS);
        faults.planRing(expected);
        loop.advance(faults.planner().replanIntervalMs());
        assertThat(faults.ring().epoch()).as("it joined its slot: no new epoch").isEqualTo(epoch);
        assertThat(sessions.get(late).detectorFrames).last().isInstanceOfSatisfying(Message.DetectorWindow.class,
                w -> assertThat(w.startMode()).isEqualTo(Message.StartMode.JOIN));
    }

    @Test
    void aSwitchWithoutASlotStartsANewEpochButABurstCostsOneReplan() throws Exception {
        planWithout(late, SLOTS);
        long epoch = faults.ring().epoch();
        long first = 0x0F00000000000001L;
        long second = 0x0F00000000000002L;
        connect(first, endpoint(901, 7684), SLOTS);
        faults.planRing(withExtra(Set.of(first)));
        assertThat(faults.ring().epoch()).as("a new epoch waits for the replan interval").isEqualTo(epoch);
        assertThat(loop.isScheduled(RingPlanner.REPLAN)).isTrue();
        connect(second, endpoint(902, 7684), SLOTS);
        faults.planRing(withExtra(Set.of(first, second)));

        loop.advance(faults.planner().replanIntervalMs());
        assertThat(faults.ring().epoch()).as("one replan for both").isEqualTo(epoch + 1);
        assertThat(faults.ring().contains(first)).isTrue();
        assertThat(faults.ring().contains(second)).isTrue();
        assertThat(loop.isScheduled(RingPlanner.REPLAN)).isFalse();
        loop.advance(10 * faults.planner().replanIntervalMs());
        assertThat(faults.ring().epoch()).as("and no further one").isEqualTo(epoch + 1);
    }

    @Test
    void anAgentThatCannotStartSlotsDeadGetsTheRingOfConnectedSwitches() throws Exception {
        // one agent without FEATURE_DETECTOR_SLOTS would suspect every vacant slot: no slots, as before
        planWithout(late, Protocol.FEATURE_DETECTOR_WINDOW);
        assertThat(faults.ring().size()).isEqualTo(expected.switches().size());
        assertThat(faults.ring().contains(late)).isFalse();
        long epoch = faults.ring().epoch();
        connect(late, endpoint(900, 9100), Protocol.FEATURE_DETECTOR_WINDOW);
        faults.planRing(expected);
        loop.advance(faults.planner().replanIntervalMs());
        assertThat(faults.ring().epoch()).as("the late switch needs a new epoch").isEqualTo(epoch + 1);
        assertThat(faults.ring().contains(late)).isTrue();
    }

    /** The expected fabric with switches outside its numbering (no links yet). */
    Fabric withExtra(Set<Long> extra) {
        List<FabricSwitch> switches = new ArrayList<>(expected.switches());
        for (long g : extra) {
            switches.add(new FabricSwitch(g, "extra-" + Long.toHexString(g), 16));
        }
        return new Fabric(null, switches, expected.nodes(), expected.links());
    }

    static int indexOf(RingCoordinator ring, long guid) {
        for (int i = 0; i < ring.size(); i++) {
            if (ring.guid(i) == guid) {
                return i;
            }
        }
        throw new AssertionError("not in the ring: " + Long.toHexString(guid));
    }
}
