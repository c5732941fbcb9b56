package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.send;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.southbound.Message.Counters;
import org.fabricmanager.southbound.Message.CountersRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Port counters between the daemon's session and an agent on loopback: the Java agent answers in as many requests as
 * the daemon's receive limit needs, and a hand-driven agent shows that the daemon keeps only what it asked for.
 */
class PortCountersSessionTest {
    /** The daemon's receive limit here: 63 ports of counters per frame. */
    private static final int MAX_FRAME = 4096;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final ConcurrentHashMap<Long, AgentSession> byGuid = new ConcurrentHashMap<>();
    private SouthboundServer server;
    private InetSocketAddress address;
    private NioEventLoopGroup group;

    private final SouthboundListener listener = new SouthboundListener() {
        @Override
        public void helloReceived(SwitchSession session, Hello hello) {
            byGuid.put(hello.guid(), (AgentSession) session);
            session.acceptHello(42);
        }

        @Override
        public void portInfoReceived(SwitchSession session, PortInfo info) {
            events.add("ports " + info.ports().size());
            session.acknowledge(info.txid(), MessageType.PORT_INFO);
        }

        @Override
        public void portStatusReceived(SwitchSession session, Message.PortStatus status) {
        }

        @Override
        public void sessionClosed(SwitchSession session, String reason) {
            events.add("closed " + reason);
        }
    };

    @BeforeEach
    void start() throws Exception {
        server = new SouthboundServer(new SouthboundSettings("127.0.0.1", 0, MAX_FRAME, 2_000, 200, 5_000, 1), listener);
        address = server.start();
        group = new NioEventLoopGroup(1);
    }

    @AfterEach
    void stop() {
        server.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private SwitchAgent agent(long guid, int ports, AgentSettings settings) {
        List<PortRecord> records = new ArrayList<>();
        for (int p = 1; p <= ports; p += 2) {
            records.add(PortRecord.toNode(p, 0x2000L + p, "n" + p));
        }
        return new SwitchAgent(guid, "s" + guid, ports, records, settings,
                new AgentDependencies(group.next(), null, new Random(1)));
    }

    private AgentSettings settings() {
        return new AgentSettings(address, MAX_FRAME, 1_000, 2_000, 20, 200);
    }

    private String next() throws InterruptedException {
        String e = events.poll(5, TimeUnit.SECONDS);
        assertThat(e).as("expected an event").isNotNull();
        return e;
    }

    @Test
    void aLargeSwitchIsReadInAsManyRequestsAsTheDaemonsLimitNeeds() throws Exception {
        SwitchAgent agent = agent(7, 100, settings());
        agent.start();
        assertThat(next()).isEqualTo("ports 100");
        AgentSession session = byGuid.get(7L);
        assertThat(session.hello().features() & Protocol.FEATURE_PORT_COUNTERS).isNotZero();
        PortCounters first = session.requestCounters(2_000).get(5, TimeUnit.SECONDS);
        assertThat(first.firstPort()).isEqualTo(1);
        assertThat(first.portCount()).isEqualTo(100);
        assertThat(first.values()).doesNotContain(PortCounters.UNAVAILABLE);
        // a later read: every counter at least what it was, and the up ports (odd) have carried packets meanwhile
        PortCounters later = org.fabricmanager.testing.Await.value("traffic counted", () -> session.requestCounters(2_000)
                .get(5, TimeUnit.SECONDS), c -> c.get(99, PortCounter.RX_PACKETS) > first.get(99, PortCounter.RX_PACKETS));
        long[] a = first.values();
        long[] b = later.values();
        for (int i = 0; i < a.length; i++) {
            assertThat(b[i]).as("value %d", i).isGreaterThanOrEqualTo(a[i]);
        }
        assertThat(later.get(100, PortCounter.RX_PACKETS)).as("a down port").isZero();
        agent.stop().syncUninterruptibly();
    }

    @Test
    void anAgentThatPredatesCountersIsNotAsked() throws Exception {
        SwitchAgent agent = agent(8, 4, settings().withoutPortCounters());
        agent.start();
        assertThat(next()).isEqualTo("ports 4");
        AgentSession session = byGuid.get(8L);
        assertThat(session.hello().features() & Protocol.FEATURE_PORT_COUNTERS).isZero();
        assertThatThrownBy(() -> session.requestCounters(2_000).get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(RequestFailedException.class).hasMessageContaining("reports no port counters");
        assertThat(session.state()).isEqualTo(AgentSession.State.ACTIVE);
        agent.stop().syncUninterruptibly();
    }

    @Test
    void theDaemonKeepsOnlyWhatItAskedFor() throws Exception {
        try (Socket s = new Socket(address.getAddress(), address.getPort())) {
            s.setSoTimeout(5_000);
            send(s, new Hello(1, 3, 3, 99, 1, 4, MAX_FRAME, 0, 0, TableHash.EMPTY, "raw", Protocol.FEATURE_PORT_COUNTERS));
            readFrame(s); // HELLO_REPLY
            send(s, new PortInfo(2, List.of(PortRecord.down(1), PortRecord.down(2), PortRecord.down(3), PortRecord.down(4))));
            assertThat(next()).isEqualTo("ports 4");
            AgentSession session = byGuid.get(99L);

            // an answer nobody asked for is dropped; the session goes on
            send(s, new Counters(77, new PortCounters(1, new long[4 * PortCounters.FIELDS])));

            // other ports than asked: the poll fails, nothing is kept
            CompletableFuture<PortCounters> poll = session.requestCounters(2_000);
            CountersRequest asked = nextRequest(s);
            assertThat(asked.firstPort()).isEqualTo(1);
            assertThat(asked.lastPort()).isEqualTo(4);
            send(s, new Counters(asked.txid(), new PortCounters(2, new long[2 * PortCounters.FIELDS])));
            assertThatThrownBy(() -> poll.get(5, TimeUnit.SECONDS)).cause().hasMessageContaining("answered ports 2..3");

            // an agent that cannot read them now: a refusal that leaves the session up
            CompletableFuture<PortCounters> refused = session.requestCounters(2_000);
            CountersRequest again = nextRequest(s);
            send(s, new ErrorReport(again.txid(), ErrorCode.COUNTERS_UNAVAILABLE.code(), MessageType.PORT_COUNTERS_REQUEST.code(),
                    "ip: cannot open namespace"));
            assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(AgentErrorException.class)
                    .hasMessageContaining("cannot open namespace");

            // no answer: the poll fails at its deadline
            assertThatThrownBy(() -> session.requestCounters(300).get(5, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(RequestFailedException.class).hasMessageContaining("no PORT_COUNTERS within 300 ms");
            nextRequest(s);

            // a good answer completes it
            CompletableFuture<PortCounters> good = session.requestCounters(2_000);
            CountersRequest third = nextRequest(s);
            long[] values = new long[4 * PortCounters.FIELDS];
            values[3 * PortCounters.FIELDS + PortCounter.TX_DROPS.ordinal()] = 5;
            send(s, new Counters(third.txid(), new PortCounters(1, values)));
            assertThat(good.get(5, TimeUnit.SECONDS).get(4, PortCounter.TX_DROPS)).isEqualTo(5);
            assertThat(session.state()).isEqualTo(AgentSession.State.ACTIVE);

            // a port the switch does not have breaks the protocol
            send(s, new Counters(5, new PortCounters(3, new long[3 * PortCounters.FIELDS])));
            ErrorReport error = nextError(s);
            assertThat(error.errorCode()).contains(ErrorCode.MALFORMED);
            assertThat(error.message()).contains("port 5 above the switch's 4");
        }
        assertThat(next()).startsWith("closed");
    }

    /** The next PORT_COUNTERS_REQUEST, past the daemon's echoes. */
    private static CountersRequest nextRequest(Socket s) throws IOException {
        while (true) {
            Message m = readFrame(s);
            if (m instanceof CountersRequest r) {
                return r;
            }
            assertThat(m).as("only echoes and acks before the request").isInstanceOfAny(Message.EchoRequest.class,
                    Message.Ack.class);
        }
    }

    private static ErrorReport nextError(Socket s) throws IOException {
        while (true) {
            Message m = readFrame(s);
            if (m instanceof ErrorReport e) {
                return e;
            }
            assertThat(m).isInstanceOfAny(Message.EchoRequest.class, Message.Ack.class);
        }
    }
}
