package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Southbound;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.sim.SimEndpoints;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault reaction end to end on PGFT(3;8,8,8;1,8,8;1,1,1) with the ring failure detector in every
 * simulated agent (η 100 ms, δ 1 s, UDP on loopback): a spine whose agent dies silently is found by
 * the ring alone and routed around with one computation; its revival restores the intact tables; 20
 * simultaneous link faults cost at most 2 computations; a flapping link is quarantined and stops
 * causing re-routes, then is released once stable; the new REST endpoints answer with the right
 * status codes.
 */
class FaultReactionIT {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;8,8,8;1,8,8;1,1,1)");
    // Well above the scheduling stalls of a loaded 2-core machine: a false suspicion would remove a
    // healthy switch for a moment and make the counts below wrong for reasons the test is not about.
    static final int DELTA_MS = 1_000;
    /**
     * Fault events this close make one re-route (the daemon's default is 50 ms): the simulator's 20 link faults reach
     * the daemon through 192 agents on two I/O threads, over 40 ms or more on a loaded machine, which at 50 ms made
     * three re-routes once in the suite (the first fault alone, then two waves).
     */
    static final int FAULT_SETTLE_MS = 300;
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;
    @TempDir
    Path work;

    @Test
    void ringFindsASilentSpineAndTheDaemonRoutesAroundIt() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        // the reaction as such: a repair's refinement (routing.rebalance.refineAfter) would add a computation later
        DaemonConfig base = SystemSupport.config(state, SPEC).withRefineAfter("off");
        Southbound sb = base.southbound();
        DaemonConfig c = new DaemonConfig(new Southbound(sb.bind(), sb.port(), sb.maxFrameBytes(),
                sb.handshakeTimeoutMs(), 1_000, 120_000, sb.ioThreads()), base.rest(), base.fabric(), base.discovery(),
                base.routing(), base.push(), base.state(), DaemonConfig.Faults.of(FAULT_SETTLE_MS, 3, 60_000, 3_000,
                new DaemonConfig.Detector(true, 100, DELTA_MS, "bmg", "127.0.0.1", SystemSupport.freeUdpPort(), SystemSupport.freeUdpPort(), 30_000)))
                .withAdminToken("s3cret");
        SimEndpoints simEndpoints = new SimEndpoints();
        FabricManagerDaemon daemon = FabricManagerDaemon.start(c, StartOptions.of(List.of()).rest(List.of(simEndpoints)));
        try (FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            SimpleMeterRegistry ring = new SimpleMeterRegistry();
            sim.enableDetectors(ring);
            // sim endpoints are 404 until a simulator is attached (demo mode)
            assertThat(post(daemon, "/api/v1/sim/links/down?guid=0x1&port=1", null).statusCode()).isEqualTo(404);
            sim.start();
            Views.Status s = SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED
                    && st.switches().connected() == 192, "first convergence");
            long v1 = s.routing().version();
            ForwardingTables intact = SystemSupport.routeCommand(daemon.api().topology().get(), work, "intact");
            awaitDetectors(sim, 192);
            // the ring warms up (BOOTSTRAP grants 2δ before the first suspicion): wait until its members heard 4δ's
            // worth of heartbeats (η = 100 ms), which on a loaded machine takes longer than 4δ
            double warm = 192 * (4.0 * DELTA_MS / 100);
            Await.until("the ring's members to hear " + (long) warm + " heartbeats", Duration.ofSeconds(120),
                    () -> ring.get(DetectorMetrics.HEARTBEATS_RECEIVED).counter().count() >= warm);
            assertThat(daemon.api().faults().get().switches()).as("no false suspicion after start-up").isEmpty();
            long computations = daemon.computations().get();

            // 1. a spine's agent dies silently: no FIN, no PORT_STATUS; only the ring can tell
            long spine = PgftGenerator.switchGuid(3, 5);
            long t0 = System.nanoTime();
            sim.kill(spine, FabricSimulator.KillMode.AGENT);
            SystemSupport.awaitTrue(() -> !daemon.api().faults().get().switches().isEmpty(), "the ring reports the spine", 60);
            double detectedMs = (System.nanoTime() - t0) / 1e6;
            FaultReport faults = daemon.api().faults().get();
            assertThat(faults.switches()).extracting(FaultReport.SwitchFault::guid).containsExactly(Guids.format(spine));
            s = SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() > v1,
                    "re-route around the spine");
            System.out.printf("silent spine kill: detected after %.0f ms (delta %d ms), converged v%d%n", detectedMs,
                    DELTA_MS, s.routing().version());
            // the failed switches are the ring's verdicts only (the session stays open: its idle limit is 120 s); how
            // soon the ring finds the spine is a figure of the failure detector's benchmarks, not a bound here (4.05 s
            // against a bound of delta + 3 s failed once in the suite on a loaded machine)
            assertThat(daemon.computations().get()).as("one re-route").isEqualTo(computations + 1);
            assertThat(s.switches().connected()).isEqualTo(191);
            Fabric degraded = daemon.api().topology().get();
            assertThat(degraded.switches()).hasSize(191);
            assertThat(degraded.switchByGuid(spine)).isEmpty();
            ForwardingTables around = SystemSupport.routeCommand(degraded, work, "degraded", work.resolve("intact.lft"));
            assertSurvivorsHold(sim, around, s.routing().version());
            JsonNode status = JSON.readTree(get(daemon, "/api/v1/status").body());
            assertThat(status.path("switches").path("connected").asInt()).isEqualTo(191);
            HttpResponse<String> fr = get(daemon, "/api/v1/faults");
            assertThat(fr.statusCode()).isEqualTo(200);
            JsonNode fj = JSON.readTree(fr.body());
            assertThat(fj.path("switches").get(0).path("guid").asText()).isEqualTo(Guids.format(spine));
            assertThat(fj.path("detectorEnabled").asBoolean()).isTrue();
            java.io.ByteArrayOutputStream cliOut = new java.io.ByteArrayOutputStream();
            int code = new org.fabricmanager.cli.Main(new java.io.PrintStream(cliOut, true, java.nio.charset.StandardCharsets.UTF_8),
                    new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, java.nio.charset.StandardCharsets.UTF_8))
                    .run("faults", "--url", daemon.restUrl());
            assertThat(code).isZero();
            assertThat(cliOut.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("failed switches: 1")
                    .contains(Guids.format(spine)).contains("s3-5");
            JsonNode events = JSON.readTree(get(daemon, "/api/v1/events?since=0").body());
            JsonNode reaction = null;
            for (JsonNode e : events) {
                if (e.path("kind").asText().equals("REACTION")) {
                    reaction = e;
                }
            }
            assertThat(reaction).as("a reaction event").isNotNull();
            assertThat(reaction.path("details").path("computations").asInt()).isEqualTo(1);
            assertThat(reaction.path("details").path("faultToConvergedMs").asDouble()).isPositive();
            assertThat(reaction.path("details").path("switchesAcked").asInt()).isPositive();

            // 2. revival: the agent rejoins, the intact tables return
            long v2 = s.routing().version();
            sim.revive(spine);
            s = SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() > v2
                    && st.switches().connected() == 192, "revival");
            assertThat(daemon.api().topology().get()).isEqualTo(fabric);
            SystemSupport.assertAgentsHold(sim, intact, s.routing().version());
            SystemSupport.awaitTrue(() -> daemon.api().faults().get().switches().isEmpty(), "the ring sees the spine rejoin", 60);

            // 3. 20 simultaneous link faults: at most 2 re-routes
            long before = daemon.computations().get();
            long v3 = s.routing().version();
            List<long[]> cut = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                cut.add(new long[]{PgftGenerator.switchGuid(1, (i * 3) % 64), 9 + i % 8});
            }
            for (long[] l : cut) {
                sim.linkDown(l[0], (int) l[1]);
            }
            s = SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() > v3,
                    "re-route after 20 link faults");
            SystemSupport.awaitTrue(() -> daemon.api().topology().get().links().size() == fabric.links().size() - 20, "all 20 links down", 60);
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED, "converged");
            long used = daemon.computations().get() - before;
            System.out.printf("20 simultaneous link faults: %d routing computations%n", used);
            assertThat(used).isBetween(1L, 2L);
            assertThat(daemon.api().faults().get().links()).hasSize(40); // both ends report
            for (long[] l : cut) {
                sim.linkUp(l[0], (int) l[1]);
            }
            SystemSupport.awaitTrue(() -> daemon.api().topology().get().equals(fabric), "links repaired", 60);

            // 4. a flapping link is quarantined and stops causing re-routes; stable again, it is released
            long flapLeaf = PgftGenerator.switchGuid(1, 20);
            for (int i = 0; i < 4; i++) {
                sim.linkDown(flapLeaf, 12);
                SystemSupport.awaitTrue(() -> linkCount(daemon) == fabric.links().size() - 1, "flap down", 60);
                sim.linkUp(flapLeaf, 12);
                if (i < 3) {
                    SystemSupport.awaitTrue(() -> linkCount(daemon) == fabric.links().size(), "flap up", 60);
                }
            }
            SystemSupport.awaitTrue(() -> daemon.api().faults().get().quarantined().size() == 2, "both ends quarantined", 60);
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED, "converged while quarantined");
            long quarantinedSeq = lastSeq(daemon);
            // each flap is seen by the daemon (both ends' flap counts grow; an "up" restarts their stable-up clocks)
            // before the next, and the last is processed before the events are read
            int flaps = quarantinedFlaps(daemon);
            for (int i = 0; i < 3; i++) {
                int downs = flaps + 2 * (i + 1);
                sim.linkDown(flapLeaf, 12);
                Await.until("flap " + (i + 1) + " down counted at both ends", Duration.ofSeconds(60),
                        () -> quarantinedFlaps(daemon) >= downs);
                sim.linkUp(flapLeaf, 12);
                Await.value("flap " + (i + 1) + " up seen at both ends", Duration.ofSeconds(60),
                        () -> daemon.api().faults().get().quarantined(),
                        q -> q.stream().allMatch(e -> e.stableUpSinceMillis() != null));
            }
            SystemSupport.await(daemon, st -> st.state() == DaemonState.CONVERGED, "converged");
            for (JsonNode e : JSON.readTree(get(daemon, "/api/v1/events?since=" + quarantinedSeq).body())) {
                assertThat(e.path("details").path("triggers").toString()).as("flaps of a quarantined link cause no "
                        + "re-route").doesNotContain("s1-20 port 12");
            }
            // settled: exactly the quarantined link is missing (not restored by its last "up")
            SystemSupport.awaitTrue(() -> linkCount(daemon) == fabric.links().size() - 1
                    && daemon.api().faults().get().quarantined().size() == 2, "kept down", 60);
            assertThat(linkCount(daemon)).as("kept down").isEqualTo(fabric.links().size() - 1);
            assertThat(JSON.readTree(get(daemon, "/api/v1/faults").body()).path("quarantined")).hasSize(2);
            SystemSupport.awaitTrue(() -> linkCount(daemon) == fabric.links().size(), "released after being stable", 60);
            assertThat(daemon.api().faults().get().quarantined()).isEmpty();

            // 5. REST actions: reroute needs the token; sim endpoints work once a simulator is attached
            assertThat(post(daemon, "/api/v1/reroute", null).statusCode()).isEqualTo(401);
            assertThat(post(daemon, "/api/v1/reroute", "Bearer wrong").statusCode()).isEqualTo(403);
            HttpResponse<String> ok = post(daemon, "/api/v1/reroute", "Bearer s3cret");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(ok.body()).path("result").asText()).isEqualTo("re-route scheduled");
            assertThat(get(daemon, "/api/v1/reroute").statusCode()).isEqualTo(405);
            simEndpoints.attach(sim);
            long leaf = PgftGenerator.switchGuid(1, 7);
            HttpResponse<String> down = post(daemon, "/api/v1/sim/links/down?guid=" + Guids.format(leaf) + "&port=10", null);
            assertThat(down.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(down.body()).path("state").asText()).isEqualTo("down");
            assertThat(post(daemon, "/api/v1/sim/links/down?guid=" + Guids.format(leaf) + "&port=x", null).statusCode())
                    .isEqualTo(400);
            assertThat(post(daemon, "/api/v1/sim/switches/0x77/kill?mode=agent", null).statusCode()).isEqualTo(404);
            assertThat(post(daemon, "/api/v1/sim/switches/" + Guids.format(leaf) + "/kill?mode=hard", null).statusCode())
                    .isEqualTo(400);
            SystemSupport.awaitTrue(() -> daemon.api().topology().get().links().size() == fabric.links().size() - 1, "sim link down", 60);
        } finally {
            daemon.close();
        }
        // without a token, reroute is refused with 403 and says why
        FabricManagerDaemon plain = FabricManagerDaemon.start(SystemSupport.config(work.resolve("plain"), SPEC), List.of());
        try {
            HttpResponse<String> r = post(plain, "/api/v1/reroute", "Bearer anything");
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("no admin token");
        } finally {
            plain.close();
        }
    }

    private static long lastSeq(FabricManagerDaemon d) throws Exception {
        long seq = 0;
        for (JsonNode e : JSON.readTree(get(d, "/api/v1/events?since=0").body())) {
            seq = Math.max(seq, e.path("seq").asLong());
        }
        return seq;
    }

    private static int linkCount(FabricManagerDaemon d) throws Exception {
        return d.api().topology().get().links().size();
    }

    private static void assertSurvivorsHold(FabricSimulator sim, ForwardingTables expected, long version) {
        SystemSupport.assertSwitchesHold(sim, expected, version);
    }

    /** The downs counted on the quarantined ports. */
    private static int quarantinedFlaps(FabricManagerDaemon daemon) {
        try {
            return daemon.api().faults().get().quarantined().stream().mapToInt(q -> q.flaps()).sum();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitDetectors(FabricSimulator sim, int n) throws Exception {
        SystemSupport.awaitTrue(() -> sim.detectors().running() == n, n + " detector members running", 60);
    }


    private static final HttpClient HTTP = HttpClient.newHttpClient();

    static HttpResponse<String> get(FabricManagerDaemon d, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(d.restUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> post(FabricManagerDaemon d, String path, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(d.restUrl() + path))
                .POST(HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
