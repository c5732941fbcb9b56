package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.HelloReply;

/** Decodes the handshake family (HELLO, HELLO_REPLY, PORT_INFO, PORT_STATUS) for {@link SouthboundCodec}, checking every field rule. */
final class HandshakeDecoder {
    private HandshakeDecoder() {
    }

    static Hello hello(ByteBuf in, int txid) {
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

    static HelloReply helloReply(ByteBuf in, int txid) {
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
        long term = Wire.optionalTerm(in, t, txid);
        return new HelloReply(txid, version, daemonId, (int) Math.min(maxFrame, Protocol.MAX_MAX_FRAME), (int) echo, term);
    }

    static List<PortRecord> readPorts(ByteBuf in, int t, int txid, boolean snapshot) {
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
}
