package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.opensm.Refusal;
import org.fabricmanager.daemon.testing.PluginFrames;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standby's end of OpenSM's plug-in, with a fake Raft member: a routing pass is refused with the reason and asks for
 * the leadership once (the socket unbound while it is asked), a failed transfer is the reason of the next refusals
 * until the retry time, a member that just led asks nothing, and the provider's admission checks apply.
 */
@Timeout(60)
class OpenSmStandbyTest {
    private static final ByteBuffer SUBNET = PluginFrames.subnet(7, PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)")));

    @TempDir
    Path dir;
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final LeadershipTransfers counts = new LeadershipTransfers();
    private final FakeGroup group = new FakeGroup();
    private OpenSmStandby standby;

    @AfterEach
    void close() {
        group.result.complete("test over");
        if (standby != null) {
            standby.close();
        }
    }

    /** A follower of n1 in term 2 whose transfers end when the test says. */
    private static final class FakeGroup implements OpenSmStandby.Group {
        volatile HaNode.View view = new HaNode.View("FOLLOWER", 2, "n1", false, 5, 5, 10, 0);
        final AtomicInteger asked = new AtomicInteger();
        volatile CompletableFuture<String> result = new CompletableFuture<>();

        @Override
        public HaNode.View view() {
            return view;
        }

        @Override
        public String transferHere(String leaderId) throws IOException {
            asked.incrementAndGet();
            try {
                return result.get(30, TimeUnit.SECONDS);
            } catch (InterruptedException | ExecutionException | TimeoutException e) {
                throw new IOException(e);
            }
        }
    }

    private Path socket() {
        return dir.resolve("opensm.sock");
    }

    private OpenSmStandby start(List<String> allowUsers) {
        OpenSm config = OpenSm.of(socket().toString(), "0600", allowUsers, 1024);
        standby = new OpenSmStandby(config, "n2", group, counts, 5_000, clock::get);
        standby.open();
        assertThat(standby.listening()).isTrue();
        return standby;
    }

    private void awaitListening() {
        Await.until("the standby's socket bound again", Duration.ofSeconds(10), () -> {
            standby.open();
            return standby.listening();
        });
    }

    @Test
    void refusesWithTheReasonAndAsksForTheLeadershipOnceUntilTheRetryTime() throws Exception {
        start(List.of());
        PluginFrames.Answer a = PluginFrames.exchange(socket(), SUBNET);
        assertThat(a.type()).isEqualTo(OpenSmWire.REFUSED);
        assertThat(a.seq()).isEqualTo(7);
        assertThat(a.why()).as("the plug-in takes the socket back").isEqualTo(Refusal.MOVING);
        assertThat(a.reason()).isEqualTo("this manager is a standby; leadership is moving here from n1; OpenSM falls"
                + " back for this sweep");
        Await.until("the transfer asked", Duration.ofSeconds(10), () -> group.asked.get() == 1);
        // unbound while the transfer runs: the plug-in finds no daemon until the manager binds the socket
        Await.until("the socket unbound", Duration.ofSeconds(10), () -> !standby.listening());
        standby.open();
        assertThat(standby.listening()).as("not bound again while the transfer runs").isFalse();
        assertThat(Files.exists(socket())).isFalse();
        assertThatThrownBy(() -> PluginFrames.exchange(socket(), SUBNET)).isInstanceOf(IOException.class);

        group.result.complete("the leader did not hand over within 5000 ms");
        awaitListening();
        PluginFrames.Answer refused = PluginFrames.exchange(socket(), SUBNET);
        assertThat(refused.why()).as("no take-back: the socket stays bound").isEqualTo(Refusal.NOT_READY);
        assertThat(refused.reason()).contains("moving the leadership here from n1 failed (the leader did not hand over"
                + " within 5000 ms); asked again in 10 s").doesNotContain(OpenSmStandby.MOVING);
        assertThat(standby.listening()).as("refusing with the failure, bound").isTrue();
        assertThat(group.asked.get()).as("rate-limited: one transfer per retry time").isEqualTo(1);
        assertThat(standby.movedHere()).as("a failed transfer explains no later leadership").isNull();

        group.result = new CompletableFuture<>();
        clock.addAndGet(OpenSmStandby.RETRY_MS);
        assertThat(PluginFrames.exchange(socket(), SUBNET).reason()).contains(OpenSmStandby.MOVING + " from n1");
        Await.until("the second transfer asked", Duration.ofSeconds(10), () -> group.asked.get() == 2);
        assertThat(counts.count(LeadershipTransfers.Outcome.REQUESTED)).isEqualTo(2);
        assertThat(counts.count(LeadershipTransfers.Outcome.FAILED)).isEqualTo(1);
        assertThat(counts.count(LeadershipTransfers.Outcome.HELD)).isEqualTo(1);
        assertThat(standby.movedHere()).as("put down to the last transfer asked").contains("from n1", "routing pass 7");
        assertThat(standby.movedHere()).as("once").isNull();
    }

    @Test
    void aMemberThatJustLedAsksForNothingUntilTheHoldTimeEnds() throws Exception {
        start(List.of());
        standby.release();
        standby.open();
        PluginFrames.Answer a = PluginFrames.exchange(socket(), SUBNET);
        assertThat(a.reason()).isEqualTo("this manager is a standby; it led until 0 s ago, so leadership is moving here"
                + " from n1 only 30 s after that (no back and forth between members); OpenSM falls back for this sweep");
        assertThat(group.asked.get()).isZero();
        // unbound until the hold ends: the plug-in re-routes then, and that pass asks
        Await.until("the socket unbound", Duration.ofSeconds(10), () -> !standby.listening());
        clock.addAndGet(OpenSmStandby.HOLD_MS - 1);
        standby.open();
        assertThat(standby.listening()).as("still held").isFalse();
        clock.addAndGet(1);
        awaitListening();
        assertThat(PluginFrames.exchange(socket(), SUBNET).reason()).contains(OpenSmStandby.MOVING + " from n1;");
        Await.until("the transfer asked", Duration.ofSeconds(10), () -> group.asked.get() == 1);
    }

    @Test
    void noLeaderKnownIsTheReasonAndAsksOnceAnElectionHadTimeToEnd() throws Exception {
        group.view = new HaNode.View("CANDIDATE", 3, null, false, 5, 5, -1, 0);
        start(List.of());
        assertThat(PluginFrames.exchange(socket(), SUBNET).reason())
                .isEqualTo("this manager is a standby and no leader is known in term 3 (an election is under way);"
                        + " leadership is moving here once a leader is known; OpenSM falls back for this sweep");
        assertThat(group.asked.get()).isZero();
        Await.until("the socket unbound", Duration.ofSeconds(10), () -> !standby.listening());
        group.view = new HaNode.View("FOLLOWER", 4, "n3", false, 5, 5, 10, 0);
        clock.addAndGet(2_000);
        awaitListening();
        assertThat(PluginFrames.exchange(socket(), SUBNET).reason()).contains(OpenSmStandby.MOVING + " from n3;");
        Await.until("the transfer asked", Duration.ofSeconds(10), () -> group.asked.get() == 1);
    }

    @Test
    void admitsOnlyTheAllowedUsers() throws Exception {
        start(List.of("nobody-" + System.nanoTime()));
        assertThat(PluginFrames.exchange(socket(), SUBNET)).as("closed without an answer").isNull();
        assertThat(group.asked.get()).isZero();
    }

    @Test
    void refusesAFrameAboveTheBoundWithItsCode() throws Exception {
        start(List.of());
        ByteBuffer huge = ByteBuffer.allocate(OpenSmWire.HEADER_BYTES).putInt(OpenSmWire.MAGIC)
                .put((byte) OpenSmWire.VERSION).put((byte) OpenSmWire.SUBNET).putShort((short) 0).putInt(1 << 20).flip();
        PluginFrames.Answer refused = PluginFrames.exchange(socket(), huge);
        assertThat(refused.why()).as("refused with its code, not closed unanswered").isEqualTo(Refusal.TOO_LARGE);
        assertThat(refused.seq()).as("its payload was never read").isZero();
        assertThat(group.asked.get()).isZero();
        assertThat(PluginFrames.exchange(socket(), SUBNET).reason()).as("still serving").contains(OpenSmStandby.MOVING);
    }
}
