package org.fabricmanager.daemon.opensm;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.LidPlan;

/**
 * The frames between OpenSM's plug-in and the daemon (docs/opensm.md, "The plug-in's protocol"): a 12-byte header
 * (magic {@code FMOS}, version 4, type, two reserved bytes, payload length, all big-endian), then SUBNET or SUBNET_LMC
 * (plug-in to daemon), TABLES, DELTA or REFUSED (the answer), and on the plug-in's channel (a connection of its own, opened by CHANNEL)
 * EVENT and SET from the plug-in, REROUTE from the daemon. Every count is checked against the bytes that remain, so a
 * frame cannot make the daemon allocate more than its length.
 */
public final class OpenSmWire {
    public static final int MAGIC = 0x464D4F53;
    public static final int VERSION = 4;
    public static final int SUBNET = 1;
    public static final int TABLES = 2;
    public static final int REFUSED = 3;
    public static final int EVENT = 4;
    /** The plug-in's channel opens with it and sends it again as a keepalive ({@link Keepalive}). */
    public static final int CHANNEL = 5;
    /** A CHANNEL's payload: answered subnet, events dropped, OpenSM's MADs sent, received, outstanding, SM state. */
    public static final int CHANNEL_BYTES = 8 + 8 + 4 + 4 + 4 + 1;
    /** The plug-in sends a CHANNEL this often. */
    public static final long KEEPALIVE_MS = 5_000;
    /** The daemon asks for a routing pass (tables OpenSM has not installed, or no subnet yet): a request number (u64). */
    public static final int REROUTE = 6;
    /** The switches whose tables equal a pass's answer once OpenSM set them: sequence, switch count, GUIDs. */
    public static final int SET = 7;
    /** Port counters' changes OpenSM's performance manager read: count, records dropped so far, records. */
    public static final int COUNTERS = 8;
    /** The answer as the change to the tables of an earlier answer the plug-in holds: the entries that differ. */
    public static final int DELTA = 9;
    /**
     * A SUBNET whose CA ports carry their LMC (u8, after the LID): sent instead of SUBNET when a port has LMC > 0, so a
     * daemon of an earlier release refuses it (unknown type: REFUSED INVALID) instead of leaving the extra LIDs unrouted.
     */
    public static final int SUBNET_LMC = 10;
    /** A DELTA's fixed part: sequence, answer, base, switch count, entries per switch, changed switches. */
    private static final int DELTA_HEAD = 8 + 8 + 8 + 4 + 2 + 4;
    /** A COUNTERS record: node GUID, port, then {@link PortCounter#ALL} changes. */
    public static final int COUNTER_RECORD_BYTES = 8 + 1 + 8 * 8;
    public static final int HEADER_BYTES = 12;
    /** An EVENT's payload: id, the subnet last answered, a detail. */
    public static final int EVENT_BYTES = 20;
    /** OpenSM's event ids (osm_epi_event_id_t) that the plug-in forwards. */
    public static final int EVENT_TRAP = 3;
    public static final int EVENT_SUBNET_UP = 4;
    public static final int EVENT_HEAVY_SWEEP_START = 5;
    public static final int EVENT_HEAVY_SWEEP_DONE = 6;
    public static final int EVENT_UCAST_ROUTING_DONE = 7;
    public static final int EVENT_STATE_CHANGE = 8;
    /** LFT blocks set: the plug-in forwards one per routing, its detail the count (low 32 bits) and span in ms (high). */
    public static final int EVENT_LFT_CHANGE = 10;
    /** Longest node description the plug-in sends (InfiniBand's NodeDescription). */
    public static final int MAX_NAME_BYTES = 64;
    /** Most ports of a switch (InfiniBand port numbers are one byte, 255 meaning none). */
    public static final int MAX_PORTS = 254;

    private OpenSmWire() {
    }

    /** A frame's header. */
    public record Header(int type, int length) {
    }

    /** A switch as OpenSM sees it: {@code peerGuid[p - 1]} is the node on port {@code p} (0: none). */
    public record SwitchEntry(long guid, int lid, String name, long[] peerGuid, int[] peerPort) {
        public int ports() {
            return peerGuid.length;
        }
    }

    /** A linked port of a CA or router: one destination, and 2^lmc LIDs from its base LID {@code lid}. */
    public record EndPort(long nodeGuid, long portGuid, int port, int lid, String name, int lmc) {
        /** A port with one LID (LMC 0), as a SUBNET frame gives every port. */
        public EndPort(long nodeGuid, long portGuid, int port, int lid, String name) {
            this(nodeGuid, portGuid, port, lid, name, 0);
        }
    }

    /**
     * One SUBNET frame; {@code held} names the daemon's answer whose tables the plug-in holds (0: none), which the
     * daemon may answer with a DELTA; {@code lmc} is the LMC of its CA ports (0 for a SUBNET frame).
     */
    public record Subnet(long seq, long held, List<SwitchEntry> switches, List<EndPort> endPorts, int lmc) {
        /** A subnet whose ports have one LID each. */
        public Subnet(long seq, long held, List<SwitchEntry> switches, List<EndPort> endPorts) {
            this(seq, held, switches, endPorts, 0);
        }
    }

    /** One EVENT frame. */
    public record Event(int id, long answeredSeq, long detail) {
    }

    /**
     * One SET frame: of the {@code switches} in OpenSM's subnet after the pass {@code seq}, those in {@code held} hold
     * the tables the daemon answered to it, as the switches acknowledged them.
     */
    public record TablesSet(long seq, int switches, Set<Long> held) {
    }

    /**
     * A frame the daemon refuses; the message says what is wrong with it, {@link #refusal()} the code the plug-in is
     * answered with ({@code null}: not the plug-in's protocol or release, the connection is closed without an answer).
     */
    public static final class WireException extends Exception {
        private final Refusal refusal;

        public WireException(String message) {
            this(message, Refusal.INVALID);
        }

        public WireException(String message, Refusal refusal) {
            super(message);
            this.refusal = refusal;
        }

        /** The code of the REFUSED answering the frame, or {@code null} when none can be understood. */
        public Refusal refusal() {
            return refusal;
        }
    }

    /**
     * One CHANNEL frame, the plug-in's keepalive: what it knows of OpenSM, read on its channel thread.
     *
     * @param answeredSeq     the last subnet answered with the daemon's tables
     * @param eventsDropped   OpenSM events the plug-in's queue dropped so far (the daemon away or slow)
     * @param madsSent        OpenSM's subnet management packets sent so far (wraps at 2^32)
     * @param madsReceived    ... and received
     * @param madsOutstanding ... sent and neither answered nor timed out
     * @param smState         OpenSM's SM state: 0 not active, 1 discovering, 2 standby, 3 master
     */
    public record Keepalive(long answeredSeq, long eventsDropped, int madsSent, int madsReceived, int madsOutstanding,
                            int smState) {
    }

    /**
     * The longest frame but a SUBNET: a SET names every switch (8 bytes each, at most 49,151), a COUNTERS frame carries
     * at most 4,096 records. Fixed: {@code opensm.maxSubnetBytes} bounds the subnet alone, so that a bound set just
     * above a subnet's size does not refuse the plug-in's counters.
     */
    public static final int MAX_CHANNEL_FRAME = 1 << 20;

    /**
     * Decodes a header; a SUBNET's payload length is checked against {@code maxSubnet}, any other's against {@link
     * #MAX_CHANNEL_FRAME}. A frame of another release is refused as {@link Refusal#INVALID}: whatever its release, the
     * plug-in reads that as a refusal, not as the daemon's absence.
     */
    public static Header header(ByteBuffer b, int maxSubnet) throws WireException {
        int magic = b.getInt();
        int version = b.get() & 0xff;
        int type = b.get() & 0xff;
        b.getShort();
        long length = b.getInt() & 0xffffffffL;
        if (magic != MAGIC) {
            throw new WireException("not the plug-in's protocol (magic 0x" + Integer.toHexString(magic) + ")", null);
        }
        if (version != VERSION) {
            throw new WireException("protocol version " + version + ", expected " + VERSION
                    + " (install the plug-in and the daemon from one release)", Refusal.INVALID);
        }
        boolean subnet = type == SUBNET || type == SUBNET_LMC;
        int bound = subnet ? maxSubnet : MAX_CHANNEL_FRAME;
        if (length > bound) {
            throw new WireException("frame of " + length + " bytes, above the limit of " + bound
                     + (subnet ? " (opensm.maxSubnetBytes)" : " for a frame of type " + type), Refusal.TOO_LARGE);
        }
        return new Header(type, (int) length);
    }

    /** Decodes a SUBNET payload, refusing anything out of range, duplicated or left over. */
    public static Subnet subnet(ByteBuffer b) throws WireException {
        return subnet(b, false);
    }

    /**
     * Decodes a SUBNET payload, or a SUBNET_LMC one when {@code withLmc}: each CA port's LMC after its LID, at most
     * {@value Fabric#MAX_LMC}, and one LMC for every port that has a LID (OpenSM gives every end port its {@code lmc}).
     */
    public static Subnet subnet(ByteBuffer b, boolean withLmc) throws WireException {
        try {
            long seq = b.getLong();
            long held = b.getLong();
            int switches = count(b.getInt(), b.remaining() / 12, "switches");
            int ends = b.getInt();
            List<SwitchEntry> sws = new ArrayList<>(switches);
            Set<Long> guids = new HashSet<>();
            for (int i = 0; i < switches; i++) {
                long guid = b.getLong();
                int lid = lid(b.getShort() & 0xffff, guid);
                String name = name(b);
                int ports = b.get() & 0xff;
                if (ports > MAX_PORTS) {
                    throw new WireException("switch " + Guids.format(guid) + " has " + ports + " ports");
                }
                long[] peers = new long[ports];
                int[] peerPorts = new int[ports];
                for (int p = 0; p < ports; p++) {
                    peers[p] = b.getLong();
                    peerPorts[p] = b.get() & 0xff;
                }
                if (!guids.add(guid)) {
                    throw new WireException("switch " + Guids.format(guid) + " twice");
                }
                sws.add(new SwitchEntry(guid, lid, name, peers, peerPorts));
            }
            count(ends, b.remaining() / (withLmc ? 21 : 20), "CA ports");
            List<EndPort> endPorts = new ArrayList<>(ends);
            Set<Long> ports = new HashSet<>();
            int subnetLmc = -1;
            for (int i = 0; i < ends; i++) {
                long node = b.getLong();
                long port = b.getLong();
                int num = b.get() & 0xff;
                int lid = lid(b.getShort() & 0xffff, port);
                int lmc = withLmc ? b.get() & 0xff : 0;
                String name = name(b);
                if (!ports.add(port) || guids.contains(port)) {
                    throw new WireException("port GUID " + Guids.format(port) + " twice");
                }
                if (lmc > Fabric.MAX_LMC) {
                    throw new WireException("LMC " + lmc + " of port " + Guids.format(port) + " above " + Fabric.MAX_LMC);
                }
                if (lid != 0 && subnetLmc >= 0 && lmc != subnetLmc) {
                    throw new WireException("CA ports with LMC " + subnetLmc + " and " + lmc + " (port "
                            + Guids.format(port) + "): the daemon routes one LMC per subnet, as OpenSM gives every end"
                            + " port its lmc");
                }
                subnetLmc = lid != 0 ? lmc : subnetLmc;
                endPorts.add(new EndPort(node, port, num, lid, name, lmc));
            }
            if (b.hasRemaining()) {
                throw new WireException(b.remaining() + " bytes after the subnet");
            }
            return new Subnet(seq, held, List.copyOf(sws), List.copyOf(endPorts), Math.max(subnetLmc, 0));
        } catch (BufferUnderflowException e) {
            throw new WireException("subnet cut short");
        }
    }

    private static int count(int value, int most, String what) throws WireException {
        if (value < 0 || value > most) {
            throw new WireException(Integer.toUnsignedString(value) + " " + what + " cannot fit in the frame");
        }
        return value;
    }

    private static int lid(int lid, long guid) throws WireException {
        if (lid > LidPlan.MAX_UNICAST_LID) {
            throw new WireException("LID " + lid + " of " + Guids.format(guid) + " is not a unicast LID");
        }
        return lid;
    }

    private static String name(ByteBuffer b) throws WireException {
        int n = b.get() & 0xff;
        if (n > MAX_NAME_BYTES) {
            throw new WireException("a name of " + n + " bytes");
        }
        byte[] bytes = new byte[n];
        b.get(bytes);
        try {
            char[] text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString().toCharArray();
            for (int i = 0; i < text.length; i++) {
                if (Character.isISOControl(text[i])) {
                    text[i] = '?'; // thousands of names per subnet: no regular expression per name
                }
            }
            return new String(text);
        } catch (CharacterCodingException e) {
            throw new WireException("a name that is not UTF-8");
        }
    }

    /** Decodes an EVENT payload. */
    public static Event event(ByteBuffer b) throws WireException {
        if (b.remaining() != EVENT_BYTES) {
            throw new WireException("event of " + b.remaining() + " bytes");
        }
        return new Event(b.getInt(), b.getLong(), b.getLong());
    }

    /** Decodes a CHANNEL payload. */
    public static Keepalive channel(ByteBuffer b) throws WireException {
        if (b.remaining() != CHANNEL_BYTES) {
            throw new WireException("channel frame of " + b.remaining() + " bytes");
        }
        return new Keepalive(b.getLong(), b.getLong(), b.getInt(), b.getInt(), b.getInt(), b.get() & 0xff);
    }

    /** Decodes a SET payload, refusing a count the frame cannot hold, a GUID twice or bytes left over. */
    public static TablesSet tablesSet(ByteBuffer b) throws WireException {
        try {
            long seq = b.getLong();
            int switches = b.getInt();
            int held = count(b.getInt(), b.remaining() / 8, "switches set");
            if (switches < held) {
                throw new WireException(held + " switches set of " + Integer.toUnsignedString(switches));
            }
            Set<Long> guids = new HashSet<>(held * 2);
            for (int i = 0; i < held; i++) {
                long guid = b.getLong();
                if (!guids.add(guid)) {
                    throw new WireException("switch " + Guids.format(guid) + " set twice");
                }
            }
            if (b.hasRemaining()) {
                throw new WireException(b.remaining() + " bytes after the switches set");
            }
            return new TablesSet(seq, switches, Set.copyOf(guids));
        } catch (BufferUnderflowException e) {
            throw new WireException("set frame cut short");
        }
    }

    /**
     * One COUNTERS frame: each record's changes since OpenSM's previous reading of that port, in the order of
     * {@link PortCounter#ALL}.
     *
     * @param guids   each record's node GUID
     * @param ports   each record's port
     * @param changes {@link PortCounter#ALL} values per record, record after record
     * @param dropped records the plug-in dropped so far (the daemon away, or too many waiting)
     */
    public record CounterChanges(long[] guids, int[] ports, long[] changes, long dropped) {
    }

    /** Decodes a COUNTERS payload, refusing a count the frame cannot hold or bytes left over. */
    public static CounterChanges counters(ByteBuffer b) throws WireException {
        try {
            int n = count(b.getInt(), b.remaining() / COUNTER_RECORD_BYTES, "counter records");
            long dropped = b.getLong();
            if (b.remaining() != n * COUNTER_RECORD_BYTES) {
                throw new WireException(b.remaining() + " bytes for " + n + " counter records");
            }
            int fields = PortCounter.ALL.length;
            long[] guids = new long[n];
            int[] ports = new int[n];
            long[] changes = new long[n * fields];
            for (int i = 0; i < n; i++) {
                guids[i] = b.getLong();
                ports[i] = b.get() & 0xff;
                for (int f = 0; f < fields; f++) {
                    changes[i * fields + f] = b.getLong();
                }
            }
            return new CounterChanges(guids, ports, changes, dropped);
        } catch (BufferUnderflowException e) {
            throw new WireException("counters frame cut short");
        }
    }

    /** A REFUSED's fixed part: sequence, code. */
    public static final int REFUSED_HEAD = 8 + 2;
    /** The longest reason a REFUSED carries (cut there, possibly inside a character: the plug-in only logs it). */
    public static final int MAX_REASON_BYTES = 1000;

    /** The REROUTE frame: the plug-in asks OpenSM for a routing pass. */
    public static ByteBuffer reroute(long request) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + 8);
        header(b, REROUTE, 8);
        return b.putLong(request).flip();
    }

    /** The TABLES frame, answer {@code answer}: {@code rows[i]} (LIDs 0..entries - 1) for switch {@code guids[i]}. */
    static ByteBuffer tables(long seq, long answer, long[] guids, byte[][] rows, int entries) {
        int payload = 22 + guids.length * (8 + entries);
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + payload);
        header(b, TABLES, payload);
        b.putLong(seq).putLong(answer).putInt(guids.length).putShort((short) entries);
        for (int i = 0; i < guids.length; i++) {
            b.putLong(guids[i]).put(rows[i], 0, entries);
        }
        return b.flip();
    }

    /** One switch's entries that differ from the base: LIDs and their new ports, in ascending LID order. */
    public record SwitchChanges(long guid, int[] lids, byte[] ports) {
    }

    /**
     * The DELTA frame, answer {@code answer}: the tables of answer {@code base} (which the plug-in holds, for the same
     * {@code switches} switches), each row cut or filled with 255 to {@code entries}, with {@code changes} applied.
     */
    static ByteBuffer delta(long seq, long answer, long base, int switches, int entries,
                                   List<SwitchChanges> changes) {
        int payload = DELTA_HEAD;
        for (SwitchChanges c : changes) {
            payload += 8 + 2 + 3 * c.lids().length;
        }
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + payload);
        header(b, DELTA, payload);
        b.putLong(seq).putLong(answer).putLong(base).putInt(switches).putShort((short) entries).putInt(changes.size());
        for (SwitchChanges c : changes) {
            b.putLong(c.guid()).putShort((short) c.lids().length);
            for (int i = 0; i < c.lids().length; i++) {
                b.putShort((short) c.lids()[i]).put(c.ports()[i]);
            }
        }
        return b.flip();
    }

    /** The size of a DELTA frame with {@code switches} changed switches and {@code entries} changed entries. */
    public static long deltaBytes(int switches, long entries) {
        return HEADER_BYTES + DELTA_HEAD + 10L * switches + 3 * entries;
    }

    /** The REFUSED frame: OpenSM falls back to its next engine, the plug-in acts on {@code why} and logs {@code reason}. */
    static ByteBuffer refused(long seq, Refusal why, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_REASON_BYTES);
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + REFUSED_HEAD + n);
        header(b, REFUSED, REFUSED_HEAD + n);
        b.putLong(seq).putShort((short) why.code()).put(text, 0, n);
        return b.flip();
    }

    private static void header(ByteBuffer b, int type, int payload) {
        b.putInt(MAGIC).put((byte) VERSION).put((byte) type).putShort((short) 0).putInt(payload);
    }
}
