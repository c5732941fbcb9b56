package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;

/** Writes the payload of the handshake family (HELLO, HELLO_REPLY, PORT_INFO, PORT_STATUS) for {@link SouthboundCodec}. */
final class HandshakeEncoder {
    private HandshakeEncoder() {
    }

    static void payload(Message m, ByteBuf out) {
        if (m instanceof Hello h) {
            out.writeInt(Protocol.MAGIC);
            out.writeShort(h.minVersion());
            out.writeShort(h.maxVersion());
            out.writeLong(h.guid());
            out.writeLong(h.incarnation());
            out.writeByte(h.portCount());
            out.writeInt(h.maxFrame());
            out.writeLong(h.tableVersion());
            out.writeInt(h.tableLength());
            out.writeLong(h.tableHash());
            Wire.writeStr8(out, h.name(), Protocol.MAX_NAME_BYTES);
            if (h.features() != 0) {
                out.writeInt(h.features());
            }
        } else if (m instanceof HelloReply r) {
            out.writeShort(r.version());
            out.writeLong(r.daemonId());
            out.writeInt(r.maxFrame());
            out.writeInt(r.echoIntervalMs());
            if (r.managerTerm() != 0) {
                out.writeLong(r.managerTerm()); // appended field: sent only by hot-standby managers
            }
        } else if (m instanceof PortInfo p) {
            writePorts(out, p.ports());
        } else if (m instanceof PortStatus p) {
            writePorts(out, p.ports());
        } else {
            throw new IllegalArgumentException("no handshake encoding for " + m);
        }
    }

    private static void writePorts(ByteBuf out, List<PortRecord> ports) {
        out.writeByte(ports.size());
        for (PortRecord r : ports) {
            out.writeByte(r.port());
            out.writeByte(r.state().ordinal());
            out.writeByte(r.peerKind().ordinal());
            out.writeLong(r.peerGuid());
            out.writeByte(r.peerPort());
            Wire.writeStr8(out, r.peerName(), Protocol.MAX_NAME_BYTES);
        }
    }
}
