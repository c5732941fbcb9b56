package org.fabricmanager.daemon.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.AgentErrorException;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.RequestFailedException;
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

    /** Installs {@code t} and acknowledges the batch {@code s} got for it. */
    private void installAcked(LftPusher p, FakeSession s, TableSet t) {
        p.install(t);
        s.last().ack();
        loop.runPending();
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
        installAcked(p, s, v1);
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
        installAcked(p, s, tables(1, 1, 0));
        p.install(tables(2, 1, 1));
        int blocks = (DESTINATIONS + 63) / 64;
        s.last().future().complete(new CommitAck(0, 2, DESTINATIONS, 12345));
        loop.runPending();
        assertThat(s.last().batch().blocks()).as("full push after a wrong ACK").hasSize(blocks);
        s.last().future().completeExceptionally(new AgentErrorException(new Message.ErrorReport(0,
                ErrorCode.HASH_MISMATCH.code(), 0, "hash mismatch")));
        loop.runPending();
        assertThat(s.batches).as("the second refusal in a row waits its backoff").hasSize(3);
        loop.advance(PushRetries.BACKOFF_BASE_MS);
        assertThat(s.batches).hasSize(4);
        assertThat(s.last().batch().blocks()).hasSize(blocks);
        s.last().ack();
        loop.runPending();
        assertThat(p.inSync(1)).isTrue();
        assertThat(p.round().fullPushes()).isGreaterThanOrEqualTo(2);
    }

    /** The switch's kernel refuses the last batch sent to {@code s}. */
    private void refuse(FakeSession s) {
        s.last().future().completeExceptionally(new AgentErrorException(new Message.ErrorReport(0,
                ErrorCode.APPLY_FAILED.code(), 0, "table not applied: bridge br0 gone")));
        loop.runPending();
    }

    /** After {@code refusal} refusals in a row, the retry waits exactly its backoff: nothing before, one batch then. */
    private void assertRetriedAfterItsBackoff(FakeSession s, int refusal, long expectedMs) {
        int before = s.batches.size();
        refuse(s);
        if (expectedMs > 0) {
            loop.advance(expectedMs - 1);
            assertThat(s.batches).as("no retry within %d ms of refusal %d", expectedMs - 1, refusal).hasSize(before);
            loop.advance(1);
        }
        assertThat(s.batches).as("one retry %d ms after refusal %d", expectedMs, refusal).hasSize(before + 1);
    }

    @Test
    void refusedBatchesAreRetriedWithABoundedDoublingBackoffThatAnAckOrAReconnectEnds() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        p.install(tables(1, 1, 0));
        long wait = 0;
        for (int refusal = 1; refusal <= 14; refusal++) {
            assertRetriedAfterItsBackoff(s, refusal, wait);
            long next = PushRetries.backoffMs(refusal + 1, true);
            assertThat(next).as("the wait after refusal %d", refusal + 1)
                    .isEqualTo(wait == 0 ? PushRetries.BACKOFF_BASE_MS : Math.min(2 * wait, PushRetries.BACKOFF_MAX_MS));
            wait = next;
        }
        assertThat(wait).as("bounded").isEqualTo(PushRetries.BACKOFF_MAX_MS);
        assertThat(p.failingCount()).isEqualTo(1);
        // a switch that keeps refusing costs one push per BACKOFF_MAX_MS, not one per round trip
        int before = s.batches.size();
        for (int i = 0; i < 10; i++) {
            refuse(s);
            loop.advance(PushRetries.BACKOFF_MAX_MS);
        }
        assertThat(s.batches).hasSize(before + 10);
        assertThat(PushRetries.backoffMs(1_000_000, true)).isEqualTo(PushRetries.BACKOFF_MAX_MS);
        assertThat(PushRetries.backoffMs(5, false)).as("a timeout was waited for already").isZero();

        // an acknowledgement ends the backoff: the next refusal is retried at once, the one after it waits again
        s.last().ack();
        loop.runPending();
        assertThat(p.inSync(1)).isTrue();
        assertThat(p.failingCount()).isZero();
        p.install(tables(2, 1, 1));
        assertRetriedAfterItsBackoff(s, 1, 0);
        int pending = s.batches.size();
        refuse(s);
        assertThat(s.batches).as("the second refusal in a row waits").hasSize(pending);

        // so does a reconnect: the new session gets its push at once, and the old session's pending retry never goes
        FakeSession again = attach(p, 1);
        assertThat(again.batches).hasSize(1);
        assertRetriedAfterItsBackoff(again, 1, 0);
        loop.advance(PushRetries.BACKOFF_MAX_MS);
        assertThat(s.batches).as("nothing more to the old session").hasSize(pending);
        assertThat(again.batches).hasSize(2);
        again.last().ack();
        loop.runPending();
        assertThat(p.inSync(1)).isTrue();
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
    void smallBatchesTakeTheirShareOfTheRoomOnTheWireInTheOrderTheyCame() {
        LftPusher p = pusher(2); // two full tables of 4 blocks; a batch of one block takes a quarter of one
        int n = 20;
        List<FakeSession> sessions = new java.util.ArrayList<>();
        for (int i = 1; i <= n; i++) {
            sessions.add(attach(p, i));
        }
        TableSet v1 = tables(1, n, 0);
        p.install(v1);
        ackUntilInSync(sessions, p, 2);
        int[] everyRow = new int[n];
        for (int i = 0; i < n; i++) {
            everyRow[i] = i;
        }
        p.install(changed(v1, 2, 70, everyRow)); // one block on every switch, as a node's link does
        ackUntilInSync(sessions, p, 8);
        assertThat(p.round().blocks()).isEqualTo(n);
    }

    /** Acknowledges the oldest batch on the wire until every switch is in sync; at most {@code room} on the wire. */
    private void ackUntilInSync(List<FakeSession> sessions, LftPusher p, int room) {
        int most = 0;
        java.util.List<Long> order = new java.util.ArrayList<>();
        while (p.pendingCount() > 0) {
            List<FakeSession.SentBatch> onWire = new java.util.ArrayList<>();
            for (FakeSession s : sessions) {
                s.batches.stream().filter(b -> !b.future().isDone()).forEach(onWire::add);
            }
            most = Math.max(most, onWire.size());
            assertThat(onWire).as("batches on the wire").hasSizeLessThanOrEqualTo(room).isNotEmpty();
            for (FakeSession s : sessions) {
                if (!s.batches.isEmpty() && !s.last().future().isDone() && !order.contains(s.id())) {
                    order.add(s.id());
                }
            }
            FakeSession first = sessions.stream().filter(s -> s.id() == order.get(0)).findFirst().orElseThrow();
            order.remove(0);
            first.last().ack();
            loop.runPending();
        }
        assertThat(most).as("the room is used").isEqualTo(room);
        assertThat(p.inSyncCount()).isEqualTo(sessions.size());
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
        installAcked(p, s, v1);
        p.detach(1);
        Hello back = new Hello(1, 1, 1, 1, 2, 4, 65536, 1, DESTINATIONS, v1.hash(0), "s1");
        FakeSession again = new FakeSession(back);
        p.attach(1, "s1", again, back);
        assertThat(again.batches).isEmpty();
        assertThat(p.inSync(1)).isTrue();
        assertThat(p.inSyncCount()).isEqualTo(1);
    }

    /** {@code base}'s tables under {@code version}, with destination {@code d} of each row in {@code rows} moved. */
    /** Acknowledges the batches on the wire, as room frees for the next, until no switch waits for the current tables. */
    private void ackAll(LftPusher p, FakeSession... sessions) {
        while (p.pendingCount() > 0) {
            boolean acked = false;
            for (FakeSession x : sessions) {
                if (!x.batches.isEmpty() && !x.last().future().isDone()) {
                    x.last().ack();
                    acked = true;
                }
            }
            assertThat(acked).as("a batch on the wire while switches wait").isTrue();
            loop.runPending();
        }
    }

    private static TableSet changed(TableSet base, long version, int d, int... rows) {
        int n = base.rowCount();
        long[] guids = new long[n];
        for (int s = 0; s < n; s++) {
            guids[s] = base.guid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, base.length());
        for (int s = 0; s < n; s++) {
            for (int e = 0; e < base.length(); e++) {
                b.set(s, e, base.tables().port(s, e));
            }
        }
        for (int row : rows) {
            b.set(row, d, base.tables().port(row, d) % 4 + 1);
        }
        return new TableSet(version, b.build());
    }

    /**
     * A batch whose ack never came may have landed: the next version that changes the row back to what the switch held
     * before is not counted in sync without a round trip (found by ChaosSimulationTest, seed 9: CONVERGED while a
     * switch forwarded by the timed-out batch).
     */
    @Test
    void aRowChangedBackAfterATimedOutBatchIsPushedAgainNotAssumedHeld() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        TableSet v1 = tables(1, 1, 0);
        installAcked(p, s, v1);
        p.install(changed(v1, 2, 10, 0));
        FakeSession.SentBatch v2 = s.last();
        TableSet v3 = changed(v1, 3, 70, 0); // the row of v1 again, but for entry 70 (v2's entry 10 changed back)
        p.install(v3);
        v2.future().completeExceptionally(new RequestFailedException("no ACK", true));
        loop.runPending();
        assertThat(p.inSync(1)).as("the switch may hold v2's entry 10").isFalse();
        assertThat(s.last().batch().version()).isEqualTo(3);
        assertThat(s.last().batch().blocks()).as("the whole table, entry 10 with it")
                .extracting(LftBatchBlockBase::of).contains(0, 64);
        s.last().ack();
        loop.runPending();
        assertThat(p.inSync(1)).isTrue();
    }

    @Test
    void blocksStagedAheadLeaveOnlyTheCommitsForTheInstallation() {
        LftPusher p = pusher(8);
        FakeSession[] s = {attach(p, 1), attach(p, 2), attach(p, 3)};
        TableSet v1 = tables(1, 3, 0);
        p.install(v1);
        ackAll(p, s);
        TableSet v2 = changed(v1, 2, 70, 0, 1); // block 1 of switches 1 and 2

        assertThat(p.stage(v2)).isEqualTo(2);
        assertThat(s[0].staged).singleElement().satisfies(b -> {
            assertThat(b.version()).isEqualTo(2);
            assertThat(b.blocks()).extracting(LftBatchBlockBase::of).containsExactly(64);
        });
        assertThat(s[2].staged).as("its row is unchanged").isEmpty();
        assertThat(s[0].batches).as("no commit before the installation").hasSize(1);
        assertThat(p.inSyncCount()).isEqualTo(3);

        p.install(v2);
        for (int i = 0; i < 2; i++) {
            assertThat(s[i].last().batch().blocks()).as("sent ahead").isEmpty();
            assertThat(s[i].last().batch().commitBlocks()).isEqualTo(1);
            assertThat(s[i].last().batch().hash()).isEqualTo(v2.hash(i));
        }
        assertThat(s[2].batches).as("unchanged: no round trip").hasSize(1);
        assertThat(p.round().stagedAhead()).isEqualTo(2);
        assertThat(p.round().blocks()).as("the staged blocks count in the round that installs them").isEqualTo(2);
        s[0].last().ack();
        s[1].last().ack();
        loop.runPending();
        assertThat(p.inSyncCount()).isEqualTo(3);
        assertThat(p.round().completedNanos()).isPositive();
    }

    @Test
    void stagedBlocksAreNeverCountedForOtherTablesOrAfterTheSwitchWasSentAnything() {
        LftPusher p = pusher(8);
        FakeSession s = attach(p, 1);
        TableSet v1 = tables(1, 1, 0);
        installAcked(p, s, v1);

        // staged, then other tables installed (the verdict was refuted, a link died)
        p.stage(changed(v1, 2, 70, 0));
        p.install(changed(v1, 3, 130, 0));
        assertThat(s.last().batch().stagedAhead()).isZero();
        assertThat(s.last().batch().blocks()).extracting(LftBatchBlockBase::of).containsExactly(128);
        s.last().ack();
        loop.runPending();

        // staged, then dropped: installed after all, its blocks go with the commit
        TableSet v4 = changed(p.current(), 4, 10, 0);
        p.stage(v4);
        p.dropStaged();
        p.install(v4);
        assertThat(s.last().batch().stagedAhead()).isZero();
        assertThat(s.last().batch().blocks()).hasSize(1);
        // no ACK: the batch may have landed or not, the retry after the timeout sends the whole table
        s.last().future().completeExceptionally(new RequestFailedException("no ACK", true));
        loop.runPending();
        assertThat(s.last().batch().blocks()).extracting(LftBatchBlockBase::of).containsExactly(0, 64, 128, 192);
        s.last().ack();
        loop.runPending();

        // a switch with a batch on the wire gets nothing staged; nor do tables older than the current
        TableSet v5 = changed(p.current(), 5, 20, 0);
        p.install(v5);
        assertThat(p.stage(changed(v5, 6, 30, 0))).isZero();
        assertThat(p.stage(changed(v5, 5, 30, 0))).isZero();
        s.last().ack();
        loop.runPending();

        // staged, then a commit-only batch times out: the retry carries the blocks (the whole table, same version)
        TableSet v7 = changed(p.current(), 7, 40, 0);
        assertThat(p.stage(v7)).isEqualTo(1);
        p.install(v7);
        assertThat(s.last().batch().stagedAhead()).isEqualTo(1);
        s.last().future().completeExceptionally(new RequestFailedException("no ACK", true));
        loop.runPending();
        assertThat(s.last().batch().stagedAhead()).isZero();
        assertThat(s.last().batch().version()).isEqualTo(7);
        assertThat(s.last().batch().blocks()).extracting(LftBatchBlockBase::of).containsExactly(0, 64, 128, 192);
    }

    @Test
    void atMostMaxInFlightFullTablesWorthOfBlocksIsStagedAhead() {
        LftPusher p = pusher(2);
        FakeSession[] s = {attach(p, 1), attach(p, 2), attach(p, 3)};
        TableSet v1 = tables(1, 3, 0);
        p.install(v1);
        ackAll(p, s);
        assertThat(p.inSyncCount()).isEqualTo(3);
        assertThat(p.stage(tables(2, 3, 1))).as("every block of every table: room for two").isEqualTo(2);
        assertThat(p.stage(changed(v1, 3, 0, 0, 1, 2))).as("one block each: a quarter of a table").isEqualTo(3);
    }

    /**
     * An agent as docs/protocol.md 3.4-3.5 describes its staging (blocks kept per base for one version, a commit
     * counts those of its version): what the pusher's batches and staged blocks do to a switch's table.
     */
    private static final class ModelAgent {
        byte[] table = new byte[0];
        long stagedVersion;
        final java.util.Map<Integer, byte[]> staged = new java.util.HashMap<>();

        void stage(org.fabricmanager.southbound.LftBatch b) {
            for (org.fabricmanager.southbound.LftBatch.Block block : b.blocks()) {
                if (b.version() != stagedVersion) {
                    staged.clear();
                    stagedVersion = b.version();
                }
                staged.put(block.base(), block.entries());
            }
        }

        /** The ACK, or {@code null} when the agent refuses the commit. */
        CommitAck commit(org.fabricmanager.southbound.LftBatch b) {
            stage(b);
            int count = stagedVersion == b.version() ? staged.size() : 0;
            byte[] next = java.util.Arrays.copyOf(table, b.length());
            for (int i = table.length; i < next.length; i++) {
                next[i] = (byte) 255;
            }
            if (count == b.commitBlocks() && count > 0) {
                staged.forEach((base, entries) -> System.arraycopy(entries, 0, next, base, entries.length));
            }
            staged.clear();
            stagedVersion = 0;
            if (count != b.commitBlocks() || org.fabricmanager.southbound.TableHash.of(next) != b.hash()) {
                return null;
            }
            table = next;
            return new CommitAck(0, b.version(), b.length(), b.hash());
        }
    }

    @Test
    void anyMixOfStagingInstallationsDropsAndLostBatchesLeavesEverySwitchWithItsRow() {
        int commitsOfStagedBlocks = 0;
        for (long seed = 1; seed <= 40; seed++) {
            java.util.Random rnd = new java.util.Random(seed);
            LftPusher p = pusher(1 + rnd.nextInt(4));
            int n = 4;
            FakeSession[] s = new FakeSession[n];
            ModelAgent[] agents = new ModelAgent[n];
            int[] seenStaged = new int[n];
            int[] seenBatches = new int[n];
            for (int i = 0; i < n; i++) {
                s[i] = attach(p, i + 1);
                agents[i] = new ModelAgent();
            }
            long version = 1;
            TableSet candidate = null;
            p.install(tables(version, n, 0));
            for (int step = 0; step < 60; step++) {
                switch (rnd.nextInt(5)) {
                    case 0 -> {
                        candidate = changed(p.current(), ++version, rnd.nextInt(DESTINATIONS), rnd.nextInt(n),
                                rnd.nextInt(n));
                        p.stage(candidate);
                    }
                    case 1 -> {
                        if (candidate != null && candidate.version() > p.current().version()) {
                            p.install(candidate); // the verdict confirmed
                        }
                    }
                    case 2 -> p.install(changed(p.current(), ++version, rnd.nextInt(DESTINATIONS), rnd.nextInt(n)));
                    case 3 -> p.dropStaged();
                    default -> {
                    }
                }
                // what reached each agent, in order: the blocks staged, then its batches; some batches are lost
                for (int i = 0; i < n; i++) {
                    while (seenStaged[i] < s[i].staged.size()) {
                        agents[i].stage(s[i].staged.get(seenStaged[i]++));
                    }
                    while (seenBatches[i] < s[i].batches.size()) {
                        FakeSession.SentBatch b = s[i].batches.get(seenBatches[i]++);
                        if (rnd.nextInt(6) == 0) {
                            b.future().completeExceptionally(new RequestFailedException("no ACK", true));
                            continue;
                        }
                        commitsOfStagedBlocks += b.batch().stagedAhead() > 0 ? 1 : 0;
                        CommitAck ack = agents[i].commit(b.batch());
                        assertThat(ack).as("seed %d step %d: switch %d refused v%d (%d blocks counted)", seed, step,
                                i + 1, b.batch().version(), b.batch().commitBlocks()).isNotNull();
                        b.future().complete(ack);
                    }
                }
                loop.runPending();
            }
            for (int rounds = 0; rounds < 20 && p.pendingCount() > 0; rounds++) {
                for (int i = 0; i < n; i++) {
                    while (seenBatches[i] < s[i].batches.size()) {
                        FakeSession.SentBatch b = s[i].batches.get(seenBatches[i]++);
                        CommitAck ack = agents[i].commit(b.batch());
                        assertThat(ack).as("seed %d: switch %d refused v%d", seed, i + 1, b.batch().version()).isNotNull();
                        b.future().complete(ack);
                    }
                }
                loop.runPending();
            }
            assertThat(p.inSyncCount()).as("seed %d", seed).isEqualTo(n);
            for (int i = 0; i < n; i++) {
                assertThat(agents[i].table).as("seed %d switch %d", seed, i + 1)
                        .isEqualTo(p.current().tables().copyRow(i));
            }
        }
        assertThat(commitsOfStagedBlocks).as("commits of blocks staged ahead").isGreaterThan(20);
    }

    /** The base of a block, for assertions. */
    private static final class LftBatchBlockBase {
        static int of(org.fabricmanager.southbound.LftBatch.Block b) {
            return b.base();
        }
    }
}
