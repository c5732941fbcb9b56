package org.fabricmanager.detector.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.message.DetectorEvent.LinkDown;
import org.fabricmanager.detector.message.DetectorEvent.LinkUp;
import org.fabricmanager.detector.message.DetectorEvent.MemberFailed;
import org.fabricmanager.detector.message.DetectorEvent.MemberRejoined;
import org.fabricmanager.detector.message.Heartbeat;
import org.fabricmanager.detector.message.Join;
import org.fabricmanager.detector.message.LinkStatus;
import org.fabricmanager.detector.message.MemberStatus;
import org.fabricmanager.detector.message.NewObserver;
import org.fabricmanager.detector.message.RingMessage;
import org.fabricmanager.detector.message.StateKind;
import org.fabricmanager.detector.message.StateSync;
import org.fabricmanager.detector.message.Suspicion;

/**
 * Encodes ring messages into datagrams and decodes them back, rejecting anything that is not exactly
 * a message of this ring. All integers are big-endian. Header (20 bytes):
 *
 * <pre>
 *   u16 magic 0x4644 ("FD") | u8 version 1 | u8 type | i32 ring fingerprint | i32 from | i64 from incarnation
 * </pre>
 *
 * Bodies: heartbeat {@code i64 digest}; NewObserver {@code u16 n, n x (i32 member, i64 incarnation)};
 * Join empty; state {@code u8 kind, i32 m, m x (i32 member, i64 incarnation, u8 dead), i32 l,
 * l x (i32 reporter, i64 incarnation, i32 port, i64 sequence, u8 down)}; broadcast {@code i32 source,
 * i64 source incarnation, i64 sequence, u8 cube, u8 tree, u8 event kind, i32 subject, i64 incarnation,
 * i32 port, i64 event sequence, u16 d, d x i32 dead member}.
 *
 * <p>A view too large for one datagram is split into several state messages (merging is idempotent
 * and order-free), each repeating the receiver's own entry so that a joiner decides on any of them.
 */
public final class MessageCodec {
    /**
     * Largest incarnation (and event sequence) accepted: views store an incarnation shifted left by one bit,
     * and a member may add one to it, so nothing near 2^63 may enter (a datagram carrying 2^63 - 1 once
     * overflowed a member's view and hid that member from the detector).
     */
    public static final long MAX_INCARNATION = 1L << 61;
    /** Largest datagram this codec writes; below the 65,507-byte UDP limit of IPv4. */
    public static final int MAX_DATAGRAM = 60_000;
    static final int MAGIC = 0x4644;
    static final int VERSION = 1;
    static final int HEADER = 20;
    static final int HEARTBEAT = 1;
    static final int NEW_OBSERVER = 2;
    static final int JOIN = 3;
    static final int STATE = 4;
    static final int BROADCAST = 5;
    static final int SUSPICION = 6;
    private static final int MEMBER_ENTRY = 13;
    private static final int LINK_ENTRY = 25;
    private static final int GAP_ENTRY = 12;
    private static final int BROADCAST_FIXED = 4 + 8 + 8 + 1 + 1 + 1 + 4 + 8 + 4 + 8 + 2;
    private static final int MAX_TREE = 31;

    private final int size;
    private final int fingerprint;

    /**
     * @param size        ring size n; member indices must be below it
     * @param fingerprint the ring's fingerprint; datagrams of another ring are rejected
     */
    public MessageCodec(int size, int fingerprint) {
        this.size = size;
        this.fingerprint = fingerprint;
    }

    // ------------------------------------------------------------------ encoding

    /**
     * Encodes {@code message} for member {@code receiver} into one datagram, or several for a large
     * view. The caller owns (and must write or release) the returned buffers.
     *
     * @throws IllegalArgumentException if the message cannot fit a datagram (a broadcast whose dead set
     *                                  exceeds about 15,000 members)
     */
    public List<ByteBuf> encode(RingMessage message, int receiver, ByteBufAllocator allocator) {
        return encode(message, receiver, allocator, 0);
    }

    /** As above, each buffer with room for {@code trailer} more bytes (a seal) without growing. */
    public List<ByteBuf> encode(RingMessage message, int receiver, ByteBufAllocator allocator, int trailer) {
        List<ByteBuf> out = new ArrayList<>(1);
        for (RingMessage part : fit(message, receiver)) {
            ByteBuf buf = allocator.buffer(encodedSize(part) + trailer);
            try {
                write(part, buf);
            } catch (RuntimeException e) {
                buf.release();
                out.forEach(ByteBuf::release);
                throw e;
            }
            out.add(buf);
        }
        return out;
    }

    /** The bytes {@code message} takes on the wire. */
    static int encodedSize(RingMessage message) {
        if (message instanceof Heartbeat) {
            return HEADER + 8;
        } else if (message instanceof NewObserver n) {
            return HEADER + 2 + GAP_ENTRY * n.gap().size();
        } else if (message instanceof Join) {
            return HEADER;
        } else if (message instanceof StateSync s) {
            return HEADER + 1 + 4 + MEMBER_ENTRY * s.members().size() + 4 + LINK_ENTRY * s.links().size();
        } else if (message instanceof BroadcastCopy b) {
            return HEADER + BROADCAST_FIXED + 4 * b.sourceDead().length;
        } else if (message instanceof Suspicion) {
            return HEADER + 1 + 4 + 8;
        }
        throw new IllegalArgumentException("unknown message " + message);
    }

    /** Splits a message that does not fit one datagram; only views and NewObserver gaps can be cut. */
    static List<RingMessage> fit(RingMessage message, int receiver) {
        if (encodedSize(message) <= MAX_DATAGRAM) {
            return List.of(message);
        }
        if (message instanceof NewObserver n) {
            // The gap only lets the emitter check staleness; the part nearest the emitter is kept, the
            // rest arrives by broadcast anyway.
            int keep = (MAX_DATAGRAM - HEADER - 2) / GAP_ENTRY;
            List<MemberStatus> gap = n.gap();
            return List.of(new NewObserver(n.from(), n.fromIncarnation(), gap.subList(gap.size() - keep, gap.size())));
        }
        if (message instanceof StateSync s) {
            return splitState(s, receiver);
        }
        throw new IllegalArgumentException("message does not fit a datagram (" + encodedSize(message) + " bytes): " + message);
    }

    private static List<RingMessage> splitState(StateSync s, int receiver) {
        MemberStatus own = null;
        for (MemberStatus m : s.members()) {
            if (m.member() == receiver) {
                own = m;
            }
        }
        int base = HEADER + 1 + 4 + 4 + (own != null ? MEMBER_ENTRY : 0);
        List<RingMessage> parts = new ArrayList<>();
        List<MemberStatus> members = new ArrayList<>();
        List<LinkStatus> links = new ArrayList<>();
        int bytes = base;
        for (MemberStatus m : s.members()) {
            if (m == own) {
                continue;
            }
            if (bytes + MEMBER_ENTRY > MAX_DATAGRAM) {
                parts.add(statePart(s, own, members, links));
                members = new ArrayList<>();
                bytes = base;
            }
            members.add(m);
            bytes += MEMBER_ENTRY;
        }
        for (LinkStatus l : s.links()) {
            if (bytes + LINK_ENTRY > MAX_DATAGRAM) {
                parts.add(statePart(s, own, members, links));
                members = new ArrayList<>();
                links = new ArrayList<>();
                bytes = base;
            }
            links.add(l);
            bytes += LINK_ENTRY;
        }
        parts.add(statePart(s, own, members, links));
        return parts;
    }

    private static StateSync statePart(StateSync s, MemberStatus own, List<MemberStatus> members, List<LinkStatus> links) {
        List<MemberStatus> all = new ArrayList<>(members.size() + 1);
        if (own != null) {
            all.add(own);
        }
        all.addAll(members);
        return new StateSync(s.from(), s.fromIncarnation(), s.kind(), all, links);
    }

    private void write(RingMessage message, ByteBuf buf) {
        buf.writeShort(MAGIC).writeByte(VERSION).writeByte(type(message)).writeInt(fingerprint)
                .writeInt(message.from()).writeLong(message.fromIncarnation());
        if (message instanceof Heartbeat h) {
            buf.writeLong(h.digest());
        } else if (message instanceof NewObserver n) {
            buf.writeShort(n.gap().size());
            for (MemberStatus g : n.gap()) {
                buf.writeInt(g.member()).writeLong(g.incarnation());
            }
        } else if (message instanceof StateSync s) {
            buf.writeByte(s.kind().ordinal());
            buf.writeInt(s.members().size());
            for (MemberStatus m : s.members()) {
                buf.writeInt(m.member()).writeLong(m.incarnation()).writeByte(m.dead() ? 1 : 0);
            }
            buf.writeInt(s.links().size());
            for (LinkStatus l : s.links()) {
                buf.writeInt(l.reporter()).writeLong(l.reporterIncarnation()).writeInt(l.port())
                        .writeLong(l.sequence()).writeByte(l.down() ? 1 : 0);
            }
        } else if (message instanceof BroadcastCopy b) {
            if (b.sourceDead().length > 0xFFFF) {
                throw new IllegalArgumentException("broadcast dead set of " + b.sourceDead().length + " members does not fit");
            }
            buf.writeInt(b.source()).writeLong(b.sourceIncarnation()).writeLong(b.sequence())
                    .writeByte(b.cube()).writeByte(b.tree());
            writeEvent(b.event(), buf);
            buf.writeShort(b.sourceDead().length);
            for (int d : b.sourceDead()) {
                buf.writeInt(d);
            }
        } else if (message instanceof Suspicion s) {
            buf.writeByte(s.kind().ordinal()).writeInt(s.member()).writeLong(s.incarnation());
        }
    }

    private static void writeEvent(DetectorEvent event, ByteBuf buf) {
        if (event instanceof MemberFailed f) {
            buf.writeByte(1).writeInt(f.member()).writeLong(f.incarnation()).writeInt(0).writeLong(0);
        } else if (event instanceof MemberRejoined r) {
            buf.writeByte(2).writeInt(r.member()).writeLong(r.incarnation()).writeInt(0).writeLong(0);
        } else if (event instanceof LinkDown d) {
            buf.writeByte(3).writeInt(d.reporter()).writeLong(d.reporterIncarnation()).writeInt(d.port()).writeLong(d.sequence());
        } else if (event instanceof LinkUp u) {
            buf.writeByte(4).writeInt(u.reporter()).writeLong(u.reporterIncarnation()).writeInt(u.port()).writeLong(u.sequence());
        }
    }

    private static int type(RingMessage message) {
        if (message instanceof Heartbeat) {
            return HEARTBEAT;
        } else if (message instanceof NewObserver) {
            return NEW_OBSERVER;
        } else if (message instanceof Join) {
            return JOIN;
        } else if (message instanceof StateSync) {
            return STATE;
        } else if (message instanceof Suspicion) {
            return SUSPICION;
        }
        return BROADCAST;
    }

    // ------------------------------------------------------------------ decoding

    /**
     * Decodes one datagram. Never throws anything but {@link MalformedMessageException}, whatever the
     * bytes; does not release {@code buf}.
     */
    public RingMessage decode(ByteBuf buf) throws MalformedMessageException {
        Reader r = new Reader(buf);
        int magic = r.u16("magic");
        if (magic != MAGIC) {
            throw new MalformedMessageException(String.format("bad magic 0x%04x (not a detector datagram)", magic));
        }
        int version = r.u8("version");
        if (version != VERSION) {
            throw new MalformedMessageException("unsupported version " + version + " (this member speaks " + VERSION + ")");
        }
        int type = r.u8("type");
        int ring = r.i32("fingerprint");
        if (ring != fingerprint) {
            throw new MalformedMessageException(String.format(
                    "ring fingerprint %08x differs from this ring's %08x (different member list or overlay?)", ring, fingerprint));
        }
        int from = member(r, "sender");
        long fromIncarnation = incarnation(r, "sender incarnation");
        RingMessage message = switch (type) {
            case HEARTBEAT -> new Heartbeat(from, fromIncarnation, r.i64("digest"));
            case NEW_OBSERVER -> readNewObserver(r, from, fromIncarnation);
            case JOIN -> new Join(from, fromIncarnation);
            case STATE -> readState(r, from, fromIncarnation);
            case BROADCAST -> readBroadcast(r, from, fromIncarnation);
            case SUSPICION -> readSuspicion(r, from, fromIncarnation);
            default -> throw new MalformedMessageException("unknown message type " + type);
        };
        if (buf.isReadable()) {
            throw new MalformedMessageException(buf.readableBytes() + " trailing byte(s) after a message of type " + type);
        }
        return message;
    }

    private Suspicion readSuspicion(Reader r, int from, long fromIncarnation) throws MalformedMessageException {
        int kindCode = r.u8("suspicion kind");
        Suspicion.Kind[] kinds = Suspicion.Kind.values();
        if (kindCode >= kinds.length) {
            throw new MalformedMessageException("unknown suspicion kind " + kindCode);
        }
        return new Suspicion(from, fromIncarnation, kinds[kindCode], member(r, "suspected member"),
                incarnation(r, "suspected incarnation"));
    }

    private NewObserver readNewObserver(Reader r, int from, long fromIncarnation) throws MalformedMessageException {
        int count = r.count(r.u16("gap count"), GAP_ENTRY, "gap");
        List<MemberStatus> gap = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            gap.add(new MemberStatus(member(r, "gap member"), incarnation(r, "gap incarnation"), true));
        }
        return new NewObserver(from, fromIncarnation, gap);
    }

    private StateSync readState(Reader r, int from, long fromIncarnation) throws MalformedMessageException {
        int kindCode = r.u8("state kind");
        StateKind[] kinds = StateKind.values();
        if (kindCode >= kinds.length) {
            throw new MalformedMessageException("unknown state kind " + kindCode);
        }
        int memberCount = r.count(r.i32("member count"), MEMBER_ENTRY, "member");
        List<MemberStatus> members = new ArrayList<>(memberCount);
        for (int i = 0; i < memberCount; i++) {
            members.add(new MemberStatus(member(r, "member"), incarnation(r, "member incarnation"), flag(r, "dead flag")));
        }
        int linkCount = r.count(r.i32("link count"), LINK_ENTRY, "link");
        List<LinkStatus> links = new ArrayList<>(linkCount);
        for (int i = 0; i < linkCount; i++) {
            links.add(new LinkStatus(member(r, "link reporter"), incarnation(r, "reporter incarnation"),
                    port(r), sequence(r, "link sequence"), flag(r, "down flag")));
        }
        return new StateSync(from, fromIncarnation, kinds[kindCode], members, links);
    }

    private BroadcastCopy readBroadcast(Reader r, int from, long fromIncarnation) throws MalformedMessageException {
        int source = member(r, "broadcast source");
        long sourceIncarnation = incarnation(r, "source incarnation");
        long sequence = sequence(r, "broadcast sequence");
        int cube = r.u8("cube");
        int tree = r.u8("tree");
        if (cube > 1 || tree > MAX_TREE) {
            throw new MalformedMessageException("impossible cube " + cube + " / tree " + tree);
        }
        int kind = r.u8("event kind");
        int subject = member(r, "event subject");
        long incarnation = incarnation(r, "event incarnation");
        int port = r.i32("port");
        long eventSequence = r.i64("event sequence");
        DetectorEvent event = switch (kind) {
            case 1 -> new MemberFailed(subject, incarnation);
            case 2 -> new MemberRejoined(subject, incarnation);
            case 3, 4 -> {
                if (port < 0 || eventSequence < 0) {
                    throw new MalformedMessageException("negative port " + port + " or sequence " + eventSequence);
                }
                yield kind == 3 ? new LinkDown(subject, incarnation, port, eventSequence)
                        : new LinkUp(subject, incarnation, port, eventSequence);
            }
            default -> throw new MalformedMessageException("unknown event kind " + kind);
        };
        int deadCount = r.count(r.u16("dead count"), 4, "dead member");
        int[] dead = new int[deadCount];
        for (int i = 0; i < deadCount; i++) {
            dead[i] = member(r, "dead member");
            if (i > 0 && dead[i] <= dead[i - 1]) {
                throw new MalformedMessageException("dead set not strictly ascending at " + dead[i]);
            }
            if (dead[i] == source) {
                throw new MalformedMessageException("broadcast source " + source + " is in its own dead set");
            }
        }
        return new BroadcastCopy(from, fromIncarnation, source, sourceIncarnation, sequence, cube, tree, dead, event);
    }

    private int member(Reader r, String what) throws MalformedMessageException {
        int m = r.i32(what);
        if (m < 0 || m >= size) {
            throw new MalformedMessageException(what + " " + m + " is not a member (ring of " + size + ")");
        }
        return m;
    }

    private static long incarnation(Reader r, String what) throws MalformedMessageException {
        long v = r.i64(what);
        if (v < 0 || v > MAX_INCARNATION) {
            throw new MalformedMessageException(what + " " + v + " is outside 0.." + MAX_INCARNATION);
        }
        return v;
    }

    private static long sequence(Reader r, String what) throws MalformedMessageException {
        return incarnation(r, what);
    }

    private static int port(Reader r) throws MalformedMessageException {
        int p = r.i32("port");
        if (p < 0) {
            throw new MalformedMessageException("port is negative: " + p);
        }
        return p;
    }

    private static boolean flag(Reader r, String what) throws MalformedMessageException {
        int v = r.u8(what);
        if (v > 1) {
            throw new MalformedMessageException(what + " must be 0 or 1, got " + v);
        }
        return v == 1;
    }

    /** Bounds-checked reads that name the field that is missing. */
    private static final class Reader {
        private final ByteBuf buf;

        Reader(ByteBuf buf) {
            this.buf = buf;
        }

        private void need(int bytes, String what) throws MalformedMessageException {
            if (buf.readableBytes() < bytes) {
                throw new MalformedMessageException("truncated: " + what + " needs " + bytes + " byte(s), "
                        + buf.readableBytes() + " left");
            }
        }

        int u8(String what) throws MalformedMessageException {
            need(1, what);
            return buf.readUnsignedByte();
        }

        int u16(String what) throws MalformedMessageException {
            need(2, what);
            return buf.readUnsignedShort();
        }

        int i32(String what) throws MalformedMessageException {
            need(4, what);
            return buf.readInt();
        }

        long i64(String what) throws MalformedMessageException {
            need(8, what);
            return buf.readLong();
        }

        /** Checks a count against the bytes left before anything is allocated for it. */
        int count(int count, int entryBytes, String what) throws MalformedMessageException {
            if (count < 0 || (long) count * entryBytes > buf.readableBytes()) {
                throw new MalformedMessageException(what + " count " + count + " does not fit the "
                        + buf.readableBytes() + " byte(s) left");
            }
            return count;
        }
    }
}
