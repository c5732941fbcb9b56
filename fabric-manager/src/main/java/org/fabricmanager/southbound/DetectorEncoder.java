package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import java.net.InetAddress;
import java.util.List;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.DetectorEndpoint;
import org.fabricmanager.southbound.Message.DetectorLookup;
import org.fabricmanager.southbound.Message.DetectorMember;
import org.fabricmanager.southbound.Message.DetectorPeer;
import org.fabricmanager.southbound.Message.DetectorPeers;
import org.fabricmanager.southbound.Message.DetectorWindow;

/**
 * Writes the payload of the failure-detector family (DETECTOR_CONFIG, DETECTOR_WINDOW, DETECTOR_PEERS,
 * DETECTOR_LOOKUP, DETECTOR_ENDPOINT) for {@link SouthboundCodec}.
 */
final class DetectorEncoder {
    private DetectorEncoder() {
    }

    static void payload(Message m, ByteBuf out) {
        if (m instanceof DetectorConfig d) {
            out.writeLong(d.epoch());
            out.writeInt(d.etaMs());
            out.writeInt(d.deltaMs());
            out.writeInt(d.pauseMs());
            out.writeByte(d.overlay().code());
            out.writeByte(d.transport().code());
            out.writeByte(d.startMode().code());
            out.writeInt(d.memberCount());
            out.writeInt(d.selfIndex());
            out.writeInt(d.chunkStart());
            out.writeShort(d.members().size());
            for (DetectorMember member : d.members()) {
                out.writeLong(member.guid());
                out.writeLong(member.incarnation());
                writeAddress(out, member.address(), member.port());
            }
            out.writeBytes(d.ringKey());
        } else if (m instanceof DetectorWindow w) {
            out.writeLong(w.epoch());
            out.writeInt(w.fingerprint());
            out.writeInt(w.etaMs());
            out.writeInt(w.deltaMs());
            out.writeInt(w.pauseMs());
            out.writeByte(w.overlay().code());
            out.writeByte(w.transport().code());
            out.writeByte(w.startMode().code());
            out.writeInt(w.memberCount());
            out.writeInt(w.selfIndex());
            writePeers(out, w.members());
            out.writeBytes(w.ringKey());
            int[] dead = w.deadAtStart();
            if (dead.length > 0) {
                // appended, optional: only for agents with FEATURE_DETECTOR_SLOTS, and only when a slot is vacant
                out.writeShort(dead.length);
                for (int member : dead) {
                    out.writeInt(member);
                }
            }
        } else if (m instanceof DetectorPeers p) {
            out.writeLong(p.epoch());
            writePeers(out, p.members());
        } else if (m instanceof DetectorLookup l) {
            out.writeLong(l.epoch());
            int[] members = l.members();
            out.writeShort(members.length);
            for (int member : members) {
                out.writeInt(member);
            }
        } else if (m instanceof DetectorEndpoint e) {
            writeAddress(out, e.address(), e.port());
        } else {
            throw new IllegalArgumentException("no detector encoding for " + m);
        }
    }

    private static void writePeers(ByteBuf out, List<DetectorPeer> peers) {
        out.writeShort(peers.size());
        for (DetectorPeer peer : peers) {
            out.writeInt(peer.index());
            out.writeLong(peer.guid());
            out.writeLong(peer.incarnation());
            writeAddress(out, peer.address(), peer.port());
        }
    }

    /** Family (4 or 6), the address's bytes, then the u16 port. */
    private static void writeAddress(ByteBuf out, InetAddress address, int port) {
        byte[] bytes = address.getAddress();
        out.writeByte(bytes.length == 4 ? 4 : 6);
        out.writeBytes(bytes);
        out.writeShort(port);
    }
}
