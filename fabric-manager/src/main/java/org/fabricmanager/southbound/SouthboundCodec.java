package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.southbound.Message.Ack;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.DetectorEndpoint;
import org.fabricmanager.southbound.Message.DetectorMember;
import org.fabricmanager.southbound.Message.EchoReply;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.southbound.Message.VcRuleSet;

/**
 * Encodes messages into frames and decodes frames into messages, checking every layout and field
 * rule of {@code docs/protocol.md}; a violation is a {@link ProtocolException} naming the field.
 * Rules that need the session's context (port count, negotiated version) are the session's job.
 */
public final class SouthboundCodec {
    private SouthboundCodec() {
    }

    // ---- encoding ------------------------------------------------------------------------------

    /** Writes {@code m} as one complete frame (length, type, txid, payload). */
    public static void encode(Message m, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        out.writeByte(m.type().code());
        out.writeInt(m.txid());
        encodePayload(m, out);
        out.setInt(start, out.writerIndex() - start - Protocol.LENGTH_FIELD_BYTES);
    }

    /**
     * Writes blocks {@code from} (inclusive) to {@code to} (exclusive) of {@code batch}, a run as
     * {@link LftBatch#runEnd} delimits it, as one LFT_BLOCKS frame, straight from the blocks' arrays: the
     * same bytes as encoding an {@link Message.LftBlocks} of their entries, without copying them twice.
     */
    public static void encodeRun(int txid, LftBatch batch, int from, int to, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        out.writeByte(MessageType.LFT_BLOCKS.code());
        out.writeInt(txid);
        out.writeLong(batch.version());
        out.writeInt(batch.blocks().get(from).base());
        int countAt = out.writerIndex();
        out.writeShort(0);
        int entries = 0;
        for (int i = from; i < to; i++) {
            byte[] e = batch.blocks().get(i).entries();
            out.writeBytes(e);
            entries += e.length;
        }
        out.setShort(countAt, entries);
        out.setInt(start, out.writerIndex() - start - Protocol.LENGTH_FIELD_BYTES);
    }

    /** The size of {@code m}'s frame in bytes, length field included. */
    public static int frameBytes(Message m) {
        io.netty.buffer.ByteBuf tmp = io.netty.buffer.Unpooled.buffer(128);
        try {
            encode(m, tmp);
            return tmp.readableBytes();
        } finally {
            tmp.release();
        }
    }

    private static void encodePayload(Message m, ByteBuf out) {
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
        } else if (m instanceof LftBlock b) {
            out.writeLong(b.version());
            out.writeInt(b.base());
            out.writeByte(b.entries().length);
            out.writeBytes(b.entries());
        } else if (m instanceof Message.LftBlocks b) {
            out.writeLong(b.version());
            out.writeInt(b.base());
            out.writeShort(b.entries().length);
            out.writeBytes(b.entries());
        } else if (m instanceof LftCommit c) {
            out.writeLong(c.version());
            out.writeInt(c.length());
            out.writeInt(c.blocks());
            out.writeLong(c.hash());
            if (c.rulesHash() != 0 || c.managerTerm() != 0) {
                out.writeLong(c.rulesHash()); // appended field (0: rules kept, followed by a term)
            }
            if (c.managerTerm() != 0) {
                out.writeLong(c.managerTerm()); // second appended field: sent only by hot-standby managers
            }
        } else if (m instanceof Ack a) {
            out.writeByte(a.ackedType().code());
        } else if (m instanceof CommitAck a) {
            out.writeByte(MessageType.LFT_COMMIT.code());
            out.writeLong(a.version());
            out.writeInt(a.length());
            out.writeLong(a.hash());
            if (a.rulesHash() != 0) {
                out.writeLong(a.rulesHash());
            }
        } else if (m instanceof VcRuleSet r) {
            out.writeLong(r.version());
            out.writeByte(r.vcCount());
            out.writeByte(r.portClasses().length);
            out.writeBytes(r.portClasses());
            out.writeByte(r.transitions().length / 3);
            out.writeBytes(r.transitions());
        } else if (m instanceof ErrorReport e) {
            out.writeShort(e.code());
            out.writeByte(e.refType());
            Wire.writeStr16(out, e.message() == null ? "" : e.message(), Protocol.MAX_ERROR_BYTES);
        } else if (m instanceof EchoRequest e) {
            out.writeLong(e.timestamp());
        } else if (m instanceof EchoReply e) {
            out.writeLong(e.timestamp());
        } else if (m instanceof DetectorConfig d) {
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
                byte[] address = member.address().getAddress();
                out.writeByte(address.length == 4 ? 4 : 6);
                out.writeBytes(address);
                out.writeShort(member.port());
            }
            out.writeBytes(d.ringKey());
        } else if (m instanceof Message.DetectorWindow w) {
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
        } else if (m instanceof Message.DetectorPeers p) {
            out.writeLong(p.epoch());
            writePeers(out, p.members());
        } else if (m instanceof Message.DetectorLookup l) {
            out.writeLong(l.epoch());
            int[] members = l.members();
            out.writeShort(members.length);
            for (int member : members) {
                out.writeInt(member);
            }
        } else if (m instanceof DetectorEndpoint e) {
            byte[] address = e.address().getAddress();
            out.writeByte(address.length == 4 ? 4 : 6);
            out.writeBytes(address);
            out.writeShort(e.port());
        } else {
            throw new IllegalArgumentException("no encoding for " + m);
        }
    }

    private static void writePeers(ByteBuf out, List<Message.DetectorPeer> peers) {
        out.writeShort(peers.size());
        for (Message.DetectorPeer peer : peers) {
            out.writeInt(peer.index());
            out.writeLong(peer.guid());
            out.writeLong(peer.incarnation());
            byte[] address = peer.address().getAddress();
            out.writeByte(address.length == 4 ? 4 : 6);
            out.writeBytes(address);
            out.writeShort(peer.port());
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

    // ---- decoding ------------------------------------------------------------------------------

    /**
     * Decodes one frame whose length field has been removed: type, txid and exactly the payload.
     *
     * @throws ProtocolException UNKNOWN_TYPE or MALFORMED, naming the field
     */
    public static Message decode(ByteBuf frame) {
        if (frame.readableBytes() < Protocol.HEADER_BYTES) {
            throw new ProtocolException(ErrorCode.MALFORMED, "frame of " + frame.readableBytes()
                    + " bytes is shorter than its 5-byte header");
        }
        int code = frame.readUnsignedByte();
        int txid = frame.readInt();
        MessageType type = MessageType.fromCode(code);
        if (type == null) {
            throw new ProtocolException(ErrorCode.UNKNOWN_TYPE, code, txid, "unknown message type " + MessageType.describe(code));
        }
        Message m = switch (type) {
            case HELLO -> decodeHello(frame, txid);
            case HELLO_REPLY -> decodeHelloReply(frame, txid);
            case PORT_INFO -> new PortInfo(txid, readPorts(frame, code, txid, true));
            case PORT_STATUS -> new PortStatus(txid, readPorts(frame, code, txid, false));
            case LFT_BLOCK -> decodeBlock(frame, txid);
            case LFT_BLOCKS -> decodeBlocks(frame, txid);
            case LFT_COMMIT -> decodeCommit(frame, txid);
            case ACK -> decodeAck(frame, txid);
            case ERROR -> decodeError(frame, txid);
            case ECHO_REQUEST -> {
                Wire.need(frame, 8, "timestamp", code, txid);
                yield new EchoRequest(txid, frame.readLong());
            }
            case ECHO_REPLY -> {
                Wire.need(frame, 8, "timestamp", code, txid);
                yield new EchoReply(txid, frame.readLong());
            }
            case DETECTOR_CONFIG -> decodeDetectorConfig(frame, txid);
            case VC_RULES -> decodeVcRules(frame, txid);
            case DETECTOR_ENDPOINT -> decodeDetectorEndpoint(frame, txid);
            case DETECTOR_WINDOW -> decodeDetectorWindow(frame, txid);
            case DETECTOR_PEERS -> {
                Wire.need(frame, 8, "epoch", code, txid);
                long epoch = frame.readLong();
                yield new Message.DetectorPeers(txid, epoch, readPeers(frame, code, txid, 0));
            }
            case DETECTOR_LOOKUP -> decodeDetectorLookup(frame, txid);
        };
        if (frame.isReadable()) {
            throw Wire.malformed(code, txid, frame.readableBytes() + " unexpected bytes after the payload");
        }
        return m;
    }

    private static Hello decodeHello(ByteBuf in, int txid) {
        int t = MessageType.HELLO.code();
        Wire.need(in, 4, "magic", t, txid);
        int magic = in.readInt();
        if (magic != Protocol.MAGIC) {
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION, t, txid,
                    String.format("HELLO: bad magic 0x%08x (expected 0x%08x): not a fabric-manager agent", magic,
                            Protocol.MAGIC));
        }
        Wire.need(in, 45, "HELLO fields", t, txid);
        int min = in.readUnsignedShort();
        int max = in.readUnsignedShort();
        long guid = in.readLong();
        long incarnation = in.readLong();
        int ports = in.readUnsignedByte();
        long maxFrame = in.readUnsignedInt();
        long tableVersion = in.readLong();
        long tableLength = in.readUnsignedInt();
        long tableHash = in.readLong();
        String name = Wire.readStr8(in, Protocol.MAX_NAME_BYTES, "name", t, txid);
        // appended field: agents that predate it end the HELLO with the name
        int features = 0;
        if (in.isReadable()) {
            Wire.need(in, 4, "features", t, txid);
            features = in.readInt();
        }
        if (min < 1 || max < min) {
            throw Wire.malformed(t, txid, "version range " + min + ".." + max + " is empty or starts below 1");
        }
        if (guid == 0) {
            throw Wire.malformed(t, txid, "GUID 0");
        }
        if (ports < 1 || ports > Protocol.MAX_PORTS) {
            throw Wire.malformed(t, txid, "port count " + ports + " outside [1, " + Protocol.MAX_PORTS + "]");
        }
        if (maxFrame < Protocol.MIN_MAX_FRAME) {
            throw Wire.malformed(t, txid, "maxFrame " + maxFrame + " below " + Protocol.MIN_MAX_FRAME);
        }
        if (tableLength > Protocol.MAX_TABLE_LENGTH) {
            throw Wire.malformed(t, txid, "table length " + tableLength + " above " + Protocol.MAX_TABLE_LENGTH);
        }
        return new Hello(txid, min, max, guid, incarnation, ports, (int) Math.min(maxFrame, Protocol.MAX_MAX_FRAME),
                tableVersion, (int) tableLength, tableHash, name, features);
    }

    private static HelloReply decodeHelloReply(ByteBuf in, int txid) {
        int t = MessageType.HELLO_REPLY.code();
        Wire.need(in, 18, "HELLO_REPLY fields", t, txid);
        int version = in.readUnsignedShort();
        long daemonId = in.readLong();
        long maxFrame = in.readUnsignedInt();
        long echo = in.readUnsignedInt();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version 0");
        }
        if (maxFrame < Protocol.MIN_MAX_FRAME) {
            throw Wire.malformed(t, txid, "maxFrame " + maxFrame + " below " + Protocol.MIN_MAX_FRAME);
        }
        if (echo < 1 || echo > Integer.MAX_VALUE) {
            throw Wire.malformed(t, txid, "echo interval " + echo + " ms");
        }
        long term = optionalTerm(in, t, txid);
        return new HelloReply(txid, version, daemonId, (int) Math.min(maxFrame, Protocol.MAX_MAX_FRAME), (int) echo, term);
    }

    private static List<PortRecord> readPorts(ByteBuf in, int t, int txid, boolean snapshot) {
        Wire.need(in, 1, "count", t, txid);
        int count = in.readUnsignedByte();
        if (count == 0) {
            throw Wire.malformed(t, txid, "no port records");
        }
        boolean[] seen = new boolean[Protocol.MAX_PORTS + 1];
        List<PortRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Wire.need(in, 12, "port record " + i, t, txid);
            int port = in.readUnsignedByte();
            int state = in.readUnsignedByte();
            int kind = in.readUnsignedByte();
            long peerGuid = in.readLong();
            int peerPort = in.readUnsignedByte();
            String name = Wire.readStr8(in, Protocol.MAX_NAME_BYTES, "peerName of port record " + i, t, txid);
            if (port < 1 || port > Protocol.MAX_PORTS) {
                throw Wire.malformed(t, txid, "port record " + i + ": port " + port + " outside [1, " + Protocol.MAX_PORTS + "]");
            }
            if (seen[port]) {
                throw Wire.malformed(t, txid, "port " + port + " reported twice");
            }
            seen[port] = true;
            if (state > 1) {
                throw Wire.malformed(t, txid, "port " + port + ": state " + state + " (expected 0 or 1)");
            }
            if (kind > 2) {
                throw Wire.malformed(t, txid, "port " + port + ": peer kind " + kind + " (expected 0, 1 or 2)");
            }
            PortRecord.State s = PortRecord.State.values()[state];
            PortRecord.PeerKind k = PortRecord.PeerKind.values()[kind];
            if (s == PortRecord.State.DOWN && k != PortRecord.PeerKind.NONE) {
                throw Wire.malformed(t, txid, "port " + port + " is DOWN but names a peer");
            }
            if ((k == PortRecord.PeerKind.NONE) != (peerGuid == 0) || (k == PortRecord.PeerKind.NONE) != (peerPort == 0)) {
                throw Wire.malformed(t, txid, "port " + port + ": peer GUID and port must be 0 exactly when there is no peer");
            }
            if (k == PortRecord.PeerKind.NODE && peerPort != 1) {
                throw Wire.malformed(t, txid, "port " + port + ": a node's port is 1, got " + peerPort);
            }
            if (k == PortRecord.PeerKind.SWITCH && peerPort > Protocol.MAX_PORTS) {
                throw Wire.malformed(t, txid, "port " + port + ": peer port " + peerPort + " above " + Protocol.MAX_PORTS);
            }
            records.add(new PortRecord(port, s, k, peerGuid, peerPort, name));
        }
        if (snapshot) {
            for (int p = 1; p <= count; p++) {
                if (!seen[p]) {
                    throw Wire.malformed(t, txid, count + " records but port " + p + " is missing (a snapshot covers ports 1.." + count + ")");
                }
            }
        }
        return records;
    }

    private static LftBlock decodeBlock(ByteBuf in, int txid) {
        int t = MessageType.LFT_BLOCK.code();
        Wire.need(in, 13, "LFT_BLOCK fields", t, txid);
        long version = in.readLong();
        long base = in.readUnsignedInt();
        int count = in.readUnsignedByte();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (base % LftBlock.SIZE != 0 || base + count > Protocol.MAX_TABLE_LENGTH) {
            throw Wire.malformed(t, txid, "base " + base + " is not a multiple of 64 below " + Protocol.MAX_TABLE_LENGTH);
        }
        if (count < 1 || count > LftBlock.SIZE) {
            throw Wire.malformed(t, txid, "count " + count + " outside [1, 64]");
        }
        Wire.need(in, count, "entries", t, txid);
        byte[] entries = new byte[count];
        in.readBytes(entries);
        return new LftBlock(txid, version, (int) base, entries);
    }

    private static Message.LftBlocks decodeBlocks(ByteBuf in, int txid) {
        int t = MessageType.LFT_BLOCKS.code();
        Wire.need(in, 14, "LFT_BLOCKS fields", t, txid);
        long version = in.readLong();
        long base = in.readUnsignedInt();
        int count = in.readUnsignedShort();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (count < 1 || count > Protocol.MAX_RUN_ENTRIES) {
            throw Wire.malformed(t, txid, "count " + count + " outside [1, " + Protocol.MAX_RUN_ENTRIES + "]");
        }
        if (base % LftBlock.SIZE != 0 || base + count > Protocol.MAX_TABLE_LENGTH) {
            throw Wire.malformed(t, txid, "base " + base + " is not a multiple of 64 with " + count
                    + " entries ending at most at " + Protocol.MAX_TABLE_LENGTH);
        }
        Wire.need(in, count, "entries", t, txid);
        byte[] entries = new byte[count];
        in.readBytes(entries);
        return new Message.LftBlocks(txid, version, (int) base, entries);
    }

    private static LftCommit decodeCommit(ByteBuf in, int txid) {
        int t = MessageType.LFT_COMMIT.code();
        Wire.need(in, 24, "LFT_COMMIT fields", t, txid);
        long version = in.readLong();
        long length = in.readUnsignedInt();
        long blocks = in.readUnsignedInt();
        long hash = in.readLong();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (length > Protocol.MAX_TABLE_LENGTH) {
            throw Wire.malformed(t, txid, "length " + length + " above " + Protocol.MAX_TABLE_LENGTH);
        }
        if (blocks > (length + LftBlock.SIZE - 1) / LftBlock.SIZE) {
            throw Wire.malformed(t, txid, blocks + " blocks cannot fit a table of " + length + " entries");
        }
        long rulesHash = 0;
        long term = 0;
        if (in.isReadable()) {
            Wire.need(in, 8, "rulesHash", t, txid);
            rulesHash = in.readLong();
            term = optionalTerm(in, t, txid);
            if (rulesHash == 0 && term == 0) {
                throw Wire.malformed(t, txid, "rulesHash 0 (leave the field out to keep the rules)");
            }
        }
        return new LftCommit(txid, version, (int) length, (int) blocks, hash, rulesHash, term);
    }

    /** The appended managerTerm (u64) of HELLO_REPLY and LFT_COMMIT: absent (0) outside a hot-standby group. */
    private static long optionalTerm(ByteBuf in, int t, int txid) {
        if (!in.isReadable()) {
            return 0;
        }
        Wire.need(in, 8, "managerTerm", t, txid);
        long term = in.readLong();
        if (term < 1) {
            throw Wire.malformed(t, txid, "managerTerm " + term + " (sent only when at least 1)");
        }
        return term;
    }

    private static Message decodeAck(ByteBuf in, int txid) {
        int t = MessageType.ACK.code();
        Wire.need(in, 1, "ackedType", t, txid);
        int acked = in.readUnsignedByte();
        MessageType type = MessageType.fromCode(acked);
        if (type == MessageType.LFT_COMMIT) {
            Wire.need(in, 20, "committed table", t, txid);
            long version = in.readLong();
            long length = in.readUnsignedInt();
            long hash = in.readLong();
            if (length > Protocol.MAX_TABLE_LENGTH) {
                throw Wire.malformed(t, txid, "length " + length + " above " + Protocol.MAX_TABLE_LENGTH);
            }
            long rulesHash = 0;
            if (in.isReadable()) {
                Wire.need(in, 8, "rulesHash", t, txid);
                rulesHash = in.readLong();
            }
            return new CommitAck(txid, version, (int) length, hash, rulesHash);
        }
        if (type != MessageType.PORT_INFO && type != MessageType.PORT_STATUS && type != MessageType.DETECTOR_CONFIG
                && type != MessageType.DETECTOR_ENDPOINT && type != MessageType.DETECTOR_WINDOW) {
            throw Wire.malformed(t, txid, "ACK of " + MessageType.describe(acked) + ", which is not acknowledged");
        }
        return new Ack(txid, type);
    }

    private static VcRuleSet decodeVcRules(ByteBuf in, int txid) {
        int t = MessageType.VC_RULES.code();
        Wire.need(in, 10, "VC_RULES fields", t, txid);
        long version = in.readLong();
        int vcCount = in.readUnsignedByte();
        int ports = in.readUnsignedByte();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (vcCount < 1 || vcCount > Protocol.MAX_VCS) {
            throw Wire.malformed(t, txid, "vcCount " + vcCount + " outside [1, " + Protocol.MAX_VCS + "]");
        }
        if (ports < 1 || ports > Protocol.MAX_PORTS) {
            throw Wire.malformed(t, txid, "port count " + ports + " outside [1, " + Protocol.MAX_PORTS + "]");
        }
        Wire.need(in, ports + 1, "port classes", t, txid);
        byte[] classes = new byte[ports];
        in.readBytes(classes);
        for (int p = 0; p < ports; p++) {
            if (classes[p] < 0 || classes[p] >= Protocol.PORT_CLASSES) {
                throw Wire.malformed(t, txid, "port " + (p + 1) + ": class " + (classes[p] & 0xff) + " outside [0, "
                        + (Protocol.PORT_CLASSES - 1) + "]");
            }
        }
        int count = in.readUnsignedByte();
        if (count > Protocol.PORT_CLASSES * Protocol.PORT_CLASSES) {
            throw Wire.malformed(t, txid, count + " transitions, more than the " + Protocol.PORT_CLASSES
                    * Protocol.PORT_CLASSES + " class pairs");
        }
        Wire.need(in, count * 3, "transitions", t, txid);
        byte[] transitions = new byte[count * 3];
        in.readBytes(transitions);
        boolean[] seen = new boolean[Protocol.PORT_CLASSES * Protocol.PORT_CLASSES];
        for (int i = 0; i < count; i++) {
            int from = transitions[3 * i] & 0xff;
            int to = transitions[3 * i + 1] & 0xff;
            int vc = transitions[3 * i + 2] & 0xff;
            if (from >= Protocol.PORT_CLASSES || to >= Protocol.PORT_CLASSES || vc >= vcCount) {
                throw Wire.malformed(t, txid, "transition " + i + ": " + from + "->" + to + " on vc " + vc
                        + " (classes below " + Protocol.PORT_CLASSES + ", channel below " + vcCount + ")");
            }
            if (seen[from * Protocol.PORT_CLASSES + to]) {
                throw Wire.malformed(t, txid, "transition " + i + ": class pair " + from + "->" + to + " given twice");
            }
            seen[from * Protocol.PORT_CLASSES + to] = true;
        }
        return new VcRuleSet(txid, version, vcCount, classes, transitions);
    }

    private static ErrorReport decodeError(ByteBuf in, int txid) {
        int t = MessageType.ERROR.code();
        Wire.need(in, 3, "ERROR fields", t, txid);
        int code = in.readUnsignedShort();
        int refType = in.readUnsignedByte();
        String message = Wire.readStr16(in, Protocol.MAX_ERROR_BYTES, "message", t, txid);
        return new ErrorReport(txid, code, refType, message);
    }

    private static DetectorEndpoint decodeDetectorEndpoint(ByteBuf in, int txid) {
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

    private static DetectorConfig decodeDetectorConfig(ByteBuf in, int txid) {
        int t = MessageType.DETECTOR_CONFIG.code();
        Wire.need(in, 41, "DETECTOR_CONFIG fields", t, txid);
        long epoch = in.readLong();
        long eta = in.readUnsignedInt();
        long delta = in.readUnsignedInt();
        long pause = in.readUnsignedInt();
        int overlayCode = in.readUnsignedByte();
        int transportCode = in.readUnsignedByte();
        int startCode = in.readUnsignedByte();
        long n = in.readUnsignedInt();
        long self = in.readUnsignedInt();
        long start = in.readUnsignedInt();
        int count = in.readUnsignedShort();
        checkRingTiming(epoch, eta, delta, pause, t, txid);
        Message.Overlay overlay = overlay(overlayCode, t, txid);
        Message.Transport transport = transport(transportCode, t, txid);
        Message.StartMode startMode = startMode(startCode, t, txid);
        if (n < 1 || n > Integer.MAX_VALUE || self >= n) {
            throw Wire.malformed(t, txid, "member count " + n + " and self index " + self);
        }
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
        return new DetectorConfig(txid, epoch, (int) eta, (int) delta, (int) pause, overlay, transport, startMode,
                (int) n, (int) self, (int) start, members, key);
    }

    private static Message.DetectorWindow decodeDetectorWindow(ByteBuf in, int txid) {
        int t = MessageType.DETECTOR_WINDOW.code();
        Wire.need(in, 35, "DETECTOR_WINDOW fields", t, txid);
        long epoch = in.readLong();
        int fingerprint = in.readInt();
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
        if (n < 2 || n > Integer.MAX_VALUE || self >= n) {
            throw Wire.malformed(t, txid, "member count " + n + " and self index " + self);
        }
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
        return new Message.DetectorWindow(txid, epoch, fingerprint, (int) eta, (int) delta, (int) pause, overlay,
                transport, startMode, (int) n, (int) self, members, key, dead);
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

    private static Message.DetectorLookup decodeDetectorLookup(ByteBuf in, int txid) {
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
