package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.opensm.Refusal;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenSM socket of a daemon whose switches are agents' (docs/security.md, "The OpenSM socket"): a local process
 * admitted on it sends a SUBNET naming an agent's switch while every other place of the socket is held by a silent
 * connection; the SUBNET is answered (the silent connection gave its place up), refused, and leaves the agent's
 * session, its ports and the node count as they were. A silent connection is closed within the first-frame bound.
 * Needs no OpenSM: the local process speaks the plug-in's protocol itself.
 */
class OpenSmSocketSecurityIT {
    @TempDir
    Path state;

    @Test
    void aSubnetNamingAnAgentsSwitchIsRefusedAndLeavesItsSessionAlone() throws Exception {
        PgftSpec spec = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");
        Fabric fabric = PgftGenerator.generate(spec);
        Path socket = state.resolve("opensm.sock");
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state.resolve("s"), spec)
                .withOpenSm(OpenSm.of(socket.toString(), null, null, null)), List.of());
             FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.start();
            Views.Status before = SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == 8, "the agents' fabric converged");
            long leaf = PgftGenerator.switchGuid(1, 1);
            Views.Switch leafBefore = leaf(daemon, leaf);
            assertThat(leafBefore.portsUp()).isEqualTo(8);

            List<SocketChannel> silent = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                silent.add(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
            }
            String reason;
            try (SocketChannel plugin = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                write(plugin, subnet(7, leaf));
                reason = refusal(plugin, 7);
            }
            assertThat(reason).contains("an agent of its own manages").contains("s1-1");

            Views.Status after = daemon.api().status().get(10, TimeUnit.SECONDS);
            assertThat(after.state()).isEqualTo(DaemonState.CONVERGED);
            assertThat(after.switches().connected()).isEqualTo(8);
            assertThat(after.nodes()).isEqualTo(before.nodes()).isEqualTo(16);
            assertThat(after.routing().version()).as("nothing re-routed").isEqualTo(before.routing().version());
            Views.Switch leafAfter = leaf(daemon, leaf);
            assertThat(leafAfter.connectedSince()).as("the agent's session").isEqualTo(leafBefore.connectedSince());
            assertThat(leafAfter.portsUp()).isEqualTo(8);
            assertThat(daemon.api().milestones(0).get(10, TimeUnit.SECONDS)).anyMatch(m -> m.kind() == Milestone.Kind.OPENSM_EVENT
                    && m.message().contains("an agent of its own manages"));

            // a connection that says nothing is closed by the socket, not held for ever
            SocketChannel idle = silent.get(silent.size() - 1);
            Await.value("the silent connection closed by the daemon", Duration.ofSeconds(20),
                    () -> idle.read(ByteBuffer.allocate(1)), n -> n < 0);
            for (SocketChannel c : silent) {
                c.close();
            }
        }
    }

    private static Views.Switch leaf(FabricManagerDaemon daemon, long guid) throws Exception {
        return daemon.api().switches().get(10, TimeUnit.SECONDS).stream()
                .filter(s -> s.guid().equals(String.format("0x%016x", guid))).findFirst().orElseThrow();
    }

    /** A SUBNET of the plug-in's protocol naming switch {@code guid} alone, with its ports linked to nothing. */
    private static ByteBuffer subnet(long seq, long guid) {
        byte[] name = "s1-1 impostor".getBytes(StandardCharsets.UTF_8);
        int payload = 8 + 8 + 4 + 4 + 8 + 2 + 1 + name.length + 1 + 8 * 9;
        ByteBuffer b = ByteBuffer.allocate(OpenSmWire.HEADER_BYTES + payload);
        b.putInt(OpenSmWire.MAGIC).put((byte) OpenSmWire.VERSION).put((byte) OpenSmWire.SUBNET).putShort((short) 0)
                .putInt(payload);
        b.putLong(seq).putLong(0).putInt(1).putInt(0); // holding no answer's tables
        b.putLong(guid).putShort((short) 5).put((byte) name.length).put(name).put((byte) 8);
        for (int p = 0; p < 8; p++) {
            b.putLong(0).put((byte) 0);
        }
        return b.flip();
    }

    private static void write(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** The reason of the REFUSED answer to {@code seq}. */
    private static String refusal(SocketChannel ch, long seq) throws IOException {
        ByteBuffer head = read(ch, OpenSmWire.HEADER_BYTES);
        assertThat(head.get(5)).as("a REFUSED frame").isEqualTo((byte) OpenSmWire.REFUSED);
        ByteBuffer body = read(ch, head.getInt(8));
        assertThat(body.getLong()).isEqualTo(seq);
        assertThat(Refusal.of(body.getShort() & 0xffff)).as("switches an agent manages: not OpenSM's to route")
                .isEqualTo(Refusal.INVALID);
        return StandardCharsets.UTF_8.decode(body).toString();
    }

    private static ByteBuffer read(SocketChannel ch, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("the daemon closed the connection after " + b.position() + " of " + n + " bytes");
            }
        }
        return b.flip();
    }
}
