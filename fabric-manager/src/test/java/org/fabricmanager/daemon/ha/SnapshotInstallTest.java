package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that was away while the others took snapshots and dropped the log before them is brought up to date by
 * the leader sending it its snapshot (Raft's InstallSnapshot): it loads the snapshot's state files and follows on.
 * Found by the {@code --ha} campaign (seed 97): a standby started again after such a gap had its Raft server close
 * itself on the snapshot, and the process exited with status 1, each time it was started.
 */
class SnapshotInstallTest {
    private static final int ELECTION_MS = 3_000;
    private static final String FILE = "admitted-switches";

    @TempDir
    Path dir;
    @RegisterExtension
    final HaMembers.Nodes nodes = new HaMembers.Nodes();

    @Test
    void aMemberBehindTheLeadersSnapshotLoadsItAndFollowsOn() throws Exception {
        List<String> peers = HaMembers.peers(3);
        for (int i = 1; i <= 3; i++) {
            HaNode n = HaMembers.member(dir, ELECTION_MS, peers, i, null, 2);
            nodes.add(n);
            n.start();
        }
        HaNode leader = HaLeaders.awaitReady(nodes, Duration.ofSeconds(30));
        write(leader, "first");
        HaNode away = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        awaitContent(away, "first");
        away.close();
        nodes.remove(away);

        // writes in two terms: the change of term closes the log's open segment, and a snapshot more than Ratis's
        // purge gap (1,024 entries) after it lets the members drop that segment, which held what the member away lacks
        String last = null;
        for (int round = 0; round < 2; round++) {
            HaNode now = HaLeaders.awaitReady(nodes, Duration.ofSeconds(30));
            long term = now.view().term();
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int k = 0; k < (round == 0 ? 6 : 1_100); k++) {
                last = "round " + round + " write " + k;
                writes.add(now.write(term, FILE, last.getBytes(StandardCharsets.UTF_8)));
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            if (round == 0) {
                HaNode other = nodes.stream().filter(n -> n != now).findFirst().orElseThrow();
                assertThat(other.transferLeadershipHere(now.nodeId(), 20_000)).as("leadership handed over").isNull();
            }
        }
        for (HaNode n : nodes) {
            String id = n.nodeId();
            Await.until(id + " drops its first log segment", Duration.ofSeconds(30), () -> !hasFirstSegment(id));
        }
        assertThat(hasFirstSegment(away.nodeId())).as("the member away still holds its first segment").isTrue();

        HaNode back = HaMembers.member(dir, ELECTION_MS, peers, Integer.parseInt(away.nodeId().substring(1)), null, 2);
        nodes.add(back);
        back.start();
        awaitContent(back, last);
        assertThat(back.storageFailure()).as("the member that came back keeps running").isNotDone();
        assertThat(back.view().role()).isEqualTo("FOLLOWER");
        HaNode current = HaLeaders.awaitReady(nodes, Duration.ofSeconds(30));
        write(current, "after");
        awaitContent(back, "after");
    }

    private static void write(HaNode leader, String content) throws Exception {
        leader.write(leader.view().term(), FILE, content.getBytes(StandardCharsets.UTF_8)).get(20, TimeUnit.SECONDS);
    }

    private void awaitContent(HaNode n, String content) {
        Path file = dir.resolve(n.nodeId()).resolve(FILE);
        Await.until(n.nodeId() + " holds \"" + content + "\"", Duration.ofSeconds(30), () -> {
            try {
                return Files.exists(file) && Files.readString(file).equals(content);
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Whether member {@code id}'s Raft log still has the segment that begins at index 0. */
    private boolean hasFirstSegment(String id) {
        try (Stream<Path> files = Files.walk(dir.resolve(id).resolve("ha"))) {
            return files.map(p -> p.getFileName().toString()).anyMatch(n -> n.startsWith("log_0-")
                    || n.equals("log_inprogress_0"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
