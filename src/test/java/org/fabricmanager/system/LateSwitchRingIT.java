package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 17, in the production shape: a switch that connects after the ring runs joins the running epoch instead of
 * restarting every member. {@code run} with the detector and the expected PGFT(3;4,4,4;1,4,4;1,1,1) (48 switches),
 * one {@code simulate --except X} process: the fabric is routed without leaf X, and the ring is planned over all 48
 * expected switches, X's slot vacant (unwatched, no verdict). Then {@code simulate --only X} starts: the epoch does not
 * change, X's member joins its slot and answers that it runs, and the ring really watches it: SIGSTOP on X's process
 * (TCP open, heartbeats stopped) is declared dead by the ring and routed around, still in the same epoch. The same
 * without an expected PGFT: X's slot then comes from its neighbours' port reports (their cables to X are up, its agent
 * is not there).
 */
class LateSwitchRingIT {
    static final String SPEC = "PGFT(3;4,4,4;1,4,4;1,1,1)";
    static final int SWITCHES = 48;
    // generous for a loaded 2-core host shared with other test runs: a false death would be a reason to fail
    // that this test is not about
    static final int DELTA_MS = 1_500;

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path dir;

    @ParameterizedTest(name = "slots from {0}")
    @ValueSource(strings = {"the expected PGFT", "neighbours' port reports"})
    void aLeafThatConnectsLateJoinsTheRunningEpochAndIsWatched(String slotsFrom) throws Exception {
        String late = Guids.format(PgftGenerator.switchGuid(1, 5));
        Path config = dir.resolve("fabric-manager.yaml");
        boolean expected = slotsFrom.startsWith("the expected");
        Files.writeString(config, (expected ? """
                fabric:
                  expectedPgft: "%s"
                """.formatted(SPEC) : "") + """
                state:
                  directory: "%s"
                security:
                  insecure: true
                discovery:
                  settleMs: 1000
                faults:
                  settleMs: 50
                  detector:
                    enabled: true
                    etaMs: 150
                    deltaMs: %d
                    bind: "127.0.0.1"
                    port: 0
                """.formatted(dir.resolve("state"), DELTA_MS));
        try (FabricProcesses fp = new FabricProcesses(dir)) {
            fp.startDaemon(config, "-Xmx256m");
            fp.startSimulator("sim-rest", "-Xmx256m", List.of("--pgft", SPEC, "--except", late));
            JsonNode first = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == SWITCHES - 1, "convergence without the late leaf", 60);
            long v1 = first.at("/routing/version").asLong();
            // the first routing is Dmodc's; every later one repairs its tables (routing.onFault: repair)
            LiveTables.assertMatchOfflineRoute(fp, dir, "first", RoutingEngines.DEFAULT);
            JsonNode ring = fp.awaitFaults(f -> f.path("ringEpoch").asLong() > 0 && f.path("ringStarting").asInt() == 0 && f.path("ringUnconfirmed").asInt() == 0,
                    "the ring running without the late leaf", 60);
            long epoch = ring.path("ringEpoch").asLong();
            assertThat(ring.path("ringMembers").asInt()).as("the daemon and a slot for every expected switch")
                    .isEqualTo(SWITCHES + 1);
            assertThat(ring.path("unwatched")).as("only the vacant slot is unwatched, with why").singleElement()
                    .satisfies(u -> {
                        assertThat(u.path("guid").asText()).isEqualTo(late);
                        assertThat(u.path("reason").asText()).contains("not connected yet");
                    });
            assertThat(ring.path("switches")).as("no verdict on the vacant slot").isEmpty();

            FabricProcesses.Simulator lone = fp.startSimulator("sim-late", "-Xmx128m",
                    List.of("--pgft", SPEC, "--only", late));
            JsonNode joined = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == SWITCHES && s.at("/routing/version").asLong() > v1
                    && s.at("/tables/inSync").asInt() == SWITCHES, "the late leaf routed in", 60);
            long v2 = joined.at("/routing/version").asLong();
            // its member answered that it runs: nothing is unwatched any more (a vacant slot stays unwatched)
            JsonNode after = fp.awaitFaults(f -> f.path("unwatched").isEmpty(), "the late leaf's member running", 60);
            assertThat(after.path("ringEpoch").asLong()).as("no new epoch for the late leaf").isEqualTo(epoch);
            assertThat(after.path("ringMembers").asInt()).isEqualTo(SWITCHES + 1);
            assertThat(after.path("switches")).as("no false death on the way").isEmpty();
            assertThat(Files.readString(dir.resolve("daemon.err")))
                    .contains("switch " + late)
                    .contains("connected late and joins its slot in ring epoch " + epoch);

            // the ring watches it: a silent stop (TCP stays open) is found by the ring, not by its session
            long seq = fp.lastSeq();
            FabricProcesses.signal(lone.pid(), "STOP");
            JsonNode failed = fp.awaitEvent("SWITCH_FAILED", seq, 60);
            assertThat(failed.path("message").asText()).contains(late).contains("declared dead by the ring");
            JsonNode around = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/routing/version").asLong() > v2, "the re-route around the stopped leaf", 60);
            assertThat(around.at("/switches/connected").asInt()).isEqualTo(SWITCHES - 1);
            JsonNode faults = fp.get("/api/v1/faults");
            assertThat(faults.path("switches").toString()).contains(late);
            assertThat(faults.path("ringEpoch").asLong()).as("still the same epoch").isEqualTo(epoch);
            assertThat(LiveTables.assertMatchOfflineRoute(fp, dir, "without-late-leaf", RoutingEngines.DEFAULT, dir.resolve("first.lft")).switches())
                    .hasSize(SWITCHES - 1);
            FabricProcesses.signal(lone.pid(), "CONT"); // so that close() ends it like the others
        }
    }
}
