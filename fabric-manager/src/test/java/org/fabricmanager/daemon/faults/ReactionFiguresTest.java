package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.routing.ForwardingTables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reaction's figures are what the pusher sent and had acknowledged while it was open, each block and switch once:
 * switches that lose their sessions and come back empty get the version in force again, which its round counts on top
 * of the first installation (a reaction on 48 switches said "96 blocks, 96 switches acked" while
 * {@code fabric_push_blocks_total} rose by 48).
 */
class ReactionFiguresTest {
    private static final int SWITCHES = 6;
    private static final int DESTINATIONS = 200;
    private static final int BLOCKS_PER_TABLE = (DESTINATIONS + 63) / 64;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final MilestoneLog milestones = new MilestoneLog();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DaemonMetrics metrics = new DaemonMetrics(registry);
    private final LftPusher pusher = new LftPusher(100, 2, 64, loop, registry, () -> { });
    private final ReactionTracker reactions = new ReactionTracker(milestones, metrics);

    @AfterEach
    void close() {
        metrics.close();
    }

    private static TableSet tables(long version) {
        long[] guids = new long[SWITCHES];
        for (int s = 0; s < SWITCHES; s++) {
            guids[s] = s + 1;
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, DESTINATIONS);
        for (int s = 0; s < SWITCHES; s++) {
            for (int d = 0; d < DESTINATIONS; d++) {
                b.set(s, d, 1 + (d + s) % 4);
            }
        }
        return new TableSet(version, b.build());
    }

    private List<FakeSession> attachAll() {
        List<FakeSession> sessions = new ArrayList<>();
        for (long g = 1; g <= SWITCHES; g++) {
            FakeSession s = FakeSession.of(g, "s" + g, 4, 1);
            pusher.attach(g, "s" + g, s, s.hello());
            sessions.add(s);
        }
        return sessions;
    }

    private static void ackAll(List<FakeSession> sessions) {
        for (FakeSession s : sessions) {
            s.last().ack();
        }
    }

    private double blocksCounter() {
        return registry.get("fabric.push.blocks").counter().count();
    }

    @Test
    void switchesThatComeBackEmptyAreCountedOnceWithTheBlocksTheyGot() {
        reactions.pushFigures(pusher);
        List<FakeSession> first = attachAll();
        pusher.install(tables(1));
        ackAll(first);
        loop.runPending();
        assertThat(pusher.inSyncCount()).isEqualTo(SWITCHES);

        double blocksBefore = blocksCounter();
        reactions.event("switch s1 disconnected");
        for (long g = 1; g <= SWITCHES; g++) {
            pusher.detach(g);
        }
        List<FakeSession> back = attachAll(); // restarted agents: empty tables, the version in force again in full
        ackAll(back);
        loop.runPending();
        assertThat(pusher.round().acked()).as("the round of v1 counts both installations")
                .isEqualTo(2L * SWITCHES);
        reactions.converged(pusher.round(), 1);

        Milestone m = milestones.since(0).get(0);
        assertThat(m.kind()).isEqualTo(Milestone.Kind.REACTION);
        assertThat(blocksCounter() - blocksBefore).isEqualTo(SWITCHES * BLOCKS_PER_TABLE);
        assertThat(m.details()).containsEntry("blocksPushed", (long) SWITCHES * BLOCKS_PER_TABLE)
                .containsEntry("switchesAcked", SWITCHES);
        assertThat(m.message()).contains(SWITCHES * BLOCKS_PER_TABLE + " blocks").contains(SWITCHES + " switches acked");
    }
}
