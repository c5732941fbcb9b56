package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.overlay.Overlay;
import org.fabricmanager.detector.sim.Simulation;
import org.fabricmanager.detector.sim.SimulationConfig;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.Ranking;
import org.junit.jupiter.api.Test;

/**
 * A pod losing power, in the detector's deterministic simulation with the ring in {@link RingOrder}:
 * none of its switches follow each other in the ring, so each is found by its own observer after one
 * δ at most and the daemon's member (member 0) knows them all within δ plus the broadcast. Times are
 * the simulation's virtual clock, not the machine's.
 */
class RingOrderPodFailureTest {
    static final long MS = 1_000_000L;
    static final long ETA = 100 * MS;
    static final long DELTA = 500 * MS;

    @Test
    void everyPodOfAThreeLevelFatTreeIsKnownDeadWithinOneDelta() {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;8,8,8;1,8,8;1,1,1)"));
        FabricIndex index = fabric.index();
        int[] rank = Ranking.fromLeaves(index);
        List<Long> ring = RingOrder.of(fabric);
        int[] member = new int[index.switchCount()];
        for (int i = 0; i < ring.size(); i++) {
            member[index.switchId(ring.get(i))] = i + 1; // the daemon is member 0
        }
        Set<Integer> covered = new HashSet<>();
        for (int leaf : index.leaves()) {
            if (covered.contains(leaf)) {
                continue;
            }
            Set<Integer> pod = pod(index, rank, leaf);
            covered.addAll(pod);
            Set<Integer> victims = new HashSet<>();
            for (int s : pod) {
                victims.add(member[s]);
            }
            assertThat(victims).hasSize(16);
            long crashAt = 2_000 * MS;
            long[] lastKnown = {Long.MIN_VALUE};
            Set<Integer> known = new HashSet<>();
            Simulation sim = new Simulation(SimulationConfig.of(ring.size() + 1,
                    RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.BMG), 100_000, leaf),
                    new SimpleMeterRegistry(), (m, event, nanos) -> {
                        if (m == 0 && event instanceof DetectorEvent.MemberFailed f && victims.contains(f.member())
                                && known.add(f.member())) {
                            lastKnown[0] = nanos;
                        }
                    });
            sim.startAll(0);
            for (int v : victims) {
                sim.crash(v, crashAt);
            }
            sim.runUntil(crashAt + 20 * DELTA);
            assertThat(known).as("pod of leaf %d", leaf).isEqualTo(victims);
            assertThat(lastKnown[0] - crashAt).as("pod of leaf %d: last switch known dead after (ns)", leaf)
                    .isLessThanOrEqualTo(DELTA + ETA);
        }
        assertThat(covered).as("every leaf and level-2 switch in some pod").hasSize(128);
    }

    /** The leaf's level-2 neighbours and all their leaves. */
    private static Set<Integer> pod(FabricIndex index, int[] rank, int leaf) {
        Set<Integer> pod = new HashSet<>();
        for (int up : index.peerSwitches(leaf)) {
            if (up >= 0 && rank[up] == 1) {
                pod.add(up);
                for (int down : index.peerSwitches(up)) {
                    if (down >= 0 && rank[down] == 0) {
                        pod.add(down);
                    }
                }
            }
        }
        return pod;
    }
}
