package org.fabricmanager.southbound;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.fabricmanager.topology.Guids;

/**
 * One southbound protocol message ({@code docs/protocol.md}). Every message carries the transaction
 * id of its frame: a request's own id, or for a reply the id of the request it answers.
 */
public sealed interface Message {

    /** The frame's transaction id. */
    int txid();

    /** The wire type. */
    MessageType type();

    /** HELLO: the agent introduces its switch and the table it holds. */
    record Hello(int txid, int minVersion, int maxVersion, long guid, long incarnation, int portCount, int maxFrame,
                 long tableVersion, int tableLength, long tableHash, String name, int features) implements Message {
        /** A HELLO without the appended {@code features} field (an agent that predates it). */
        public Hello(int txid, int minVersion, int maxVersion, long guid, long incarnation, int portCount, int maxFrame,
                     long tableVersion, int tableLength, long tableHash, String name) {
            this(txid, minVersion, maxVersion, guid, incarnation, portCount, maxFrame, tableVersion, tableLength,
                    tableHash, name, 0);
        }

        /** Whether the agent takes its ring as DETECTOR_WINDOW ({@link Protocol#FEATURE_DETECTOR_WINDOW}). */
        public boolean supportsDetectorWindow() {
            return (features & Protocol.FEATURE_DETECTOR_WINDOW) != 0;
        }

        /**
         * Whether the agent starts its ring member with the members its window names dead at start
         * ({@link Protocol#FEATURE_DETECTOR_SLOTS}, with a receive limit that fits the longest such list).
         */
        public boolean supportsDetectorSlots() {
            return (features & Protocol.FEATURE_DETECTOR_SLOTS) != 0 && supportsDetectorWindow()
                    && Integer.toUnsignedLong(maxFrame) >= Protocol.MIN_MAX_FRAME_DEAD_AT_START;
        }

        /** Whether the agent stages VC_RULES ({@link Protocol#FEATURE_VC_RULES}). */
        public boolean supportsVcRules() {
            return (features & Protocol.FEATURE_VC_RULES) != 0;
        }

        @Override
        public MessageType type() {
            return MessageType.HELLO;
        }

        @Override
        public String toString() {
            return "HELLO[txid=" + txid + ", versions " + minVersion + ".." + maxVersion + ", guid "
                    + Guids.format(guid) + " (" + name + "), " + portCount + " ports, table v" + tableVersion
                    + " len " + tableLength + " hash " + Long.toHexString(tableHash) + (features == 0 ? "" : ", features 0x"
                    + Integer.toHexString(features)) + "]";
        }
    }

    /** HELLO_REPLY: the negotiated version and the daemon's parameters. */
    record HelloReply(int txid, int version, long daemonId, int maxFrame, int echoIntervalMs, long managerTerm)
            implements Message {
        /** A reply without a manager term (outside a hot-standby group; the field is then not sent). */
        public HelloReply(int txid, int version, long daemonId, int maxFrame, int echoIntervalMs) {
            this(txid, version, daemonId, maxFrame, echoIntervalMs, 0);
        }

        @Override
        public MessageType type() {
            return MessageType.HELLO_REPLY;
        }
    }

    /** PORT_INFO: a full snapshot of the switch's ports, one record per port 1..portCount. */
    record PortInfo(int txid, List<PortRecord> ports) implements Message {
        public PortInfo {
            ports = List.copyOf(ports);
        }

        @Override
        public MessageType type() {
            return MessageType.PORT_INFO;
        }
    }

    /** PORT_STATUS: the ports that changed. */
    record PortStatus(int txid, List<PortRecord> ports) implements Message {
        public PortStatus {
            ports = List.copyOf(ports);
        }

        @Override
        public MessageType type() {
            return MessageType.PORT_STATUS;
        }
    }

    /** LFT_BLOCK: up to 64 entries from destination index {@code base}, staged for table {@code version}. */
    record LftBlock(int txid, long version, int base, byte[] entries) implements Message {
        /** Entries per block, as InfiniBand's LinearForwardingTable attribute. */
        public static final int SIZE = 64;

        @Override
        public MessageType type() {
            return MessageType.LFT_BLOCK;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LftBlock b && b.txid == txid && b.version == version && b.base == base
                    && Arrays.equals(b.entries, entries);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(version) * 31 + base) * 31 + Arrays.hashCode(entries);
        }

        @Override
        public String toString() {
            return "LFT_BLOCK[txid=" + txid + ", v" + version + ", base " + base + ", " + entries.length + " entries]";
        }
    }

    /**
     * LFT_BLOCKS: the consecutive blocks from destination index {@code base} (a multiple of 64), 64 entries each
     * except perhaps the last, staged for table {@code version} as if each had come in its own LFT_BLOCK.
     */
    record LftBlocks(int txid, long version, int base, byte[] entries) implements Message {
        /** Number of 64-entry blocks (the last may be shorter) these entries stage. */
        public int blockCount() {
            return (entries.length + LftBlock.SIZE - 1) / LftBlock.SIZE;
        }

        @Override
        public MessageType type() {
            return MessageType.LFT_BLOCKS;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LftBlocks b && b.txid == txid && b.version == version && b.base == base
                    && Arrays.equals(b.entries, entries);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(version) * 31 + base) * 31 + Arrays.hashCode(entries);
        }

        @Override
        public String toString() {
            return "LFT_BLOCKS[txid=" + txid + ", v" + version + ", base " + base + ", " + entries.length + " entries]";
        }
    }

    /**
     * LFT_COMMIT: apply the staged blocks of {@code version} atomically; the result must hash to {@code hash}.
     * A {@code rulesHash} other than 0 (an appended field) also applies the VC rules staged for this
     * version, or keeps the held ones, and the rules then held must hash to it. {@code managerTerm} (a second
     * appended field) is the sender's Raft term in a hot-standby group (0, and not sent, outside one).
     */
    record LftCommit(int txid, long version, int length, int blocks, long hash, long rulesHash, long managerTerm)
            implements Message {
        /** A commit with a rules hash and no manager term. */
        public LftCommit(int txid, long version, int length, int blocks, long hash, long rulesHash) {
            this(txid, version, length, blocks, hash, rulesHash, 0);
        }

        /** A commit without the appended fields: the agent's VC rules are left as they are. */
        public LftCommit(int txid, long version, int length, int blocks, long hash) {
            this(txid, version, length, blocks, hash, 0, 0);
        }

        @Override
        public MessageType type() {
            return MessageType.LFT_COMMIT;
        }
    }

    /** ACK of any request but LFT_COMMIT. */
    record Ack(int txid, MessageType ackedType) implements Message {
        public Ack {
            if (ackedType == MessageType.LFT_COMMIT) {
                throw new IllegalArgumentException("an LFT_COMMIT is acknowledged with CommitAck");
            }
        }

        @Override
        public MessageType type() {
            return MessageType.ACK;
        }
    }

    /** ACK of an LFT_COMMIT, with the table the agent now holds. */
    record CommitAck(int txid, long version, int length, long hash, long rulesHash) implements Message {
        /** The ACK of an agent without VC rules (no appended rules hash). */
        public CommitAck(int txid, long version, int length, long hash) {
            this(txid, version, length, hash, 0);
        }

        @Override
        public MessageType type() {
            return MessageType.ACK;
        }
    }

    /**
     * VC_RULES: the virtual-channel rules of table {@code version}, staged until its LFT_COMMIT.
     * {@code portClasses[p-1]} is the class of port {@code p} (0 other, 1 node, 2 leaf, 3 row, 4 column);
     * {@code transitions} holds (from class, to class, channel) byte triples.
     */
    record VcRuleSet(int txid, long version, int vcCount, byte[] portClasses, byte[] transitions) implements Message {
        @Override
        public MessageType type() {
            return MessageType.VC_RULES;
        }

        /** The hash LFT_COMMIT announces and its ACK reports for these rules. */
        public long rulesHash() {
            return TableHash.rules(vcCount, portClasses, transitions);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof VcRuleSet r && r.txid == txid && r.version == version && r.vcCount == vcCount
                    && Arrays.equals(r.portClasses, portClasses) && Arrays.equals(r.transitions, transitions);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(version) * 31 + Arrays.hashCode(portClasses) * 7 + Arrays.hashCode(transitions);
        }

        @Override
        public String toString() {
            return "VC_RULES[txid=" + txid + ", v" + version + ", " + vcCount + " vcs, " + portClasses.length
                    + " ports, " + transitions.length / 3 + " transitions]";
        }
    }

    /**
     * ERROR: a wire error code (see {@link ErrorCode}), the offending message type and a cause.
     *
     * @param redirect a standby's NOT_LEADER only: the active manager's address, sent as fields appended to the
     *                 ERROR for agents with {@link Protocol#FEATURE_REDIRECT_FIELDS}; {@code null} when absent (read
     *                 it with {@link #activeManager()})
     */
    record ErrorReport(int txid, int code, int refType, String message, InetSocketAddress redirect) implements Message {
        public ErrorReport {
            if (redirect != null && (code != ErrorCode.NOT_LEADER.code() || !ManagerAddress.validHost(redirect.getHostString())
                    || redirect.getPort() == 0)) {
                throw new IllegalArgumentException("a redirect to " + redirect + " in ERROR code " + code
                        + " (only NOT_LEADER names a host and a port above 0)");
            }
        }

        /** An ERROR without a redirect. */
        public ErrorReport(int txid, int code, int refType, String message) {
            this(txid, code, refType, message, null);
        }

        /**
         * Where a standby's NOT_LEADER sends the agent: the address of its fields, else (a standby that predates
         * them) the {@code HOST:PORT} of its text; empty for other errors, and when the standby knows no leader.
         */
        public Optional<InetSocketAddress> activeManager() {
            if (redirect != null) {
                return Optional.of(redirect);
            }
            return code == ErrorCode.NOT_LEADER.code() ? ManagerAddress.parse(message) : Optional.empty();
        }

        @Override
        public MessageType type() {
            return MessageType.ERROR;
        }

        /** The code if this version knows it. */
        public Optional<ErrorCode> errorCode() {
            return ErrorCode.fromCode(code);
        }

        /** Whether the session ends with this error (unknown codes count as fatal). */
        public boolean fatal() {
            return errorCode().map(ErrorCode::fatal).orElse(true);
        }

        @Override
        public String toString() {
            return "ERROR[txid=" + txid + ", " + errorCode().map(Enum::name).orElse("code " + code) + " on "
                    + (refType == 0 ? "-" : MessageType.describe(refType)) + ": " + message + "]";
        }
    }

    /** ECHO_REQUEST: keepalive; {@code timestamp} comes back unchanged in the reply. */
    record EchoRequest(int txid, long timestamp) implements Message {
        @Override
        public MessageType type() {
            return MessageType.ECHO_REQUEST;
        }
    }

    /**
     * DETECTOR_ENDPOINT: where the agent's failure-detector member receives datagrams. Sent by an agent with a
     * detector after its PORT_INFO, so that the ring does not depend on the address the TCP session comes
     * from (several agents behind one address: a simulator, a proxy agent, NAT).
     */
    record DetectorEndpoint(int txid, InetAddress address, int port) implements Message {
        public DetectorEndpoint {
            Objects.requireNonNull(address, "address");
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " outside 1..65535");
            }
        }

        @Override
        public MessageType type() {
            return MessageType.DETECTOR_ENDPOINT;
        }
    }

    /** ECHO_REPLY: answers an ECHO_REQUEST with its timestamp. */
    record EchoReply(int txid, long timestamp) implements Message {
        @Override
        public MessageType type() {
            return MessageType.ECHO_REPLY;
        }
    }

    /**
     * DETECTOR_CONFIG: one chunk of the failure-detector ring configuration.
     *
     * @param ringKey the epoch's 32-byte key that seals every detector datagram ({@code docs/detector.md})
     */
    record DetectorConfig(int txid, long epoch, int etaMs, int deltaMs, int pauseMs, Overlay overlay,
                          Transport transport, StartMode startMode, int memberCount, int selfIndex, int chunkStart,
                          List<DetectorMember> members, byte[] ringKey)
            implements Message {
        /** Bytes of a ring key. */
        public static final int KEY_BYTES = 32;

        public DetectorConfig {
            members = List.copyOf(members);
            if (ringKey == null || ringKey.length != KEY_BYTES) {
                throw new IllegalArgumentException("a ring key has " + KEY_BYTES + " bytes");
            }
            ringKey = ringKey.clone();
        }

        @Override
        public byte[] ringKey() {
            return ringKey.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof DetectorConfig d && d.txid == txid && d.epoch == epoch && d.etaMs == etaMs
                    && d.deltaMs == deltaMs && d.pauseMs == pauseMs && d.overlay == overlay && d.transport == transport
                    && d.startMode == startMode && d.memberCount == memberCount && d.selfIndex == selfIndex
                    && d.chunkStart == chunkStart && d.members.equals(members) && Arrays.equals(d.ringKey, ringKey);
        }

        @Override
        public int hashCode() {
            return Objects.hash(txid, epoch, chunkStart, members) * 31 + Arrays.hashCode(ringKey);
        }

        @Override
        public String toString() {
            // never the key: messages end up in logs
            return "DetectorConfig[txid=" + txid + ", epoch=" + epoch + ", eta=" + etaMs + "ms, delta=" + deltaMs
                    + "ms, n=" + memberCount + ", self=" + selfIndex + ", chunk " + chunkStart + "+" + members.size() + "]";
        }

        /** This chunk under another transaction id. */
        public DetectorConfig withTxid(int newTxid) {
            return new DetectorConfig(newTxid, epoch, etaMs, deltaMs, pauseMs, overlay, transport, startMode, memberCount,
                    selfIndex, chunkStart, members, ringKey);
        }

        @Override
        public MessageType type() {
            return MessageType.DETECTOR_CONFIG;
        }
    }

    /**
     * DETECTOR_WINDOW: an agent's whole failure-detector configuration in one frame, for agents with
     * {@link Protocol#FEATURE_DETECTOR_WINDOW}: the ring's epoch, fingerprint and heartbeats, the agent's seat in it,
     * and the members of its ring window (itself included), ascending by index. Other members' addresses are asked
     * for with {@link DetectorLookup}.
     *
     * @param fingerprint the ring's fingerprint, carried in every detector datagram
     * @param ringKey     the epoch's 32-byte key that seals every detector datagram ({@code docs/detector.md})
     */
    record DetectorWindow(int txid, long epoch, int fingerprint, RingHeartbeats heartbeats, RingSeat seat,
                          List<DetectorPeer> members, byte[] ringKey) implements Message {
        public DetectorWindow {
            Objects.requireNonNull(heartbeats, "heartbeats");
            Objects.requireNonNull(seat, "seat");
            members = List.copyOf(members);
            if (ringKey == null || ringKey.length != DetectorConfig.KEY_BYTES) {
                throw new IllegalArgumentException("a ring key has " + DetectorConfig.KEY_BYTES + " bytes");
            }
            ringKey = ringKey.clone();
        }

        @Override
        public byte[] ringKey() {
            return ringKey.clone();
        }

        public int etaMs() {
            return heartbeats.etaMs();
        }

        public int deltaMs() {
            return heartbeats.deltaMs();
        }

        public int pauseMs() {
            return heartbeats.pauseMs();
        }

        public Overlay overlay() {
            return heartbeats.overlay();
        }

        public Transport transport() {
            return heartbeats.transport();
        }

        public StartMode startMode() {
            return seat.startMode();
        }

        public int memberCount() {
            return seat.memberCount();
        }

        public int selfIndex() {
            return seat.selfIndex();
        }

        /** See {@link RingSeat#deadAtStart()}. */
        public int[] deadAtStart() {
            return seat.deadAtStart();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof DetectorWindow d && d.txid == txid && d.epoch == epoch && d.fingerprint == fingerprint
                    && d.heartbeats.equals(heartbeats) && d.seat.equals(seat) && d.members.equals(members)
                    && Arrays.equals(d.ringKey, ringKey);
        }

        @Override
        public int hashCode() {
            return Objects.hash(txid, epoch, seat.selfIndex(), members) * 31 + Arrays.hashCode(ringKey);
        }

        @Override
        public String toString() {
            // never the key: messages end up in logs
            int dead = seat.deadCount();
            return "DetectorWindow[txid=" + txid + ", epoch=" + epoch + ", eta=" + etaMs() + "ms, delta=" + deltaMs()
                    + "ms, n=" + memberCount() + ", self=" + selfIndex() + ", " + members.size() + " members"
                    + (dead == 0 ? "" : ", " + dead + " dead at start") + "]";
        }

        /** This configuration under another transaction id. */
        public DetectorWindow withTxid(int newTxid) {
            return new DetectorWindow(newTxid, epoch, fingerprint, heartbeats, seat, members, ringKey);
        }

        @Override
        public MessageType type() {
            return MessageType.DETECTOR_WINDOW;
        }
    }

    /**
     * DETECTOR_PEERS: members' addresses in ring epoch {@code epoch}, ascending by index: the answer to a
     * {@link DetectorLookup} (its txid), or unsolicited when a member the agent knows moved (a join).
     */
    record DetectorPeers(int txid, long epoch, List<DetectorPeer> members) implements Message {
        public DetectorPeers {
            members = List.copyOf(members);
        }

        @Override
        public MessageType type() {
            return MessageType.DETECTOR_PEERS;
        }
    }

    /** DETECTOR_LOOKUP: an agent asks for the addresses of ring members of {@code epoch} (distinct indices). */
    record DetectorLookup(int txid, long epoch, int[] members) implements Message {
        public DetectorLookup {
            members = members.clone();
        }

        @Override
        public int[] members() {
            return members.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof DetectorLookup l && l.txid == txid && l.epoch == epoch && Arrays.equals(l.members, members);
        }

        @Override
        public int hashCode() {
            return Objects.hash(txid, epoch) * 31 + Arrays.hashCode(members);
        }

        @Override
        public String toString() {
            return "DetectorLookup[txid=" + txid + ", epoch=" + epoch + ", " + Arrays.toString(members) + "]";
        }

        @Override
        public MessageType type() {
            return MessageType.DETECTOR_LOOKUP;
        }
    }

    /** One ring member by index: its GUID, incarnation and the address its detector listens on. */
    record DetectorPeer(int index, long guid, long incarnation, InetAddress address, int port) {
    }

    /** Broadcast overlay of the failure detector. */
    enum Overlay {
        HYPERCUBE(1), BMG(2);

        private final int code;

        Overlay(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /** How the agent's detector enters the ring: cold start of the whole ring, or joining a running one. */
    enum StartMode {
        BOOTSTRAP(1), JOIN(2);

        private final int code;

        StartMode(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /** Heartbeat transport of the failure detector. */
    enum Transport {
        UDP(1), TCP(2);

        private final int code;

        Transport(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /** PORT_COUNTERS_REQUEST: the daemon asks for the counters of ports {@code firstPort..lastPort} (section 3.17). */
    record CountersRequest(int txid, int firstPort, int lastPort) implements Message {
        @Override public MessageType type() { return MessageType.PORT_COUNTERS_REQUEST; }
    }

    /** PORT_COUNTERS: the answer to a {@link CountersRequest} (its txid), counters of consecutive ports. */
    record Counters(int txid, PortCounters counters) implements Message {
        @Override public MessageType type() { return MessageType.PORT_COUNTERS; }
    }

    /** One ring member: its GUID, incarnation and the address its detector listens on. */
    record DetectorMember(long guid, long incarnation, InetAddress address, int port) {
    }
}
