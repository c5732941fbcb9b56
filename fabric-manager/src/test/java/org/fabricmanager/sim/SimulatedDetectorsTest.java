package org.fabricmanager.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.DefaultEventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.RingAssignment;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.Test;

/**
 * The simulator's failure-detector members start on several threads at once (a cold start of thousands under load
 * must not queue behind one thread), yet each switch's starts and stops stay in the order they were asked for.
 */
class SimulatedDetectorsTest {
    private static final int SWITCHES = 48;
    private static final byte[] KEY = new byte[32];

    /**
     * {@link #SWITCHES} agents on {@code loops} (added to {@code agents}) and the ring's peers: member 0 is the
     * daemon's slot, never started here; members 1..SWITCHES are the switches', each on a port {@code detectors}
     * reserved.
     */
    private static List<Message.DetectorPeer> switches(SimulatedDetectors detectors, DefaultEventLoopGroup loops,
                                                       List<SwitchAgent> agents) {
        InetAddress lo = InetAddress.getLoopbackAddress();
        AgentSettings settings = AgentSettings.defaults(new InetSocketAddress(lo, 9));
        List<Message.DetectorPeer> peers = new ArrayList<>();
        peers.add(new Message.DetectorPeer(0, 1L, 0, lo, detectors.reservePort(1L, lo)));
        for (int i = 1; i <= SWITCHES; i++) {
            long guid = 0x1000L + i;
            agents.add(new SwitchAgent(guid, "s" + i, 1, List.of(PortRecord.down(1)), settings,
                    new AgentDependencies(loops.next(), null, new Random(i))));
            peers.add(new Message.DetectorPeer(i, guid, 0, lo, detectors.reservePort(guid, lo)));
        }
        return peers;
    }

    @Test
    void membersConfiguredAtOnceAllRunAndAStopRightAfterItsStartWins() throws Exception {
        DefaultEventLoopGroup agentLoops = new DefaultEventLoopGroup(1);
        try (SimulatedDetectors detectors = new SimulatedDetectors(2, new SimpleMeterRegistry())) {
            List<SwitchAgent> agents = new ArrayList<>();
            List<Message.DetectorPeer> peers = switches(detectors, agentLoops, agents);
            List<CompletionStage<Void>> running = new ArrayList<>();
            for (int i = 1; i <= SWITCHES; i++) {
                running.add(detectors.configured(agents.get(i - 1), ring(1, i, peers)));
            }
            CompletableFuture.allOf(running.stream().map(CompletionStage::toCompletableFuture)
                    .toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(detectors.running()).isEqualTo(SWITCHES);

            // a new epoch asked for and the switch stopped right after: every stop lands after its start
            List<CompletableFuture<Void>> restarted = new ArrayList<>();
            for (int i = 1; i <= SWITCHES; i++) {
                restarted.add(detectors.configured(agents.get(i - 1), ring(2, i, peers)).toCompletableFuture()
                        .exceptionally(failure -> null));
                detectors.stop(agents.get(i - 1).guid());
            }
            CompletableFuture.allOf(restarted.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            Await.value("no member left running after its switch was stopped", Duration.ofSeconds(60),
                    detectors::running, n -> n == 0);
        } finally {
            agentLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    @Test
    void noMemberStartsBeforeTheDatagramPathIsRehearsed() throws Exception {
        java.util.concurrent.CountDownLatch compiled = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch rehearsing = new java.util.concurrent.CountDownLatch(1);
        DefaultEventLoopGroup agentLoops = new DefaultEventLoopGroup(1);
        try (SimulatedDetectors detectors = new SimulatedDetectors(2, new SimpleMeterRegistry(), () -> {
            rehearsing.countDown();
            try {
                compiled.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new org.fabricmanager.detector.netty.DatagramRehearsal.Outcome(1_500, 1_500, true, 4_000, 1_000_000);
        })) {
            List<SwitchAgent> agents = new ArrayList<>();
            List<Message.DetectorPeer> peers = switches(detectors, agentLoops, agents);
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int i = 1; i <= SWITCHES; i++) {
                running.add(detectors.configured(agents.get(i - 1), ring(1, i, peers)).toCompletableFuture());
            }
            // the rehearsal is under way (and held): the members asked for meanwhile must wait for it
            Await.until("the datagram path rehearsed", () -> rehearsing.getCount() == 0);
            assertThat(detectors.running()).as("members started while the datagram path was not compiled").isZero();
            assertThat(running).noneMatch(CompletableFuture::isDone);
            compiled.countDown();
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(detectors.running()).isEqualTo(SWITCHES);
        } finally {
            agentLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    private static RingAssignment ring(long epoch, int self, List<Message.DetectorPeer> peers) {
        return new RingAssignment(epoch, new RingAssignment.Parameters(100, 1000, 500, Message.Overlay.BMG,
                Message.Transport.UDP, Message.StartMode.BOOTSTRAP),
                new RingAssignment.Membership(SWITCHES + 1, self, peers, false, 0), KEY);
    }
}
