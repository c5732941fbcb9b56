package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.southbound.RawFrames.frame;
import static org.fabricmanager.southbound.RawFrames.lastError;
import static org.fabricmanager.southbound.RawFrames.readUntilClosed;
import static org.fabricmanager.system.SystemSupport.await;

import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Southbound;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.SouthboundCodec;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Misbehaving peers against a converged daemon: each one is disconnected (with an ERROR where the
 * connection still allows one), a log line names the cause, and the daemon's state and every real
 * agent's session stay exactly as they were.
 */
class ProtocolRobustnessIT {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");

    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    SystemSupport.LogCapture logs;
    Views.Status before;

    @BeforeEach
    void converge() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        daemon = FabricManagerDaemon.start(config(), List.of());
        sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort());
        sim.start();
        before = await(daemon, s -> s.state() == DaemonState.CONVERGED, "convergence");
        logs = new SystemSupport.LogCapture();
    }

    @AfterEach
    void stop() {
        if (logs != null) {
            logs.close();
        }
        if (sim != null) {
            sim.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    /** The default engine when this build has it (the engine does not matter here). */
    private DaemonConfig config() {
        String engine = RoutingEngines.names().contains("dmodc") ? "dmodc" : RoutingEngines.names().get(0);
        return SystemSupport.config(state, SPEC).withEngine(engine);
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", daemon.southboundAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    private Hello hello(long guid, int min, int max) {
        return hello(guid, min, max, 1);
    }

    private Hello hello(long guid, int min, int max, long incarnation) {
        return new Hello(1, min, max, guid, incarnation, 8, 65_536, 0, 0, TableHash.EMPTY, "intruder");
    }

    /** The daemon's state is what it was, every agent kept its one session, and a log line names the cause. */
    private void assertUnaffected(String cause) throws Exception {
        Await.until("a log line naming " + cause, java.time.Duration.ofSeconds(10),
                () -> logs.messages().stream().anyMatch(m -> m.contains(cause)));
        assertThat(logs.messages()).as("log lines").anyMatch(m -> m.startsWith("WARN") && m.contains(cause));
        awaitClosesHandled();
        Views.Status now = daemon.api().status().get();
        assertThat(now.state()).isEqualTo(DaemonState.CONVERGED);
        assertThat(now.routing().version()).isEqualTo(before.routing().version());
        assertThat(now.routing().computations()).isEqualTo(before.routing().computations());
        assertThat(now.switches().connected()).isEqualTo(8);
        assertThat(now.tables().inSync()).isEqualTo(8);
        assertThat(now.push().totalBlocks()).isEqualTo(before.push().totalBlocks());
        for (SwitchAgent a : sim.agents()) {
            assertThat(a.state()).isEqualTo(SwitchAgent.State.ACTIVE);
            assertThat(a.handshakes()).as("%s kept its session", a).isEqualTo(1);
        }
    }

    @Test
    void truncatedFrameThenCloseIsLogged() throws Exception {
        byte[] hello = frame(hello(0x3000000000000001L, 3, 3));
        try (Socket s = connect()) {
            // the bytes go before the FIN on the wire: the daemon reads them, then the end of the stream
            s.getOutputStream().write(hello, 0, 20);
            s.getOutputStream().flush();
        }
        assertUnaffected("truncated frame: 20 of " + hello.length + " bytes");
    }

    @Test
    void truncatedFrameLeftHangingHitsTheHandshakeTimeout() throws Exception {
        daemon.close();
        DaemonConfig c = config().withPorts(daemon.southboundAddress().getPort(), 0);
        Southbound sb = c.southbound();
        c = new DaemonConfig(new Southbound(sb.bind(), sb.port(), sb.maxFrameBytes(), 1_000,
                sb.echoIntervalMs(), sb.idleTimeoutMs(), sb.ioThreads()), c.rest(), c.fabric(), c.discovery(), c.routing(),
                c.push(), c.state(), c.faults());
        daemon = FabricManagerDaemon.start(c, List.of());
        before = await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 8, "restart");
        for (SwitchAgent a : sim.agents()) {
            assertThat(a.handshakes()).isEqualTo(2);
        }
        byte[] hello = frame(hello(0x3000000000000001L, 3, 3));
        try (Socket s = connect()) {
            s.getOutputStream().write(hello, 0, 20);
            s.getOutputStream().flush();
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.HANDSHAKE_TIMEOUT);
        }
        assertThat(logs.messages()).anyMatch(m -> m.contains("HANDSHAKE_TIMEOUT"));
        Views.Status now = daemon.api().status().get();
        assertThat(now.routing().version()).isEqualTo(before.routing().version());
        assertThat(now.switches().connected()).isEqualTo(8);
    }

    @Test
    void oversizedFrameIsRefused() throws Exception {
        try (Socket s = connect()) {
            byte[] header = {0x01, 0x00, 0x00, 0x00, 0x01, 0, 0, 0, 1};
            s.getOutputStream().write(header);
            s.getOutputStream().write(new byte[4096]);
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.FRAME_TOO_LARGE);
        }
        assertUnaffected("frame of 16777216 bytes exceeds the limit of 65536");
    }

    @Test
    void unknownMessageTypeIsRefused() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(new byte[] {0, 0, 0, 5, 0x42, 0, 0, 0, 9});
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.UNKNOWN_TYPE);
            assertThat(e.txid()).isEqualTo(9);
        }
        assertUnaffected("unknown message type 0x42");
    }

    @Test
    void wrongVersionIsRefused() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(frame(hello(0x3000000000000001L, 4, 5)));
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.UNSUPPORTED_VERSION);
        }
        try (Socket s = connect()) {
            s.getOutputStream().write(frame(hello(0x3000000000000001L, 1, 1)));
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.UNSUPPORTED_VERSION);
            assertThat(e.message()).as("a protocol-1 agent is told why").contains("versions 1..1, daemon 3..3")
                    .contains("upgrade the agent");
        }
        // refusals are logged as one summary line per 10 s: the first names its peer, the second is counted
        assertUnaffected("agent speaks versions 4..5, daemon 3..3");
    }

    @Test
    void duplicateGuidIsRefusedAndTheRealSwitchKeepsItsSession() throws Exception {
        long taken = PgftGenerator.switchGuid(1, 2);
        long real = sim.agent(taken).incarnation();
        // a lower incarnation than the real switch's is an older run: a second device with the same GUID
        // (an equal or higher one would take the session over, as a reconnection or a restart does)
        for (long incarnation : new long[] {real - 1, 1}) {
            try (Socket s = connect()) {
                s.getOutputStream().write(frame(hello(taken, 3, 3, incarnation)));
                ErrorReport e = lastError(readUntilClosed(s));
                assertThat(e.errorCode()).as("incarnation %d", incarnation).contains(ErrorCode.DUPLICATE_GUID);
                assertThat(e.message()).contains("incarnation " + incarnation + " is lower");
            }
        }
        assertUnaffected("DUPLICATE_GUID: switch 0x1000000100000002 is already connected");
        assertThat(daemon.api().switchDetail(taken).get().incarnation()).isEqualTo(real);
    }

    @Test
    void neighbourClaimContradictingAConfirmedLinkIsRefused() throws Exception {
        long spine = PgftGenerator.switchGuid(2, 0);
        try (Socket s = connect()) {
            s.getOutputStream().write(frame(hello(0x3000000000000001L, 3, 3)));
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] reply = new byte[in.readInt()];
            in.readFully(reply);
            assertThat(SouthboundCodec.decode(Unpooled.wrappedBuffer(reply))).isInstanceOf(Message.HelloReply.class);
            List<PortRecord> ports = new ArrayList<>();
            ports.add(PortRecord.toSwitch(1, spine, 1, "s2-0"));
            for (int p = 2; p <= 8; p++) {
                ports.add(PortRecord.down(p));
            }
            s.getOutputStream().write(frame(new Message.PortInfo(2, ports)));
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.NEIGHBOUR_CONFLICT);
            assertThat(e.txid()).isEqualTo(2);
        }
        assertUnaffected("neighbour conflict: port 1 of 0x3000000000000001 claims 0x1000000200000000:1, which is cabled to 0x1000000100000000:5");
    }

    @Test
    void randomGarbageIsRefused() throws Exception {
        long seed = 1234;
        Random random = new Random(seed);
        for (int i = 0; i < 5; i++) {
            byte[] garbage = new byte[200 + random.nextInt(2000)];
            random.nextBytes(garbage);
            try (Socket s = connect()) {
                s.getOutputStream().write(garbage);
                s.getOutputStream().flush();
                List<Message> frames = readUntilClosed(s);
                ErrorReport e = lastError(frames);
                assertThat(e.fatal()).as("seed %d round %d: %s", seed, i, e).isTrue();
            } catch (SocketException reset) {
                // the daemon may close before all the garbage is written: the connection is gone either way
            }
        }
        // peers that never said HELLO are summarised by the rate-limited refusal line, which names the cause
        assertUnaffected("protocol: FRAME_TOO_LARGE: frame of");
        // an HTTP request on the agent port is garbage too
        try (Socket s = connect()) {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
            InputStream in = s.getInputStream();
            assertThat(lastError(readUntilClosed(s)).errorCode()).contains(ErrorCode.FRAME_TOO_LARGE);
            assertThat(in.read()).isEqualTo(-1);
        }
    }
    /**
     * Waits until every connection this test opened besides the 8 agents' has ended and the control thread has
     * handled its close: whatever a close was going to start (a loss judged, a re-route scheduled, a state) has
     * started by then, so the checks that follow cannot pass by looking too early.
     */
    private void awaitClosesHandled() {
        Await.until("every other connection's close handled by the control thread", java.time.Duration.ofSeconds(20), () -> {
            io.micrometer.core.instrument.Counter accepted = daemon.registry()
                    .find(org.fabricmanager.southbound.SouthboundServer.CONNECTIONS_METER).counter();
            return accepted != null && daemon.sessionClosesHandled() >= (long) accepted.count() - 8;
        });
    }
}
