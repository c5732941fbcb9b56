package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.HaMember.lastRole;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member whose process stood still longer than {@code ha.pauseLimitMs} ({@link HaGroup}): the paused leader is
 * replaced; when it runs again its Raft server closes itself and {@code run} exits with status 1 saying so, for
 * systemd's {@code Restart=on-failure} to start it again; started again, it follows the new leader and holds the
 * committed state. (Below the limit a paused leader resumes as a standby without exiting: {@link HaTakeoverIT}.)
 */
class HaPauseIT {
    /** Above the JVM stalls of a loaded 2-core host, below what a test may wait. */
    private static final int PAUSE_LIMIT_MS = 15_000;
    @TempDir
    Path dir;
    private HaGroup group;

    @BeforeEach
    void group() {
        group = new HaGroup(dir);
    }

    @AfterEach
    void stop() {
        group.close();
    }

    @Test
    void aLeaderPausedBeyondTheLimitStopsWhenItResumesAndItsRestartFollows() throws Exception {
        group.moreConfig = "  pauseLimitMs: " + PAUSE_LIMIT_MS + "\n"; // under ha:
        HaMember old = group.start(false);
        byte[] routing = Files.readAllBytes(old.state.resolve("routing.state"));
        long stopped = System.nanoTime();
        FabricProcesses.signal(old.process.pid(), "STOP");
        HaMember leader;
        try {
            leader = group.awaitActive(old, 60);
            JsonNode after = group.awaitConverged(leader, 60);
            assertThat(after.at("/push/totalBlocks").asLong()).as("blocks pushed by the new leader").isZero();
            // the pause is the scenario, not a wait for something to happen: it must outlast the limit
            long left = PAUSE_LIMIT_MS + 5_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            if (left > 0) {
                Thread.sleep(left);
            }
        } finally {
            FabricProcesses.signal(old.process.pid(), "CONT");
        }
        assertThat(old.process.waitFor(60, TimeUnit.SECONDS)).as(old.id + " stops once it runs again").isTrue();
        assertThat(old.process.exitValue()).as(old.id + "'s exit status").isEqualTo(1);
        String err = Files.readString(dir.resolve(old.id + "-1.err"));
        assertThat(err).as(old.id + "'s log").contains("JVM pause detected")
                .contains("closed itself").contains("this member stopped (start it again");
        assertThat(group.status(leader.url() + "/health/ready")).as("the new leader stays ready").isEqualTo(200);

        old.start();
        HaMember now = leader;
        Await.value(old.id + " following " + now.id, Duration.ofSeconds(90), () -> lastRole(old),
                role -> role.startsWith("ha " + old.id + " STANDBY") && role.endsWith(", leader " + now.id));
        HaGroup.awaitFile(old.state.resolve("routing.state"), routing);
        assertThat(Files.readAllBytes(old.state.resolve("guid2index"))).isEqualTo(group.indices);
        JsonNode converged = group.awaitConverged(leader, 30);
        assertThat(converged.at("/push/totalBlocks").asLong()).as("blocks pushed since the takeover").isZero();
        assertThat(group.tableVersions(leader)).as("every switch's table").isEqualTo(group.tables);
    }
}
