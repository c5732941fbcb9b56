package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.send;

import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
 * Fencing of hot-standby managers: an agent refuses an LFT_COMMIT from a term below the highest it has
 * seen (in HELLO_REPLY or a commit), keeps its table, and still accepts the current term's commits; and
 * an agent that knows several managers moves on to the next one when one refuses connections.
 */
class SwitchAgentFencingTest {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aCommitFromALowerTermIsRefusedAndTheTableKept() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // a dead manager: connects are refused
        }
        try (ServerSocket manager = new ServerSocket(0)) {
            manager.setSoTimeout(10_000);
            InetSocketAddress dead = new InetSocketAddress("127.0.0.1", closedPort);
            InetSocketAddress live = new InetSocketAddress("127.0.0.1", manager.getLocalPort());
            AgentSettings settings = new AgentSettings(dead, 65536, 1_000, 5_000, 20, 200).withManagers(List.of(dead, live));
            SwitchAgent agent = new SwitchAgent(0x10L, "s", 2, List.of(PortRecord.down(1), PortRecord.down(2)), settings,
                    new AgentDependencies(group.next(), null, new Random(1)));
            agent.start();
            try (Socket s = manager.accept()) {
                s.setSoTimeout(10_000);
                Hello hello = (Hello) readFrame(s);
                send(s, new HelloReply(hello.txid(), 3, 99L, 65536, 60_000, 5L));
                assertThat(readFrame(s)).isInstanceOf(Message.PortInfo.class);

                byte[] entries = {1, 2};
                send(s, new LftBlock(100, 1, 0, entries));
                send(s, new LftCommit(101, 1, 2, 1, TableHash.of(entries), 0, 5L));
                assertThat(readFrame(s)).isInstanceOf(CommitAck.class);

                // a deposed manager of term 4 tries to overwrite the table
                byte[] stale = {2, 1};
                send(s, new LftBlock(102, 2, 0, stale));
                send(s, new LftCommit(103, 2, 2, 1, TableHash.of(stale), 0, 4L));
                Message refused = readFrame(s);
                assertThat(refused).isInstanceOf(ErrorReport.class);
                assertThat(((ErrorReport) refused).code()).isEqualTo(ErrorCode.STALE_TERM.code());
                assertThat(((ErrorReport) refused).message()).contains("term 4").contains("term 5");
                assertThat(agent.table().version()).isEqualTo(1);
                assertThat(agent.table().hash()).isEqualTo(TableHash.of(entries));

                // the current term still commits; a higher one raises the bar
                send(s, new LftBlock(104, 3, 0, stale));
                send(s, new LftCommit(105, 3, 2, 1, TableHash.of(stale), 0, 6L));
                assertThat(readFrame(s)).isInstanceOf(CommitAck.class);
                assertThat(agent.highestManagerTerm()).isEqualTo(6);
                assertThat(agent.table().version()).isEqualTo(3);
            } finally {
                agent.stop().syncUninterruptibly();
            }
        }
    }
}
