package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Incarnations only grow: across restarts of one agent and across agents that replace each other. */
class SwitchAgentIncarnationTest {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void anIncarnationIsTheStartTimeUnlessThatIsNotAboveThePreviousOne() {
        assertThat(AgentState.nextIncarnation(0, 1_700_000_000_000L)).isEqualTo(1_700_000_000_000_000L);
        assertThat(AgentState.nextIncarnation(1_700_000_000_000_000L, 1_700_000_000_000L))
                .as("a restart within the same millisecond").isEqualTo(1_700_000_000_000_001L);
        assertThat(AgentState.nextIncarnation(1_700_000_000_000_007L, 1_699_999_000_000L))
                .as("a wall clock set back").isEqualTo(1_700_000_000_000_008L);
    }

    @Test
    void incarnationsGrowStrictlyWhateverTheClockDoes() {
        long seed = 20240611;
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            long clock = 1_600_000_000_000L + random.nextInt(1_000_000_000);
            long previous = 0;
            for (int start = 0; start < 500; start++) {
                switch (random.nextInt(4)) {
                    case 0 -> clock += random.nextInt(5_000); // later, possibly the same millisecond
                    case 1 -> clock -= random.nextInt(60_000); // set back (NTP step)
                    default -> {
                        // restarted within the same millisecond
                    }
                }
                long next = AgentState.nextIncarnation(previous, clock);
                assertThat(next).as("seed %d round %d start %d", seed, round, start).isGreaterThan(previous);
                assertThat(next).as("seed %d round %d start %d: not below the start time", seed, round, start)
                        .isGreaterThanOrEqualTo(clock * 1000);
                previous = next;
            }
        }
    }

    @Test
    void everyStartOfAnAgentAndOfItsReplacementTakesAHigherIncarnation() throws Exception {
        InetSocketAddress nowhere;
        try (ServerSocket s = new ServerSocket(0)) {
            nowhere = new InetSocketAddress("127.0.0.1", s.getLocalPort()); // closed again: connects are refused
        }
        AgentSettings settings = new AgentSettings(nowhere, 4096, 1_000, 1_000, 1_000, 1_000);
        SwitchAgent agent = new SwitchAgent(5, "s5", 2, List.of(), settings, new AgentDependencies(group.next(), null, new Random(1)));
        assertThat(agent.incarnation()).isZero();
        long previous = 0;
        for (int i = 0; i < 50; i++) {
            agent.start().syncUninterruptibly();
            assertThat(agent.incarnation()).as("start %d", i).isGreaterThan(previous);
            previous = agent.incarnation();
            agent.stop().syncUninterruptibly();
        }
        agent.start().syncUninterruptibly();
        long running = agent.incarnation();
        agent.start().syncUninterruptibly();
        assertThat(agent.incarnation()).as("a start while running changes nothing").isEqualTo(running);
        agent.stop().syncUninterruptibly();

        // a new object for the same switch, quite possibly started within the millisecond of the last start
        SwitchAgent replacement = new SwitchAgent(5, "s5", 2, List.of(), settings, new AgentDependencies(group.next(), null, new Random(2)));
        replacement.continueAfter(running);
        replacement.start().syncUninterruptibly();
        assertThat(replacement.incarnation()).isGreaterThan(running);
        replacement.stop().syncUninterruptibly();
    }
}
