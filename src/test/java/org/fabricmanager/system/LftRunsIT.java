package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production shape with agents of two releases: a {@code run} daemon, the spines' agents in a {@code simulate
 * --no-lft-runs} process (they predate LFT_BLOCKS) and the leaves' in a current one. Both install the same routing;
 * the daemon sends each kind its own frames and counts exactly their bytes.
 */
class LftRunsIT {
    /** 256 nodes: every table is four full blocks, one LFT_BLOCKS run or four LFT_BLOCKs. */
    static final String SPEC = "PGFT(2;16,16;1,16;1,1)";

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void oldAndNewAgentsConvergeOnOneRoutingWithTheirOwnFrames() throws Exception {
        List<String> spines = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            spines.add(Guids.format(PgftGenerator.switchGuid(2, i)));
        }
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                state:
                  directory: "%s"
                security:
                  insecure: true
                """.formatted(SPEC, dir.resolve("state")));
        try (FabricProcesses fp = new FabricProcesses(dir)) {
            fp.startDaemon(config, "-Xmx256m");
            fp.startSimulator("sim-old-spines", "-Xmx256m",
                    List.of("--pgft", SPEC, "--only", String.join(",", spines), "--no-lft-runs"));
            fp.startSimulator("sim-leaves", "-Xmx256m", List.of("--pgft", SPEC, "--except", String.join(",", spines)));
            JsonNode st = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == 32, "convergence with 32 switches", 120);
            assertThat(st.at("/tables/inSync").asInt()).as("every table acknowledged with its hash").isEqualTo(32);
            assertThat(st.at("/routing/version").asLong()).isEqualTo(1);
            long oldBytes = 4L * LftBatch.blockFrameBytes(64) + LftBatch.COMMIT_FRAME_BYTES;
            long newBytes = LftBatch.runFrameBytes(256) + LftBatch.COMMIT_FRAME_BYTES;
            assertThat(st.at("/push/blocks").asLong()).isEqualTo(32 * 4);
            assertThat(st.at("/push/bytes").asLong()).as("16 tables as LFT_BLOCKs, 16 as one LFT_BLOCKS run each")
                    .isEqualTo(16 * oldBytes + 16 * newBytes);
            assertThat(newBytes).isLessThan(oldBytes);
        }
    }
}
