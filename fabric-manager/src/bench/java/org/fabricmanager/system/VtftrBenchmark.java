package org.fabricmanager.system;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Benchmark (not part of the test suite): a 2-D fat tree routed with vtftr in the production shape ({@code run}
 * plus one {@code simulate --hdft} process): start to CONVERGED with its phases, the full push (blocks and
 * VC_RULES), then leaves of one row losing power one after the other, each with its re-route time and what it
 * pushed (every batch carries the switch's VC rules). Run after packaging:
 * <pre>
 * mvn -B -o verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=VtftrBenchmark -Dfm.bench=true \
 *     -Dfailsafe.failIfNoSpecifiedTests=false [-Dfm.bench.hdft=HDFT(16x16;8;2;2)] [-Dfm.bench.leaves=3]
 * </pre>
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class VtftrBenchmark {
    private static final HdftSpec SPEC = HdftSpec.parse(System.getProperty("fm.bench.hdft", "HDFT(16x16;8;2;2)"));
    private static final int LEAVES = Integer.getInteger("fm.bench.leaves", 3);

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.NEVER)
    Path work;

    @Test
    void hdftInTheProductionShape() throws Exception {
        Fabric fabric = HdftGenerator.generate(SPEC);
        int switches = fabric.switches().size();
        System.out.printf("vtftr production shape: %s, %d switches, %d nodes; work in %s%n", SPEC, switches,
                fabric.nodes().size(), work);
        System.out.printf("machine: %d cores; load before: %s%n", Runtime.getRuntime().availableProcessors(), load());
        Path config = work.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedHdft: "%s"
                routing:
                  engine: vtftr
                discovery:
                  settleMs: 3000
                  maxWaitMs: 120000
                state:
                  directory: "%s"
                security:
                  insecure: true
                """.formatted(SPEC, work.resolve("state")));
        try (FabricProcesses fp = new FabricProcesses(work)) {
            long t0 = System.currentTimeMillis();
            fp.startDaemon(config, "-Xmx1g");
            FabricProcesses.Simulator sim = fp.startSimulator("sim", "-Xmx1g", List.of("--hdft", SPEC.toString()));
            JsonNode st = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == switches, "first convergence", 600);
            List<JsonNode> events = fp.events(0);
            long started = time(events, "STARTED");
            System.out.printf("start to CONVERGED: %,d ms (daemon start to CONVERGED %,d ms, of which the discovery "
                            + "settle window %d ms)%n", System.currentTimeMillis() - t0,
                    time(events, "CONVERGED") - started, 3000);
            System.out.printf("  %s%n  full push: %,d blocks, %,d bytes (with %d VC_RULES), %.0f ms%n",
                    message(events, "ROUTING_COMPUTED"), st.at("/push/blocks").asLong(), st.at("/push/bytes").asLong(),
                    switches, st.at("/push/durationMs").asDouble());
            for (int k = 0; k < LEAVES; k++) {
                long leaf = HdftGenerator.leafGuid(SPEC, 1 + k, 0);
                long seq = fp.lastSeq();
                sim.command("kill " + Guids.format(leaf) + " power");
                JsonNode r = fp.awaitEvent("REACTION", seq, 120);
                JsonNode d = r.path("details");
                System.out.printf("leaf %s (row 0) power-killed: converged %.1f ms after the fault (%d routing "
                                + "computations %.1f ms, push %.1f ms); %d blocks, %d bytes pushed; %d switches acked "
                                + "(each batch with its VC_RULES)%n  %s%n", Guids.format(leaf),
                        d.path("faultToConvergedMs").asDouble(), d.path("computations").asInt(),
                        d.path("engineMs").asDouble(), d.path("pushMs").asDouble(), d.path("blocksPushed").asLong(),
                        d.path("bytesPushed").asLong(), d.path("switchesAcked").asLong(),
                        message(fp.events(seq), "ROUTING_COMPUTED"));
            }
            System.out.printf("load after: %s%n", load());
        }
    }

    private static long time(List<JsonNode> events, String kind) {
        for (JsonNode e : events) {
            if (e.path("kind").asText().equals(kind)) {
                return e.path("timeMillis").asLong();
            }
        }
        return -1;
    }

    private static String message(List<JsonNode> events, String kind) {
        for (JsonNode e : events) {
            if (e.path("kind").asText().equals(kind)) {
                return e.path("message").asText();
            }
        }
        return "";
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
