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

    @Test
    void addressesSentWhileTheMemberOfARestartedDaemonsRingStartsReachThatMember() throws Exception {
        // a restarted daemon numbers its epochs from 1 again: its ring (another key) replaces the running member of
        // the previous life's epoch 1, and an observer's address sent while the new member starts (an endpoint that
        // came after the plan) must reach the new member, not the one it replaces, or it never heartbeats its observer
        DefaultEventLoopGroup agentLoops = new DefaultEventLoopGroup(1);
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (SimulatedDetectors detectors = new SimulatedDetectors(2, new SimpleMeterRegistry());
             java.net.DatagramSocket daemon = new java.net.DatagramSocket(new InetSocketAddress(lo, 0));
             java.net.DatagramSocket observer = new java.net.DatagramSocket(new InetSocketAddress(lo, 0))) {
            long guid = 0x1001L;
            SwitchAgent agent = new SwitchAgent(guid, "s1", 1, List.of(PortRecord.down(1)),
                    AgentSettings.defaults(new InetSocketAddress(lo, 9)), new AgentDependencies(agentLoops.next(), null,
                    new Random(1)));
            Message.DetectorPeer self = new Message.DetectorPeer(1, guid, 0, lo, detectors.reservePort(guid, lo));
            Message.DetectorPeer toDaemon = new Message.DetectorPeer(0, 1L, 0, lo, daemon.getLocalPort());
            Message.DetectorPeer toObserver = new Message.DetectorPeer(2, 0x1002L, 0, lo, observer.getLocalPort());
            detectors.configured(agent, ring(1, 1, List.of(toDaemon, self, toObserver), new byte[32]))
                    .toCompletableFuture().get(60, TimeUnit.SECONDS);

            // the next life's epoch 1: the observer's endpoint had not come at its plan (a placeholder), it comes next
            byte[] key = new byte[32];
            key[0] = 1;
            InetSocketAddress placeholder = org.fabricmanager.detector.VacantAddress.of(2);
            detectors.delayStart(guid, 300);
            CompletableFuture<Void> restarted = detectors.configured(agent, ring(1, 1, List.of(toDaemon, self,
                    new Message.DetectorPeer(2, 0x1002L, 0, placeholder.getAddress(), placeholder.getPort())), key)).toCompletableFuture();
            detectors.peers(agent, 1, List.of(toObserver));
            restarted.get(60, TimeUnit.SECONDS);

            observer.setSoTimeout(50);
            byte[] buffer = new byte[2048];
            try {
                while (true) {
                    observer.receive(new java.net.DatagramPacket(buffer, buffer.length)); // the replaced member's
                }
            } catch (java.net.SocketTimeoutException drained) {
                // nothing left from before the new member
            }
            observer.setSoTimeout(5_000);
            try {
                observer.receive(new java.net.DatagramPacket(buffer, buffer.length));
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError("the new member sent its observer nothing for 5 s: the observer's address "
                        + "went to the member it replaced", e);
            }
        } finally {
            agentLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    private static RingAssignment ring(long epoch, int self, List<Message.DetectorPeer> peers) {
        return ring(epoch, self, SWITCHES + 1, peers, KEY);
    }

    private static RingAssignment ring(long epoch, int self, List<Message.DetectorPeer> peers, byte[] key) {
        return ring(epoch, self, peers.size(), peers, key);
    }

    private static RingAssignment ring(long epoch, int self, int n, List<Message.DetectorPeer> peers, byte[] key) {
        return new RingAssignment(epoch, new RingAssignment.Parameters(100, 1000, 500, Message.Overlay.BMG,
                Message.Transport.UDP, Message.StartMode.BOOTSTRAP),
                new RingAssignment.Membership(n, self, peers, false, 0), key);
    }
}
