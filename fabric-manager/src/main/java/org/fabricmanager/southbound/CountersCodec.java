package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import org.fabricmanager.southbound.Message.Counters;
import org.fabricmanager.southbound.Message.CountersRequest;

/** Encodes and decodes PORT_COUNTERS_REQUEST and PORT_COUNTERS for {@link SouthboundCodec}, checking every field rule. */
final class CountersCodec {
    private CountersCodec() {
    }

    static void payload(Message m, ByteBuf out) {
        if (m instanceof CountersRequest r) {
            out.writeByte(r.firstPort());
            out.writeByte(r.lastPort());
        } else if (m instanceof Counters c) {
            PortCounters p = c.counters();
            out.writeByte(p.firstPort());
            out.writeByte(p.portCount());
            out.writeByte(PortCounters.FIELDS);
            for (long v : p.values()) {
                out.writeLong(v);
            }
        } else {
            throw new IllegalArgumentException("no counters encoding for " + m);
        }
    }

    static CountersRequest request(ByteBuf in, int txid) {
        int t = MessageType.PORT_COUNTERS_REQUEST.code();
        Wire.need(in, 2, "ports", t, txid);
        int first = in.readUnsignedByte();
        int last = in.readUnsignedByte();
        if (first < 1 || last < first || last > Protocol.MAX_PORTS) {
            throw Wire.malformed(t, txid, "ports " + first + ".." + last + " (need 1 <= firstPort <= lastPort <= "
                    + Protocol.MAX_PORTS + ")");
        }
        return new CountersRequest(txid, first, last);
    }

    static Counters counters(ByteBuf in, int txid) {
        int t = MessageType.PORT_COUNTERS.code();
        Wire.need(in, PortCounters.PAYLOAD_HEADER_BYTES, "counters header", t, txid);
        int first = in.readUnsignedByte();
        int count = in.readUnsignedByte();
        int fields = in.readUnsignedByte();
        if (first < 1 || count < 1 || first + count - 1 > Protocol.MAX_PORTS) {
            throw Wire.malformed(t, txid, "ports " + first + " + " + count + " (need 1 <= firstPort, 1 <= count, last port <= "
                    + Protocol.MAX_PORTS + ")");
        }
        if (fields < PortCounters.FIELDS || fields > PortCounters.MAX_FIELDS) {
            throw Wire.malformed(t, txid, "fields " + fields + " outside " + PortCounters.FIELDS + ".."
                    + PortCounters.MAX_FIELDS);
        }
        // checked before allocating: the length comes from the peer
        Wire.need(in, count * fields * Long.BYTES, "counters", t, txid);
        long[] values = new long[count * PortCounters.FIELDS];
        for (int p = 0; p < count; p++) {
            for (int f = 0; f < fields; f++) {
                long v = in.readLong();
                if (f < PortCounters.FIELDS) {
                    values[p * PortCounters.FIELDS + f] = v;
                } // counters of a later version: not known here, skipped
            }
        }
        return new Counters(txid, new PortCounters(first, values));
    }
}
