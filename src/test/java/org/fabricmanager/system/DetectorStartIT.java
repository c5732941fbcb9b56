package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.faults.RingOrder;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cold start of the ring that goes wrong in the ways large fabrics make likely, with real UDP
 * members on loopback: the daemon's emitter (the last switch in ring order) starts its member 3δ
 * after its configuration arrives, and two agents have no failure detector at all. The daemon must
 * declare no switch dead, route nothing around, list the two as unwatched, and still find a silent
 * agent once the ring runs. And an agent restarted faster than δ keeps its new session when the ring
 * declares its previous run dead.
 */
class DetectorStartIT {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)");
    static final int DELTA_MS = 1_000;
    static final int SWITCHES = 48;

    @TempDir
    Path state;

    @Test
    void aLateMemberAndAgentsWithoutDetectorCauseNoFalseFault() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        DaemonConfig c = config();
        List<Long> order = RingOrder.of(fabric);
        long daemonsEmitter = order.get(order.size() - 1);
        List<Long> withoutDetector = List.of(order.get(0), order.get(order.size() / 2));
        SimpleMeterRegistry agents = new SimpleMeterRegistry();
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(c, List.of());
             FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.enableDetectors(agents);
            sim.detectors().delayStart(daemonsEmitter, 3L * DELTA_MS);
            for (long g : withoutDetector) {
                sim.agent(g).detectorListener(null);
            }
            sim.start();
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == SWITCHES,
                    "first convergence");
            long computations = daemon.computations().get();

            SystemSupport.awaitTrue(() -> kinds(daemon).contains(Milestone.Kind.DETECTOR_RUNNING),
                    "every agent answered its ring configuration", 60);
            // the last answer is the late member's ACK, sent once it runs
            assertThat(sim.detectors().running()).isEqualTo(SWITCHES - withoutDetector.size());
            FaultReport faults = daemon.api().faults().get(10, TimeUnit.SECONDS);
            assertThat(faults.ringStarting()).isZero();
            assertThat(faults.ringUnconfirmed()).isZero();
            assertThat(faults.unwatched()).extracting(FaultReport.Unwatched::guid)
                    .containsExactlyInAnyOrderElementsOf(withoutDetector.stream().map(Guids::format).toList());
            assertThat(faults.unwatched()).allSatisfy(u -> assertThat(u.reason()).contains("no failure detector")
                    .contains("UNSUPPORTED_FEATURE"));

            awaitRingTime(agents, SWITCHES - withoutDetector.size(), 4); // long enough for any suspicion of the late or the silent members
            assertThat(kinds(daemon)).as("no switch declared dead").doesNotContain(Milestone.Kind.SWITCH_FAILED);
            assertThat(daemon.api().faults().get(10, TimeUnit.SECONDS).switches()).isEmpty();
            assertThat(daemon.computations().get()).as("nothing routed around").isEqualTo(computations);
            assertThat(daemon.api().status().get(10, TimeUnit.SECONDS).switches().connected()).isEqualTo(SWITCHES);

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int code = new org.fabricmanager.cli.Main(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                    .run("faults", "--url", daemon.restUrl());
            assertThat(code).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("switches the ring cannot watch: 2")
                    .contains(Guids.format(withoutDetector.get(0)));

            // the grace is over: the daemon's member, the late switch's only observer, finds it when it hangs
            sim.kill(daemonsEmitter, FabricSimulator.KillMode.AGENT);
            SystemSupport.awaitTrue(() -> daemon.api().faults().get(10, TimeUnit.SECONDS).switches().stream()
                    .anyMatch(f -> f.guid().equals(Guids.format(daemonsEmitter))), "the ring reports the hung switch", 60);
            assertThat(daemon.api().faults().get(10, TimeUnit.SECONDS).switches()).hasSize(1);
        }
    }

    @Test
    void aMemberStartedLateInAColdStartIsNotSuspectedByItsObserver() throws Exception {
        // members start as their windows arrive, in no ring order: an agent's member whose emitter (another agent's)
        // starts 3δ after it used to give that emitter the SC'16 2δ and declare it dead (the demo's cold-start death)
        Fabric fabric = PgftGenerator.generate(SPEC);
        List<Long> order = RingOrder.of(fabric);
        long late = order.get(order.size() / 3);
        SimpleMeterRegistry agents = new SimpleMeterRegistry();
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config(), List.of());
             FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.enableDetectors(agents);
            sim.detectors().delayStart(late, 3L * DELTA_MS);
            sim.start();
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == SWITCHES,
                    "first convergence");
            SystemSupport.awaitTrue(() -> kinds(daemon).contains(Milestone.Kind.DETECTOR_RUNNING),
                    "every member running (the late one answers once it runs)", 60);
            assertThat(sim.detectors().running()).isEqualTo(SWITCHES);
            awaitRingTime(agents, SWITCHES, 2);
            assertThat(agents.counter(org.fabricmanager.detector.DetectorMetrics.SUSPICIONS).count())
                    .as("no agent's member declared its emitter dead").isZero();
            assertThat(kinds(daemon)).doesNotContain(Milestone.Kind.SWITCH_FAILED);
        }
    }

    @Test
    void aMemberThatAnswersAfterTheWaitIsUnconfirmedUntilItsAnswerComes() throws Exception {
        // the daemon waits 2δ for each answer; one member starts 4δ after its window arrived (a busy switch, or
        // one of thousands in a simulator): the ring runs, but the daemon must not call that member confirmed
        Fabric fabric = PgftGenerator.generate(SPEC);
        List<Long> order = RingOrder.of(fabric);
        long late = order.get(order.size() / 2);
        SimpleMeterRegistry agents = new SimpleMeterRegistry();
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config(2 * DELTA_MS), List.of());
             FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.enableDetectors(agents);
            sim.detectors().delayStart(late, 4L * DELTA_MS);
            sim.start();
            SystemSupport.awaitTrue(() -> kinds(daemon).contains(Milestone.Kind.DETECTOR_RUNNING),
                    "the wait for answers ends", 60);
            String running = daemon.api().milestones(0).get(10, TimeUnit.SECONDS).stream()
                    .filter(m -> m.kind() == Milestone.Kind.DETECTOR_RUNNING).findFirst().orElseThrow().message();
            assertThat(running).contains("48 of 48 switches watched").contains("1 of them did not answer in time");
            SystemSupport.awaitTrue(() -> daemon.api().faults().get(10, TimeUnit.SECONDS).ringUnconfirmed() == 0,
                    "the late member's answer", 60);
            assertThat(sim.detectors().running()).isEqualTo(SWITCHES);
            FaultReport faults = daemon.api().faults().get(10, TimeUnit.SECONDS);
            assertThat(faults.ringStarting()).isZero();
            assertThat(faults.unwatched()).isEmpty();
            awaitRingTime(agents, SWITCHES, 2);
            assertThat(kinds(daemon)).doesNotContain(Milestone.Kind.SWITCH_FAILED);
        }
    }

    @Test
    void anAgentRestartedFasterThanTheRingNoticesKeepsItsNewSession() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        List<Milestone> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        SimpleMeterRegistry agents = new SimpleMeterRegistry();
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config(), List.of(seen::add));
             FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.enableDetectors(agents);
            sim.start();
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == SWITCHES,
                    "first convergence");
            SystemSupport.awaitTrue(() -> kinds(daemon).contains(Milestone.Kind.DETECTOR_RUNNING), "ring running", 60);
            long leaf = PgftGenerator.switchGuid(1, 5);
            String name = Guids.format(leaf);

            // the agent process dies and is restarted at once, but its new ring member takes 2δ to start: the
            // ring declares the previous run dead about δ after the kill, while the new run is already connected
            sim.detectors().delayStart(leaf, 2L * DELTA_MS);
            sim.kill(leaf, FabricSimulator.KillMode.AGENT);
            sim.revive(leaf);
            SystemSupport.awaitTrue(() -> connections(seen, name) == 2, "the restarted agent connects", 30);
            SystemSupport.awaitTrue(() -> sim.detectors().running() == SWITCHES, "its new member runs", 30);
            awaitRingTime(agents, SWITCHES, 4);
            assertThat(kinds(daemon)).as("the verdict on the previous run is not applied to the new one")
                    .doesNotContain(Milestone.Kind.SWITCH_FAILED);
            assertThat(connections(seen, name)).as("the new session was never dropped").isEqualTo(2);
            assertThat(daemon.api().faults().get(10, TimeUnit.SECONDS).switches()).isEmpty();
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == SWITCHES,
                    "in sync again");
        }
    }

    @Test
    void aDaemonRestartedUnderRunningAgentsRestartsTheirMembersWithItsKey() throws Exception {
        // the restarted daemon numbers its epochs from 1 again, with a new key: agents that kept their running member
        // because its epoch number matched sealed with the previous life's key, the daemon's member and theirs dropped
        // each other's datagrams, and the daemon suspected a live switch about every δ (each verdict refuted)
        Fabric fabric = PgftGenerator.generate(SPEC);
        DaemonConfig c = config();
        SimpleMeterRegistry agents = new SimpleMeterRegistry();
        FabricManagerDaemon first = FabricManagerDaemon.start(c, List.of());
        int port = first.southboundAddress().getPort();
        boolean firstRunning = true;
        try (FabricSimulator sim = SystemSupport.simulator(fabric, port)) {
            sim.enableDetectors(agents);
            sim.start();
            SystemSupport.await(first, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == SWITCHES,
                    "first convergence");
            SystemSupport.awaitTrue(() -> kinds(first).contains(Milestone.Kind.DETECTOR_RUNNING), "the first ring", 60);
            first.close(); // as SIGTERM does; the agents and their members stay up
            firstRunning = false;

            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (FabricManagerDaemon daemon = FabricManagerDaemon.start(c.withPorts(port, 0),
                    StartOptions.of(List.of()).registry(registry))) {
                SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED
                        && st.switches().connected() == SWITCHES, "convergence after the restart");
                SystemSupport.awaitTrue(() -> kinds(daemon).contains(Milestone.Kind.DETECTOR_RUNNING),
                        "the restarted daemon's ring running", 60);
                assertThat(daemon.api().faults().get(10, TimeUnit.SECONDS).ringEpoch())
                        .as("the same epoch number as the previous life's ring").isEqualTo(1);
                awaitRingTime(agents, SWITCHES, 2); // the members of the new epoch settle
                double raised = count(registry, org.fabricmanager.detector.DetectorMetrics.SUSPICIONS_RAISED);
                double agentsRaised = count(agents, org.fabricmanager.detector.DetectorMetrics.SUSPICIONS_RAISED);
                awaitRingTime(agents, SWITCHES, 6);
                assertThat(count(registry, org.fabricmanager.detector.DetectorMetrics.SUSPICIONS_RAISED) - raised)
                        .as("the daemon's member suspected no live switch for 6 δ").isZero();
                assertThat(count(agents, org.fabricmanager.detector.DetectorMetrics.SUSPICIONS_RAISED) - agentsRaised)
                        .as("no agent's member suspected its emitter for 6 δ").isZero();
                assertThat(registry.find("fabric.detector.verdicts").counters()).as("no verdict, confirmed or refuted")
                        .allSatisfy(v -> assertThat(v.count()).isZero());
                assertThat(kinds(daemon)).doesNotContain(Milestone.Kind.SWITCH_FAILED);
            }
        } finally {
            if (firstRunning) {
                first.close();
            }
        }
    }

    private static double count(SimpleMeterRegistry registry, String name) {
        var c = registry.find(name).counter();
        return c == null ? 0 : c.count();
    }

    /**
     * Waits until the agents' ring members heard {@code deltas} δ's worth of heartbeats more than so far
     * ({@code members} members, one heartbeat per η = 100 ms each): ring time, which a loaded machine stretches.
     */
    private static void awaitRingTime(SimpleMeterRegistry agents, int members, int deltas) {
        double from = heartbeatsHeard(agents);
        double more = members * (deltas * DELTA_MS / 100.0);
        Await.until(deltas + " δ of ring time (" + (long) more + " heartbeats)", java.time.Duration.ofSeconds(120),
                () -> heartbeatsHeard(agents) >= from + more);
    }

    private static double heartbeatsHeard(SimpleMeterRegistry agents) {
        var c = agents.find(org.fabricmanager.detector.DetectorMetrics.HEARTBEATS_RECEIVED).counter();
        return c == null ? 0 : c.count();
    }

    private DaemonConfig config() throws Exception {
        return config(30_000);
    }

    /** The daemon with a start-up grace (and wait for each answer) of {@code graceMs}. */
    private DaemonConfig config(int graceMs) throws Exception {
        return SystemSupport.config(state, SPEC).withFaults(DaemonConfig.Faults.of(50, 3, 60_000, 3_000,
                new DaemonConfig.Detector(true, 100, DELTA_MS, "bmg", "127.0.0.1", SystemSupport.freeUdpPort(),
                        SystemSupport.freeUdpPort(), graceMs)));
    }

    /** Sessions of switch {@code guid} admitted so far (connections are announced, not kept in the log). */
    private static long connections(List<Milestone> seen, String guid) {
        return seen.stream().filter(m -> m.kind() == Milestone.Kind.SWITCH_CONNECTED && m.message().contains(guid)).count();
    }

    private static List<Milestone.Kind> kinds(FabricManagerDaemon d) throws Exception {
        return d.api().milestones(0).get(10, TimeUnit.SECONDS).stream().map(Milestone::kind).toList();
    }
}
