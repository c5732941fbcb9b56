package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
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
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.ProtocolException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A daemon that says SHUTTING_DOWN is restarting as a rule: its agent probes for its return within
 * {@link ManagerConnector#RETURN_PROBE_MS}, not after delays grown while it was down; a daemon that just vanished gets the
 * usual backoff.
 */
class SwitchAgentRestartTest {
    /** The agent's backoff: its first delay alone (seed 1: 14.6 s) is longer than the wait for a reconnection below. */
    private static final int INITIAL_BACKOFF_MS = 20_000;
    private static final int WAIT_MS = 4_000;

    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void afterShuttingDownTheAgentComesBackWithinTheProbeDelayEachTime() throws Exception {
        assertThat(reconnectionsAfter(true)).isEqualTo(4);
    }

    @Test
    void aDaemonThatJustClosedGetsTheUsualBackoff() throws Exception {
        assertThat(reconnectionsAfter(false)).as("the first delay (14.6 s) outlasts the wait").isZero();
    }

    /**
     * Serves one session, ends it (with ERROR SHUTTING_DOWN when {@code notice}), then counts the agent's reconnections,
     * up to 4, that each come within {@link #WAIT_MS}; each is closed at once, as by a daemon not yet ready.
     */
    private int reconnectionsAfter(boolean notice) throws Exception {
        try (ServerSocket daemon = new ServerSocket(0)) {
            daemon.setSoTimeout(10_000);
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", daemon.getLocalPort());
            AgentSettings a = new AgentSettings(at, 65536, 5_000, 10_000, INITIAL_BACKOFF_MS, 60_000);
            SwitchAgent agent = new SwitchAgent(0x10L, "s", 2, List.of(PortRecord.down(1), PortRecord.down(2)), a,
                    new AgentDependencies(group.next(), null, new Random(1)));
            agent.start();
            try {
                try (Socket s = daemon.accept()) {
                    s.setSoTimeout(10_000);
                    Hello hello = (Hello) readFrame(s);
                    send(s, new HelloReply(hello.txid(), 3, 99L, 65536, 60_000, 0L));
                    assertThat(readFrame(s)).isInstanceOf(Message.PortInfo.class);
                    if (notice) {
                        send(s, new ProtocolException(ErrorCode.SHUTTING_DOWN, 0, 0, "the daemon is stopping").toMessage());
                    }
                }
                daemon.setSoTimeout(WAIT_MS);
                int reconnections = 0;
                while (reconnections < 4) {
                    try (Socket s = daemon.accept()) {
                        reconnections++;
                    } catch (SocketTimeoutException e) {
                        break;
                    }
                }
                return reconnections;
            } finally {
                agent.stop().syncUninterruptibly();
            }
        }
    }
}
