package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.send;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.TableHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The seam between an agent and its forwarding hardware: a commit is acknowledged only after the plane took the
 * table (the plane sees the held table and the new one), and a commit the plane refuses is answered with
 * APPLY_FAILED, naming the plane's cause, while the agent keeps its previous table.
 */
class ForwardingPlaneTest {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aCommitIsAckedAfterThePlaneTookItAndRefusedWhenThePlaneFails() throws Exception {
        List<String> installs = new ArrayList<>();
        AtomicBoolean failing = new AtomicBoolean();
        ForwardingPlane plane = (held, next) -> {
            synchronized (installs) {
                installs.add("v" + held.version() + "->v" + next.version());
            }
            if (failing.get()) {
                throw new ForwardingPlane.InstallException("bridge br0 is gone");
            }
        };
        try (ServerSocket manager = new ServerSocket(0)) {
            manager.setSoTimeout(10_000);
            AgentSettings settings = new AgentSettings(new InetSocketAddress("127.0.0.1", manager.getLocalPort()),
                    65536, 1_000, 5_000, 20, 200);
            SwitchAgent agent = new SwitchAgent(0x10L, "s", 2, List.of(PortRecord.down(1), PortRecord.down(2)), settings,
                    new AgentDependencies(group.next(), null, new Random(1), null, null, plane));
            agent.start();
            try (Socket s = manager.accept()) {
                s.setSoTimeout(10_000);
                Hello hello = (Hello) readFrame(s);
                send(s, new HelloReply(hello.txid(), 3, 99L, 65536, 60_000, 0L));
                assertThat(readFrame(s)).isInstanceOf(Message.PortInfo.class);

                byte[] entries = {1, 2};
                send(s, new LftBlock(100, 1, 0, entries));
                send(s, new LftCommit(101, 1, 2, 1, TableHash.of(entries), 0, 0L));
                assertThat(readFrame(s)).isInstanceOf(CommitAck.class);
                assertThat(agent.table().version()).isEqualTo(1);

                failing.set(true);
                byte[] swapped = {2, 1};
                send(s, new LftBlock(102, 2, 0, swapped));
                send(s, new LftCommit(103, 2, 2, 1, TableHash.of(swapped), 0, 0L));
                Message refused = readFrame(s);
                assertThat(refused).isInstanceOf(ErrorReport.class);
                ErrorReport error = (ErrorReport) refused;
                assertThat(error.code()).isEqualTo(ErrorCode.APPLY_FAILED.code());
                assertThat(error.fatal()).isFalse();
                assertThat(error.message()).contains("v2").contains("bridge br0 is gone");
                assertThat(agent.table().version()).isEqualTo(1);
                assertThat(agent.table().hash()).isEqualTo(TableHash.of(entries));
                assertThat(agent.commitsRefused()).isEqualTo(1);

                // the session stays up and the retry is taken once the plane takes tables again
                failing.set(false);
                send(s, new LftBlock(104, 2, 0, swapped));
                send(s, new LftCommit(105, 2, 2, 1, TableHash.of(swapped), 0, 0L));
                assertThat(readFrame(s)).isInstanceOf(CommitAck.class);
                assertThat(agent.table().version()).isEqualTo(2);
            } finally {
                agent.stop().syncUninterruptibly();
            }
        }
        synchronized (installs) {
            assertThat(installs).containsExactly("v0->v1", "v1->v2", "v1->v2");
        }
    }
}
