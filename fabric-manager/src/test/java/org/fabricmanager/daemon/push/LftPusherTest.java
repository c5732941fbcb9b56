package org.fabricmanager.daemon.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.RequestFailedException;
import org.fabricmanager.southbound.AgentErrorException;
import org.junit.jupiter.api.Test;

class LftPusherTest {
    private static final long ACK_TIMEOUT_MS = 100;
    private static final int RETRIES = 2;
    private static final int DESTINATIONS = 200;

    private final ManualControlLoop loop = new ManualControlLoop();
    private int progress;

    private LftPusher pusher(int maxInFlight) {
        return new LftPusher(ACK_TIMEOUT_MS, RETRIES, maxInFlight, loop, new SimpleMeterRegistry(), () -> progress++);
    }

    /** Tables for switches 1..n: switch s sends destination d out of port 1 + (d + s + shift) % 4. */
    private static TableSet tables(long version, int n, int shift) {
        long[] guids = new long[n];
        for (int s = 0; s < n; s++) {
            guids[s] = s + 1;
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, DESTINATIONS);
        for (int s = 0; s < n; s++) {
            for (int d = 0; d < DESTINATIONS; d++) {
                b.set(s, d, 1 + (d + s + shift) % 4);
            }
        }
        return new TableSet(version, b.build());
    }

    private static FakeSession attach(LftPusher p, long guid) {
        FakeSession s = FakeSession.of(guid, "s" + guid, 4, 1);
        p.attach(guid, "s" + guid, s, s.hello());
        return s;
    }

    @Test
    void anEmptySwitchGetsEveryBlockAndIsInSyncOnlyOnceItsCommitIsAcknowledged() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        assertThat(p.uncoveredCount()).as("no tables yet").isEqualTo(1);
        p.install(tables(1, 2, 0));
        assertThat(s.batches).hasSize(1);
        assertThat(s.last().batch().blocks()).hasSize((DESTINATIONS + 63) / 64);
        assertThat(p.pendingCount()).isEqualTo(1);
        assertThat(p.uncoveredCount()).isZero();
        assertThat(p.inSync(1)).isFalse();
        s.last().ack();
        loop.runPending();
        assertThat(p.inSync(1)).isTrue();
        assertThat(p.inSyncCount()).isEqualTo(1);
        assertThat(p.pendingCount()).isZero();
        assertThat(p.round().completedNanos()).as("every covered switch holds v1").isPositive();
        assertThat(progress).isEqualTo(1);
    }

    @Test
    void onlyTheBlocksThatChangedAreSentToASwitchHoldingThePreviousVersion() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        TableSet v1 = tables(1, 1, 0);
        p.install(v1);
        s.last().ack();
        loop.runPending();
        long[] guids = {1};
        ForwardingTables.Builder b = ForwardingTables.builder(guids, DESTINATIONS);
        for (int d = 0; d < DESTINATIONS; d++) {
            b.set(0, d, v1.tables().port(0, d));
        }
        b.set(0, 70, v1.tables().port(0, 70) % 4 + 1); // block 1 only
        p.install(new TableSet(2, b.build()));
        assertThat(s.last().batch().blocks()).extracting(LftBatchBlockBase::of).containsExactly(64);
        s.last().ack();
        loop.runPending();
        assertThat(p.inSync(1)).isTrue();
    }

    @Test
    void timeoutsAreRetriedWithDoublingTimeoutsAndAFailingSwitchStaysInTheRetries() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        p.install(tables(1, 1, 0));
        for (int attempt = 0; attempt < RETRIES + 3; attempt++) {
            assertThat(s.last().timeoutMs()).isEqualTo(ACK_TIMEOUT_MS << attempt);
            s.last().future().completeExceptionally(new RequestFailedException("no ACK", true));
            loop.runPending();
            assertThat(p.failingCount()).as("after %d failures", attempt + 1).isEqualTo(attempt + 1 > RETRIES ? 1 : 0);
        }
        assertThat(s.batches).hasSize(RETRIES + 4);
        assertThat(p.state(1).retries()).isEqualTo(RETRIES + 3);
        s.last().ack();
        loop.runPending();
        assertThat(p.failingCount()).isZero();
        assertThat(p.inSync(1)).isTrue();
        assertThat(p.round().retries()).isEqualTo(RETRIES + 3);
    }

    @Test
    void aWrongAckOrARefusalMakesTheHeldContentUnknownAndTheNextPushFull() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        p.install(tables(1, 1, 0));
        s.last().ack();
        loop.runPending();
        p.install(tables(2, 1, 1));
        int blocks = (DESTINATIONS + 63) / 64;
        s.last().future().complete(new CommitAck(0, 2, DESTINATIONS, 12345));
        loop.runPending();
        assertThat(s.last().batch().blocks()).as("full push after a wrong ACK").hasSize(blocks);
        s.last().future().completeExceptionally(new AgentErrorException(new Message.ErrorReport(0,
                ErrorCode.HASH_MISMATCH.code(), 0, "hash mismatch")));
        loop.runPending();
        assertThat(s.last().batch().blocks()).hasSize(blocks);
        s.last().ack();
        loop.runPending();
        assertThat(p.inSync(1)).isTrue();
        assertThat(p.round().fullPushes()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void atMostMaxInFlightSwitchesHaveABatchOnTheWire() {
        LftPusher p = pusher(2);
        List<FakeSession> sessions = List.of(attach(p, 1), attach(p, 2), attach(p, 3), attach(p, 4), attach(p, 5));
        p.install(tables(1, 5, 0));
        for (int acked = 0; acked < 5; acked++) {
            int onWire = 0;
            for (FakeSession s : sessions) {
                onWire += s.batches.stream().filter(b -> !b.future().isDone()).count();
            }
            assertThat(onWire).isEqualTo(Math.min(2, 5 - acked));
            FakeSession next = sessions.stream().filter(s -> !s.batches.isEmpty() && !s.last().future().isDone())
                    .findFirst().orElseThrow();
            next.last().ack();
            loop.runPending();
        }
        assertThat(p.inSyncCount()).isEqualTo(5);
    }

    @Test
    void aDetachedSwitchLeavesEveryCountAndItsLateAnswerIsIgnored() {
        LftPusher p = pusher(8);
        FakeSession a = attach(p, 1);
        attach(p, 2);
        p.install(tables(1, 2, 0));
        p.detach(1);
        assertThat(p.pendingCount()).isEqualTo(1);
        a.last().ack();
        loop.runPending();
        assertThat(p.inSyncCount()).isZero();
        assertThat(p.state(1)).isNull();
        // a closed session's failure is not a retry
        FakeSession b2 = attach(p, 2);
        b2.last().future().completeExceptionally(new RequestFailedException("closed", false));
        loop.runPending();
        assertThat(b2.batches).hasSize(1);
        assertThat(p.failingCount()).isZero();
    }

    @Test
    void aSwitchThatReconnectsHoldingTheCurrentTableGetsNothing() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        TableSet v1 = tables(1, 1, 0);
        p.install(v1);
        s.last().ack();
        loop.runPending();
        p.detach(1);
        Hello back = new Hello(1, 1, 1, 1, 2, 4, 65536, 1, DESTINATIONS, v1.hash(0), "s1");
        FakeSession again = new FakeSession(back);
        p.attach(1, "s1", again, back);
        assertThat(again.batches).isEmpty();
        assertThat(p.inSync(1)).isTrue();
        assertThat(p.inSyncCount()).isEqualTo(1);
    }

    /** The base of a block, for assertions. */
    private static final class LftBatchBlockBase {
        static int of(org.fabricmanager.southbound.LftBatch.Block b) {
            return b.base();
        }
    }
}
