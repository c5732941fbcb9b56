package org.fabricmanager.netlab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code netlab down} finds the running {@code netlab up} of its lab by the pid file, and only that process: a stale
 * file (a pid reused by another process) names nothing. Child shells stand in for the lab's process.
 */
class NetlabProcessTest {
    @TempDir
    Path dir;
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void reap() throws Exception {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A shell that says "ready" on its first line once it runs (with SIGTERM ignored when {@code ignoreTerm}). */
    private Process shell(boolean ignoreTerm) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", (ignoreTerm ? "trap '' TERM; " : "")
                + "echo ready; while :; do sleep 0.1; done").start();
        started.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("ready");
        return p;
    }

    @Test
    void theRecordedProcessIsFoundAndStoppedBySigterm() throws Exception {
        Process lab = shell(false);
        NetlabProcess file = new NetlabProcess(dir.resolve("lab/netlab.pid"));
        assertThat(file.running()).as("no pid file yet").isEmpty();
        file.record(lab.toHandle());
        assertThat(file.running()).hasValueSatisfying(p -> assertThat(p.pid()).isEqualTo(lab.pid()));

        assertThat(file.stop(Duration.ofSeconds(30))).hasValue(lab.pid());
        assertThat(lab.isAlive()).isFalse();
        assertThat(lab.exitValue()).as("ended by SIGTERM").isEqualTo(128 + 15);
        assertThat(file.running()).as("a pid file of a process that ended names nothing").isEmpty();
        assertThat(file.stop(Duration.ofSeconds(1))).isEmpty();
    }

    @Test
    void aProcessThatIgnoresSigtermIsKilled() throws Exception {
        Process lab = shell(true);
        NetlabProcess file = new NetlabProcess(dir.resolve("netlab.pid"));
        file.record(lab.toHandle());
        assertThat(file.stop(Duration.ofMillis(500))).hasValue(lab.pid());
        assertThat(lab.isAlive()).isFalse();
        assertThat(lab.exitValue()).as("ended by SIGKILL").isEqualTo(128 + 9);
    }

    @Test
    void aPidFileWhoseStartTimeIsAnotherProcesssNamesNothingAndStopsNothing() throws Exception {
        Process other = shell(false);
        Path pid = dir.resolve("netlab.pid");
        // the pid of a running process, but the start time of the lab that had that pid before
        Files.writeString(pid, other.pid() + " 2001-01-01T00:00:00Z\n");
        NetlabProcess file = new NetlabProcess(pid);
        assertThat(file.running()).isEmpty();
        assertThat(file.stop(Duration.ofSeconds(1))).isEmpty();
        assertThat(other.isAlive()).as("not signalled").isTrue();

        Files.writeString(pid, "garbage\n");
        assertThat(file.running()).as("a malformed file").isEmpty();
    }
}
