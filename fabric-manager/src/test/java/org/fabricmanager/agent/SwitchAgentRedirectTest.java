package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.southbound.RawFrames.frame;
import static org.fabricmanager.southbound.RawFrames.lastError;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.readUntilClosed;
import static org.fabricmanager.southbound.RawFrames.send;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.ParkedHellos;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SouthboundServer;
import org.fabricmanager.southbound.SouthboundSettings;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hot-standby manager's southbound ({@link SouthboundServer#redirecting}) answers HELLO with
 * {@code ERROR NOT_LEADER} and the leader's address, holds it while no leader is known, and an agent goes
 * straight to the address, not around its list.
 */
class SwitchAgentRedirectTest {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static SouthboundSettings settings() {
        return new SouthboundSettings("127.0.0.1", 0, 65_536, 2_000, 5_000, 15_000, 1);
    }

    @Test
    void aStandbyAnswersHelloWithTheLeadersAddressAndCloses() throws Exception {
        AtomicReference<String> leader = new AtomicReference<>();
        SouthboundServer standby = SouthboundServer.redirecting(settings(), leader::get, new ParkedHellos(200), null);
        int port = standby.start().getPort();
        try {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(frame(new Hello(7, 3, 3, 0x10L, 1, 2, 65_536, 0, 0, TableHash.EMPTY, "s")));
                ErrorReport e = lastError(readUntilClosed(s));
                assertThat(e.errorCode()).contains(ErrorCode.NOT_LEADER);
                assertThat(e.message()).as("no leader known within the longest hold").isEmpty();
                assertThat(e.txid()).isEqualTo(7);
            }
            leader.set("127.0.0.1:7654");
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(frame(new Hello(8, 3, 3, 0x10L, 1, 2, 65_536, 0, 0, TableHash.EMPTY, "s")));
                ErrorReport e = lastError(readUntilClosed(s));
                assertThat(e.errorCode()).contains(ErrorCode.NOT_LEADER);
                assertThat(e.message()).isEqualTo("127.0.0.1:7654");
            }
            // anything but HELLO is closed without an answer
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(frame(new Message.EchoRequest(1, 5)));
                assertThat(readUntilClosed(s)).isEmpty();
            }
        } finally {
            standby.close();
        }
    }

    @Test
    void aHelloHeldWhileNoLeaderIsKnownIsAnsweredWithTheLeaderOnceKnownEvenAfterThePortIsUnbound() throws Exception {
        ParkedHellos parked = new ParkedHellos(60_000);
        SouthboundServer standby = SouthboundServer.redirecting(settings(), () -> null, parked, null);
        int port = standby.start().getPort();
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(frame(new Hello(9, 3, 3, 0x10L, 1, 2, 65_536, 0, 0, TableHash.EMPTY, "s")));
            Await.until("the HELLO held", Duration.ofSeconds(10), () -> parked.size() > 0);
            // the elected standby frees its port for its manager; the held agent keeps its connection
            standby.stopAccepting();
            assertThat(s.getInputStream().available()).isZero();
            assertThat(parked.release("127.0.0.1:7654")).isEqualTo(1);
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.NOT_LEADER);
            assertThat(e.message()).isEqualTo("127.0.0.1:7654");
            assertThat(e.txid()).isEqualTo(9);
            assertThat(parked.size()).isZero();
        } finally {
            standby.close();
        }
    }

    @Test
    void anAgentFollowsTheRedirectAtOnceEvenToAManagerNotInItsList() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        try (ServerSocket manager = new ServerSocket(0)) {
            manager.setSoTimeout(10_000);
            SouthboundServer standby = SouthboundServer.redirecting(settings(), () -> "127.0.0.1:" + manager.getLocalPort(),
                    new ParkedHellos(1_000), null);
            int standbyPort = standby.start().getPort();
            InetSocketAddress first = new InetSocketAddress("127.0.0.1", standbyPort);
            InetSocketAddress dead = new InetSocketAddress("127.0.0.1", closedPort);
            // the leader is in no list the agent has: only the redirect brings it there
            AgentSettings a = new AgentSettings(first, 65536, 5_000, 10_000, 20, 200).withManagers(List.of(first, dead));
            SwitchAgent agent = new SwitchAgent(0x10L, "s", 2, List.of(PortRecord.down(1), PortRecord.down(2)), a,
                    new AgentDependencies(group.next(), null, new Random(1)));
            agent.start();
            try (Socket s = manager.accept()) {
                s.setSoTimeout(10_000);
                Hello hello = (Hello) readFrame(s);
                assertThat(hello.guid()).isEqualTo(0x10L);
                assertThat(hello.features() & Protocol.FEATURE_REDIRECT_FIELDS).as("reads redirect fields").isNotZero();
                send(s, new HelloReply(hello.txid(), 3, 99L, 65536, 60_000, 3L));
                assertThat(readFrame(s)).isInstanceOf(Message.PortInfo.class);
                assertThat(agent.highestManagerTerm()).isEqualTo(3);
            } finally {
                agent.stop().syncUninterruptibly();
                standby.close();
            }
        }
    }
}
