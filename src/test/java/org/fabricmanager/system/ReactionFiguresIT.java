package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Honest reaction figures in the production shape ({@code run} and one {@code simulate} process, ring failure
 * detector on, every agent taking its ring as a DETECTOR_WINDOW): a spine loses power, so its session closes
 * at once and the ring's verdict arrives later, about a switch that is already gone. That verdict must not
 * leave a reaction open: the next, unrelated fault (a link, seconds later) is reported with its own triggers
 * and a fault-to-converged time no longer than the time since it was caused (issue 17: a 75 ms link fault was
 * reported as 7,809.7 ms).
 */
class ReactionFiguresIT {
    static final String SPEC = "PGFT(3;8,8,8;1,8,8;1,1,1)";
    static final int DELTA_MS = 2_000; // as DetectorProcessesIT: no false suspicion on a loaded host

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void aVerdictOnASwitchAlreadyGoneDoesNotSwallowTheNextFaultsFigures() throws Exception {
        String spine = Guids.format(PgftGenerator.switchGuid(3, 2));
        String leaf = Guids.format(PgftGenerator.switchGuid(1, 17));
        Path config = FabricProcesses.ringConfig(dir, SPEC, DELTA_MS);
        try (FabricProcesses fp = new FabricProcesses(dir)) {
            fp.startDaemon(config, "-Xmx512m");
            FabricProcesses.Simulator sim = fp.startSimulator("sim", "-Xmx512m", List.of("--pgft", SPEC));
            JsonNode st = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == 192, "convergence with 192 switches", 180);
            long v1 = st.at("/routing/version").asLong();
            fp.awaitFaults(f -> f.path("ringMembers").asInt() == 193 && f.path("ringStarting").asInt() == 0 && f.path("ringUnconfirmed").asInt() == 0,
                    "the ring of the daemon and 192 agents running", 60);
            Thread.sleep(2L * DELTA_MS);

            // 1. the spine loses power: its session closes now, the ring's verdict comes about delta later
            long seq0 = fp.lastSeq();
            sim.command("kill " + spine + " power");
            JsonNode verdict = fp.awaitEvent("SWITCH_FAILED", seq0, 60);
            assertThat(verdict.path("message").asText()).contains(spine).contains("declared dead by the ring");
            fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED") && s.at("/routing/version").asLong() > v1,
                    "the re-route around the spine", 60);
            JsonNode spineReaction = fp.awaitEvent("REACTION", seq0, 60);
            System.out.printf("spine: REACTION seq %d, ring verdict seq %d (%s)%n", spineReaction.path("seq").asLong(),
                    verdict.path("seq").asLong(), verdict.path("seq").asLong() > spineReaction.path("seq").asLong()
                            ? "the verdict came after convergence: the stale case" : "the verdict joined the open reaction");
            Thread.sleep(2L * DELTA_MS); // a reaction left open would now be seconds old

            // 2. an unrelated link fault: its figures are its own
            long seq1 = fp.lastSeq();
            long t1 = System.nanoTime();
            sim.command("link down " + leaf + " 11");
            JsonNode reaction = fp.awaitEvent("REACTION", seq1, 60);
            double sinceCausedMs = (System.nanoTime() - t1) / 1e6;
            JsonNode details = reaction.path("details");
            System.out.printf("link fault: %s, %.1f ms fault to converged (%.0f ms since it was caused)%n",
                    details.path("triggers"), details.path("faultToConvergedMs").asDouble(), sinceCausedMs);
            assertThat(details.path("triggers").toString()).as("triggers of the link fault only")
                    .contains("port-status").doesNotContain("ring:").doesNotContain(spine);
            assertThat(details.path("faultToConvergedMs").asDouble()).as("timed from the link fault, not before")
                    .isPositive().isLessThanOrEqualTo(sinceCausedMs);
        }
    }
}
