package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.send;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.ParkedHellos;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.SouthboundServer;
import org.fabricmanager.southbound.SouthboundSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An agent whose manager falls silent on an established session (a leader frozen by SIGSTOP or a long GC pause)
 * goes to the next manager of its list at once. Going back to the silent one first cost the whole handshake timeout:
 * its kernel still accepts the connection, and nothing answers it (under TLS the timeout is 60 s; chaos-campaign
 * --ha --tls found a frozen leader's agents reaching the new leader 68 s after the freeze). Nor does a standby's
 * redirect take it back there: until the standbys elect another leader they still name the frozen one (the same
 * campaign at 768 switches found 80 agents back on the frozen leader, the takeover routing around them as if dead).
 */
class SwitchAgentSilentManagerTest {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void anAgentWhoseManagerFellSilentGoesToTheNextManagerNotBackToTheSilentOne() throws Exception {
        try (ServerSocket paused = new ServerSocket(0); ServerSocket next = new ServerSocket(0)) {
            InetSocketAddress first = new InetSocketAddress("127.0.0.1", paused.getLocalPort());
            InetSocketAddress second = new InetSocketAddress("127.0.0.1", next.getLocalPort());
            next.setSoTimeout(10_000);
            SwitchAgent agent = agent(List.of(first, second));
            try (Socket s = sessionThatFallsSilent(paused)) {
                long silentFrom = System.nanoTime();
                try (Socket again = next.accept()) {
                    again.setSoTimeout(10_000);
                    Hello hello2 = (Hello) readFrame(again);
                    assertThat(hello2.guid()).isEqualTo(0x10L);
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentFrom))
                            .as("reached the next manager after the silence, not after a handshake timeout")
                            .isLessThan(10_000);
                    paused.setSoTimeout(500);
                    assertThatThrownBy(paused::accept).as("no second connection to the silent manager")
                            .isInstanceOf(SocketTimeoutException.class);
                }
            } finally {
                agent.stop().syncUninterruptibly();
            }
        }
    }

    @Test
    void aStandbysRedirectToTheManagerThatFellSilentIsNotFollowed() throws Exception {
        try (ServerSocket paused = new ServerSocket(0); ServerSocket leader = new ServerSocket(0)) {
            InetSocketAddress first = new InetSocketAddress("127.0.0.1", paused.getLocalPort());
            // a standby that has not seen the election yet: it names the frozen manager
            AtomicInteger redirects = new AtomicInteger();
            SouthboundServer standby = SouthboundServer.redirecting(
                    new SouthboundSettings("127.0.0.1", 0, 65_536, 2_000, 5_000, 15_000, 1), () -> {
                        redirects.incrementAndGet();
                        return "127.0.0.1:" + paused.getLocalPort();
                    }, new ParkedHellos(200), null);
            InetSocketAddress second = new InetSocketAddress("127.0.0.1", standby.start().getPort());
            InetSocketAddress third = new InetSocketAddress("127.0.0.1", leader.getLocalPort());
            leader.setSoTimeout(10_000);
            SwitchAgent agent = agent(List.of(first, second, third));
            try (Socket s = sessionThatFallsSilent(paused)) {
                long silentFrom = System.nanoTime();
                try (Socket again = leader.accept()) {
                    again.setSoTimeout(10_000);
                    assertThat(((Hello) readFrame(again)).guid()).isEqualTo(0x10L);
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentFrom))
                            .as("reached the third manager past the standby's stale redirect")
                            .isLessThan(10_000);
                    assertThat(redirects.get()).as("the standby named the silent manager on the way").isPositive();
                    paused.setSoTimeout(500);
                    assertThatThrownBy(paused::accept).as("the redirect to the silent manager not followed")
                            .isInstanceOf(SocketTimeoutException.class);
                }
            } finally {
                agent.stop().syncUninterruptibly();
                standby.close();
            }
        }
    }

    /** An agent of the managers {@code managers}, started; a HELLO_REPLY timeout of 30 s, as long as a wait there. */
    private SwitchAgent agent(List<InetSocketAddress> managers) {
        AgentSettings a = new AgentSettings(managers.get(0), 65536, 5_000, 30_000, 20, 200).withManagers(managers);
        SwitchAgent agent = new SwitchAgent(0x10L, "s", 2, List.of(PortRecord.down(1), PortRecord.down(2)), a,
                new AgentDependencies(group.next(), null, new Random(1)));
        agent.start();
        return agent;
    }

    /**
     * The agent's session on {@code paused}, established: echoes every 100 ms, so the agent calls the manager silent
     * after 300 ms without a frame. The manager then freezes: it keeps the connection and sends nothing more.
     */
    private static Socket sessionThatFallsSilent(ServerSocket paused) throws Exception {
        paused.setSoTimeout(10_000);
        Socket s = paused.accept();
        s.setSoTimeout(10_000);
        Hello hello = (Hello) readFrame(s);
        send(s, new HelloReply(hello.txid(), 3, 99L, 65536, 100, 3L));
        assertThat(readFrame(s)).isInstanceOf(Message.PortInfo.class);
        return s;
    }
}
