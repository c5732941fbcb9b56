package org.fabricmanager.daemon.testing;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.opensm.Refusal;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/** What OpenSM's plug-in sends and reads, for the tests: SUBNET frames as fabricmanager.c encodes them. */
public final class PluginFrames {
    /** An answer: its type and, for REFUSED, its code and reason. */
    public record Answer(int type, long seq, Refusal why, String reason) {
    }

    private PluginFrames() {
    }

    /** The SUBNET frame of {@code fabric}: switches at LIDs 1.., then each end node's one port. */
    public static ByteBuffer subnet(long seq, Fabric fabric) {
        Map<Long, Map<Integer, Link>> byEnd = new HashMap<>();
        for (Link l : fabric.links()) {
            byEnd.computeIfAbsent(l.a(), k -> new HashMap<>()).put(l.aPort(), l);
            byEnd.computeIfAbsent(l.b(), k -> new HashMap<>()).put(l.bPort(), l);
        }
        ByteBuffer b = ByteBuffer.allocate(1 << 20);
        b.put(new byte[OpenSmWire.HEADER_BYTES]);
        List<FabricSwitch> switches = fabric.switches();
        List<EndNode> nodes = fabric.nodes();
        b.putLong(seq).putLong(0).putInt(switches.size()).putInt(nodes.size()); // holding no answer's tables
        int lid = 1;
        for (FabricSwitch s : switches) {
            b.putLong(s.guid()).putShort((short) lid++);
            name(b, s.name());
            b.put((byte) s.ports());
            for (int p = 1; p <= s.ports(); p++) {
                Link l = byEnd.getOrDefault(s.guid(), Map.of()).get(p);
                boolean a = l != null && l.a() == s.guid() && l.aPort() == p;
                b.putLong(l == null ? 0 : a ? l.b() : l.a()).put((byte) (l == null ? 0 : a ? l.bPort() : l.aPort()));
            }
        }
        for (EndNode n : nodes) {
            int port = byEnd.get(n.guid()).keySet().iterator().next();
            b.putLong(n.guid()).putLong(n.guid() | (1L << 62)).put((byte) port).putShort((short) lid++);
            name(b, n.name());
        }
        int payload = b.position() - OpenSmWire.HEADER_BYTES;
        b.putInt(0, OpenSmWire.MAGIC).put(4, (byte) OpenSmWire.VERSION).put(5, (byte) OpenSmWire.SUBNET)
                .putShort(6, (short) 0).putInt(8, payload);
        return b.flip();
    }

    private static void name(ByteBuffer b, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        b.put((byte) bytes.length).put(bytes);
    }

    /**
     * Sends {@code frame} on a new connection to {@code socket} and reads the answer, as the plug-in's routing pass
     * does; {@code null} when the daemon closed the connection without one.
     *
     * @throws IOException when nothing listens on {@code socket}
     */
    public static Answer exchange(Path socket, ByteBuffer frame) throws IOException {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return exchange(ch, frame);
        }
    }

    private static Answer exchange(SocketChannel ch, ByteBuffer frame) {
        try {
            ByteBuffer out = frame.duplicate();
            try {
                while (out.hasRemaining()) {
                    ch.write(out);
                }
            } catch (IOException e) {
                // the daemon refused before reading all of it: its answer may wait in the socket, as for the plug-in
            }
            ByteBuffer head = ByteBuffer.allocate(OpenSmWire.HEADER_BYTES);
            if (!readFully(ch, head)) {
                return null;
            }
            head.flip();
            int type = head.get(5);
            ByteBuffer payload = ByteBuffer.allocate(head.getInt(8));
            if (!readFully(ch, payload)) {
                return null;
            }
            payload.flip();
            long seq = payload.getLong();
            Refusal why = type == OpenSmWire.REFUSED ? Refusal.of(payload.getShort() & 0xffff) : null;
            String reason = type == OpenSmWire.REFUSED
                    ? StandardCharsets.UTF_8.decode(payload).toString() : null;
            return new Answer(type, seq, why, reason);
        } catch (IOException e) {
            return null; // closed by the daemon while writing or reading
        }
    }

    private static boolean readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                return false;
            }
        }
        return true;
    }
}
