package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.DetectorEndpoint;
import org.fabricmanager.southbound.Message.DetectorMember;

/**
 * Decodes the failure-detector family (DETECTOR_CONFIG, DETECTOR_WINDOW, DETECTOR_PEERS, DETECTOR_LOOKUP,
 * DETECTOR_ENDPOINT) for {@link SouthboundCodec}, checking every field and ring rule.
 */
final class DetectorDecoder {
    private DetectorDecoder() {
    }

    static DetectorEndpoint endpoint(ByteBuf in, int txid) {
        int t = MessageType.DETECTOR_ENDPOINT.code();
        Wire.need(in, 1, "address family", t, txid);
        int family = in.readUnsignedByte();
        int bytes = switch (family) {
            case 4 -> 4;
            case 6 -> 16;
            default -> throw Wire.malformed(t, txid, "address family " + family + " (expected 4 or 6)");
        };
        Wire.need(in, bytes + 2, "address and port", t, txid);
        byte[] address = new byte[bytes];
        in.readBytes(address);
        int port = in.readUnsignedShort();
        if (port == 0) {
            throw Wire.malformed(t, txid, "port 0");
        }
        try {
            return new DetectorEndpoint(txid, InetAddress.getByAddress(address), port);
        } catch (UnknownHostException e) {
            throw Wire.malformed(t, txid, "bad address");
        }
    }

    /** The epoch and timing rules DETECTOR_CONFIG and DETECTOR_WINDOW share (docs/protocol.md, section 3.9). */
    private static void checkRingTiming(long epoch, long eta, long delta, long pause, int t, int txid) {
        if (epoch < 1) {
            throw Wire.malformed(t, txid, "epoch " + epoch + " (must be at least 1)");
        }
        if (eta < 1 || delta < 2 * eta || delta > Integer.MAX_VALUE) {
            throw Wire.malformed(t, txid, "eta " + eta + " ms and delta " + delta + " ms: need eta >= 1 and delta >= 2 eta");
        }
        if (pause < 1 || pause >= delta) {
            throw Wire.malformed(t, txid, "pause threshold " + pause + " ms: need 1 <= pause < delta");
        }
    }

    private static Message.Overlay overlay(int code, int t, int txid) {
        return switch (code) {
            case 1 -> Message.Overlay.HYPERCUBE;
            case 2 -> Message.Overlay.BMG;
            default -> throw Wire.malformed(t, txid, "overlay " + code + " (expected 1 or 2)");
        };
    }

    private static Message.Transport transport(int code, int t, int txid) {
        return switch (code) {
            case 1 -> Message.Transport.UDP;
            case 2 -> Message.Transport.TCP;
            default -> throw Wire.malformed(t, txid, "transport " + code + " (expected 1 or 2)");
        };
    }

    private static Message.StartMode startMode(int code, int t, int txid) {
        return switch (code) {
            case 1 -> Message.StartMode.BOOTSTRAP;
            case 2 -> Message.StartMode.JOIN;
            default -> throw Wire.malformed(t, txid, "start mode " + code + " (expected 1 or 2)");
        };
    }

    /** What DETECTOR_CONFIG and DETECTOR_WINDOW both say after the epoch (and the window's fingerprint), checked. */
    private record RingHead(RingHeartbeats heartbeats, Message.StartMode startMode, long memberCount, long selfIndex) {
    }

    /**
     * Reads the heartbeats, the start mode, the ring's size and the agent's index, and checks them as section 3.9
     * says: a ring of at least {@code minMembers} that holds the agent.
     */
    private static RingHead readRingHead(ByteBuf in, long epoch, int minMembers, int t, int txid) {
        long eta = in.readUnsignedInt();
        long delta = in.readUnsignedInt();
        long pause = in.readUnsignedInt();
        int overlayCode = in.readUnsignedByte();
        int transportCode = in.readUnsignedByte();
        int startCode = in.readUnsignedByte();
        long n = in.readUnsignedInt();
        long self = in.readUnsignedInt();
        checkRingTiming(epoch, eta, delta, pause, t, txid);
        Message.Overlay overlay = overlay(overlayCode, t, txid);
        Message.Transport transport = transport(transportCode, t, txid);
        Message.StartMode startMode = startMode(startCode, t, txid);
        if (n < minMembers || n > Integer.MAX_VALUE || self >= n) {
            throw Wire.malformed(t, txid, "member count " + n + " and self index " + self);
        }
        return new RingHead(new RingHeartbeats((int) eta, (int) delta, (int) pause, overlay, transport), startMode, n, self);
    }

    static DetectorConfig config(ByteBuf in, int txid) {
        int t = MessageType.DETECTOR_CONFIG.code();
        Wire.need(in, 41, "DETECTOR_CONFIG fields", t, txid);
        long epoch = in.readLong();
        RingHead ring = readRingHead(in, epoch, 1, t, txid);
        long n = ring.memberCount();
        long start = in.readUnsignedInt();
        int count = in.readUnsignedShort();
        if (count < 1 || start + count > n) {
            throw Wire.malformed(t, txid, "chunk " + start + "+" + count + " outside the ring of " + n);
        }
        List<DetectorMember> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Wire.need(in, 17, "member " + (start + i), t, txid);
            long guid = in.readLong();
            long incarnation = in.readLong();
            int family = in.readUnsignedByte();
            int bytes = switch (family) {
                case 4 -> 4;
                case 6 -> 16;
                default -> throw Wire.malformed(t, txid, "member " + (start + i) + ": address family " + family);
            };
            Wire.need(in, bytes + 2, "address of member " + (start + i), t, txid);
            byte[] address = new byte[bytes];
            in.readBytes(address);
            int port = in.readUnsignedShort();
            try {
                members.add(new DetectorMember(guid, incarnation, InetAddress.getByAddress(address), port));
            } catch (UnknownHostException e) {
                throw Wire.malformed(t, txid, "member " + (start + i) + ": bad address");
            }
        }
        Wire.need(in, DetectorConfig.KEY_BYTES, "ring key", t, txid);
        byte[] key = new byte[DetectorConfig.KEY_BYTES];
        in.readBytes(key);
        RingHeartbeats h = ring.heartbeats();
        return new DetectorConfig(txid, epoch, h.etaMs(), h.deltaMs(), h.pauseMs(), h.overlay(), h.transport(),
                ring.startMode(), (int) n, (int) ring.selfIndex(), (int) start, members, key);
    }

    static Message.DetectorWindow window(ByteBuf in, int txid) {
        int t = MessageType.DETECTOR_WINDOW.code();
        Wire.need(in, 35, "DETECTOR_WINDOW fields", t, txid);
        long epoch = in.readLong();
        int fingerprint = in.readInt();
        RingHead ring = readRingHead(in, epoch, 2, t, txid);
        long n = ring.memberCount();
        long self = ring.selfIndex();
        List<Message.DetectorPeer> members = readPeers(in, t, txid, 1);
        boolean hasSelf = false;
        for (Message.DetectorPeer p : members) {
            if (p.index() >= n) {
                throw Wire.malformed(t, txid, "member " + p.index() + " outside the ring of " + n);
            }
            hasSelf |= p.index() == self;
        }
        if (!hasSelf) {
            throw Wire.malformed(t, txid, "the window does not contain the agent itself (member " + self + ")");
        }
        Wire.need(in, DetectorConfig.KEY_BYTES, "ring key", t, txid);
        byte[] key = new byte[DetectorConfig.KEY_BYTES];
        in.readBytes(key);
        int[] dead = new int[0];
        if (in.isReadable()) {
            Wire.need(in, 2, "dead-at-start count", t, txid);
            int count = in.readUnsignedShort();
            if (count < 1 || count > Protocol.MAX_DEAD_AT_START) {
                throw Wire.malformed(t, txid, "dead-at-start count " + count + " outside [1, "
                        + Protocol.MAX_DEAD_AT_START + "]");
            }
            Wire.need(in, 4 * count, "dead-at-start members", t, txid);
            dead = new int[count];
            for (int k = 0; k < count; k++) {
                long m = in.readUnsignedInt();
                if (m >= n || m == self || (k > 0 && m <= dead[k - 1])) {
                    throw Wire.malformed(t, txid, "dead-at-start member " + m + " (ring of " + n + ", self " + self
                            + ", strictly ascending)");
                }
                dead[k] = (int) m;
            }
        }
        return new Message.DetectorWindow(txid, epoch, fingerprint, ring.heartbeats(),
                new RingSeat((int) n, (int) self, ring.startMode(), dead), members, key);
    }

    /** A u16 count (at least {@code min}, at most {@link Protocol#MAX_DETECTOR_PEERS}) of members, ascending by index. */
    private static List<Message.DetectorPeer> readPeers(ByteBuf in, int t, int txid, int min) {
        Wire.need(in, 2, "member count", t, txid);
        int count = in.readUnsignedShort();
        if (count < min || count > Protocol.MAX_DETECTOR_PEERS) {
            throw Wire.malformed(t, txid, count + " members (expected " + min + ".." + Protocol.MAX_DETECTOR_PEERS + ")");
        }
        List<Message.DetectorPeer> members = new ArrayList<>(count);
        long previous = -1;
        for (int i = 0; i < count; i++) {
            Wire.need(in, 21, "member entry " + i, t, txid);
            long index = in.readUnsignedInt();
            long guid = in.readLong();
            long incarnation = in.readLong();
            int family = in.readUnsignedByte();
            if (index > Integer.MAX_VALUE || index <= previous) {
                throw Wire.malformed(t, txid, "member entry " + i + ": index " + index + " (indices must ascend)");
            }
            previous = index;
            int bytes = switch (family) {
                case 4 -> 4;
                case 6 -> 16;
                default -> throw Wire.malformed(t, txid, "member " + index + ": address family " + family);
            };
            Wire.need(in, bytes + 2, "address of member " + index, t, txid);
            byte[] address = new byte[bytes];
            in.readBytes(address);
            int port = in.readUnsignedShort();
            if (port == 0) {
                throw Wire.malformed(t, txid, "member " + index + ": port 0");
            }
            try {
                members.add(new Message.DetectorPeer((int) index, guid, incarnation, InetAddress.getByAddress(address), port));
            } catch (UnknownHostException e) {
                throw Wire.malformed(t, txid, "member " + index + ": bad address");
            }
        }
        return members;
    }

    static Message.DetectorPeers peers(ByteBuf in, int txid) {
        int t = MessageType.DETECTOR_PEERS.code();
        Wire.need(in, 8, "epoch", t, txid);
        long epoch = in.readLong();
        return new Message.DetectorPeers(txid, epoch, readPeers(in, t, txid, 0));
    }

    static Message.DetectorLookup lookup(ByteBuf in, int txid) {
        int t = MessageType.DETECTOR_LOOKUP.code();
        Wire.need(in, 10, "DETECTOR_LOOKUP fields", t, txid);
        long epoch = in.readLong();
        int count = in.readUnsignedShort();
        if (count < 1 || count > Protocol.MAX_LOOKUP_MEMBERS) {
            throw Wire.malformed(t, txid, count + " members asked for (expected 1.." + Protocol.MAX_LOOKUP_MEMBERS + ")");
        }
        Wire.need(in, 4 * count, "members", t, txid);
        int[] members = new int[count];
        for (int i = 0; i < count; i++) {
            long m = in.readUnsignedInt();
            if (m > Integer.MAX_VALUE) {
                throw Wire.malformed(t, txid, "member " + m + " outside any ring");
            }
            members[i] = (int) m;
        }
        return new Message.DetectorLookup(txid, epoch, members);
    }
}
