package org.fabricmanager.southbound;

/** Constants of the southbound protocol ({@code docs/protocol.md}). */
public final class Protocol {
    /** HELLO's magic, {@code "FMSB"}. */
    public static final int MAGIC = 0x464D5342;
    /**
     * Lowest protocol version this implementation speaks. Version 2 authenticates every switch (mutual
     * TLS, HELLO bound to the certificate's GUID) and bounds incarnations by the clock; version 3 changes
     * the table hash ({@link TableHash}), which a version-2 agent would compute differently in every
     * HELLO and ACK, so an older agent is told {@code UNSUPPORTED_VERSION} and why.
     */
    public static final int MIN_VERSION = 3;
    /** Highest protocol version this implementation speaks. */
    public static final int MAX_VERSION = 3;
    /** Bytes of the length field that starts every frame. */
    public static final int LENGTH_FIELD_BYTES = 4;
    /** Bytes counted by {@code length} before the payload: type (1) and txid (4). */
    public static final int HEADER_BYTES = 5;
    /** Smallest receive limit a side may announce. */
    public static final int MIN_MAX_FRAME = 1024;
    /** Default receive limit. */
    public static final int DEFAULT_MAX_FRAME = 65_536;
    /** Largest receive limit a side may announce. */
    public static final int MAX_MAX_FRAME = 16 * 1024 * 1024;
    /** Largest forwarding table (entries). */
    public static final int MAX_TABLE_LENGTH = 1 << 24;
    /** Largest port number. */
    /** HELLO feature bit: the agent stages VC_RULES and checks the rules hash of LFT_COMMIT (section 3.11). */
    public static final int FEATURE_VC_RULES = 1;
    /**
     * HELLO feature bit: the agent takes its failure-detector ring as DETECTOR_WINDOW (its ring window only) and
     * asks for other members' addresses with DETECTOR_LOOKUP (sections 3.9, 3.12-3.14).
     */
    public static final int FEATURE_DETECTOR_WINDOW = 2;
    /** Members a DETECTOR_WINDOW or DETECTOR_PEERS may carry (a window of up to 64 on each side and the agent). */
    public static final int MAX_DETECTOR_PEERS = 129;
    /**
     * The daemon's member's index in every ring epoch (section 3.12): the first, before the switches in ring order. It
     * is the ring's witness: a member that begins suspecting its emitter tells it (a ring datagram, docs/detector.md).
     */
    public static final int DAEMON_RING_MEMBER = 0;
    /** Members one DETECTOR_LOOKUP may ask for. */
    public static final int MAX_LOOKUP_MEMBERS = 64;
    /**
     * HELLO feature bit: the agent stages LFT_BLOCKS, runs of consecutive blocks in one frame (section 3.15). A full
     * table of 65,536 entries is then 16 frames instead of 1,024: a quarter fewer bytes and a sixty-fourth of the
     * frames for both ends to handle.
     */
    public static final int FEATURE_LFT_RUNS = 1 << 2;
    /**
     * HELLO feature bit: the agent starts its ring member with the members a DETECTOR_WINDOW names as dead at start
     * (ring slots of switches that have not connected yet, section 3.12), so the daemon can give a switch that comes
     * late its slot in the running ring instead of starting a new epoch for every member. The daemon counts the bit
     * only from an agent whose {@code maxFrame} is at least {@link #MIN_MAX_FRAME_DEAD_AT_START}.
     */
    public static final int FEATURE_DETECTOR_SLOTS = 1 << 3;
    /**
     * HELLO feature bit: the agent reads a standby's redirect from the fields appended to ERROR NOT_LEADER (the
     * active manager's host and port, section 3.16); a standby appends them only for an agent that sets it, since an
     * older agent would refuse the longer ERROR as malformed.
     */
    public static final int FEATURE_REDIRECT_FIELDS = 1 << 4;
    /**
     * HELLO feature bit: the agent answers PORT_COUNTERS_REQUEST with its ports' traffic and error counters
     * (section 3.17); the daemon asks only agents that set it, so an agent without counters needs nothing new.
     */
    public static final int FEATURE_PORT_COUNTERS = 1 << 5;
    /** Longest host in a redirect's fields, in bytes: a DNS name or an IP address (IPv6 without brackets). */
    public static final int MAX_HOST_BYTES = 253;
    /** Most members a DETECTOR_WINDOW may name as dead at start (4 bytes each). */
    public static final int MAX_DEAD_AT_START = 1_024;
    /** The receive limit an agent needs for a DETECTOR_WINDOW with {@link #MAX_DEAD_AT_START} members dead at start. */
    public static final int MIN_MAX_FRAME_DEAD_AT_START = 16_384;
    /** Most entries in one LFT_BLOCKS frame: 64 blocks (a frame of 4,119 bytes). */
    public static final int MAX_RUN_ENTRIES = 64 * 64;
    /** Virtual channels a VC_RULES message may use (InfiniBand has data VLs 0..14). */
    public static final int MAX_VCS = 15;
    /** Port classes VC_RULES knows: 0 other, 1 node, 2 leaf, 3 row, 4 column. */
    public static final int PORT_CLASSES = 5;
    public static final int MAX_PORTS = 254;
    /** Longest switch or neighbour description, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 64;
    /** Longest ERROR message, in UTF-8 bytes. */
    public static final int MAX_ERROR_BYTES = 1024;
    /** LFT entry meaning "no route". */
    public static final int NO_ROUTE = 255;

    /** Default of how far ahead of the daemon's clock an incarnation may lie (one day). */
    public static final long DEFAULT_INCARNATION_AHEAD_MS = 86_400_000L;

    private Protocol() {
    }

    /**
     * The largest incarnation (unsigned) the daemon accepts at wall-clock time {@code nowMillis}: an
     * agent's incarnation is its start time in microseconds since the epoch (or one above its previous
     * one), so nothing legitimate lies more than {@code aheadMs} (clock skew) in the future.
     */
    public static long incarnationLimit(long nowMillis, long aheadMs) {
        return (nowMillis + aheadMs) * 1000L;
    }

    /** The next request id after {@code txid}: 1, 2, ... wrapping past 2^32-1 back to 1, never 0. */
    public static int nextTxid(int txid) {
        int next = txid + 1;
        return next == 0 ? 1 : next;
    }
}
