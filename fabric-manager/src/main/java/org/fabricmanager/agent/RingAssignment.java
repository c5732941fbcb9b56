package org.fabricmanager.agent;

import java.util.List;
import org.fabricmanager.southbound.Message;

/**
 * A complete failure-detector configuration: the ring's size, this agent's position in it, the members
 * it was told about (every member when it came as DETECTOR_CONFIG chunks; its ring window when it came as
 * one DETECTOR_WINDOW, the others being asked for on demand), the periods, the broadcast overlay and the
 * epoch's key that seals the ring's datagrams. Built from two groups (how the ring runs, who is in it) so
 * that no constructor takes a dozen positional numbers; read flat through the accessors below.
 *
 * @param parameters how the ring runs: its periods, overlay, transport and start mode
 * @param membership the ring's size, this member's place and the members named
 */
public record RingAssignment(long epoch, Parameters parameters, Membership membership, byte[] ringKey) {
    public RingAssignment {
        ringKey = ringKey.clone();
    }

    /**
     * How a ring runs: the detector's periods (heartbeat {@code etaMs}, suspicion {@code deltaMs}, the pause
     * between broadcasts {@code pauseMs}), the broadcast overlay, the datagram transport and whether members
     * bootstrap together or one joins a running ring.
     */
    public record Parameters(int etaMs, int deltaMs, int pauseMs, Message.Overlay overlay,
                             Message.Transport transport, Message.StartMode startMode) {
    }

    /**
     * Who is in a ring: its size, this member's index, and the members named.
     *
     * @param members     the members named, ascending by index
     * @param window      true when {@code members} is only the agent's window (addresses of others are looked up)
     * @param fingerprint the ring's fingerprint as the daemon computed it (a window cannot compute it); ignored
     *                    for a whole ring, which computes its own
     * @param deadAtStart members the member starts with in its dead set (ring slots of switches that have not
     *                    connected yet), ascending; empty when every member starts alive
     */
    public record Membership(int memberCount, int selfIndex, List<Message.DetectorPeer> members, boolean window,
                             int fingerprint, int[] deadAtStart) {
        public Membership {
            members = List.copyOf(members);
            deadAtStart = deadAtStart.clone();
        }

        /** A membership in which every member starts alive. */
        public Membership(int memberCount, int selfIndex, List<Message.DetectorPeer> members, boolean window,
                          int fingerprint) {
            this(memberCount, selfIndex, members, window, fingerprint, new int[0]);
        }

        @Override
        public int[] deadAtStart() {
            return deadAtStart.clone();
        }
    }

    /** The assignment a DETECTOR_WINDOW carries. */
    static RingAssignment of(Message.DetectorWindow w) {
        return new RingAssignment(w.epoch(),
                new Parameters(w.etaMs(), w.deltaMs(), w.pauseMs(), w.overlay(), w.transport(), w.startMode()),
                new Membership(w.memberCount(), w.selfIndex(), w.members(), true, w.fingerprint(), w.deadAtStart()),
                w.ringKey());
    }

    @Override
    public byte[] ringKey() {
        return ringKey.clone();
    }

    public int etaMs() {
        return parameters.etaMs();
    }

    public int deltaMs() {
        return parameters.deltaMs();
    }

    public int pauseMs() {
        return parameters.pauseMs();
    }

    public Message.Overlay overlay() {
        return parameters.overlay();
    }

    public Message.Transport transport() {
        return parameters.transport();
    }

    public Message.StartMode startMode() {
        return parameters.startMode();
    }

    public int memberCount() {
        return membership.memberCount();
    }

    public int selfIndex() {
        return membership.selfIndex();
    }

    /** The members named, ascending by index. */
    public List<Message.DetectorPeer> members() {
        return membership.members();
    }

    /** Whether {@link #members} is only the agent's window. */
    public boolean window() {
        return membership.window();
    }

    public int fingerprint() {
        return membership.fingerprint();
    }

    public int[] deadAtStart() {
        return membership.deadAtStart();
    }

    @Override
    public String toString() {
        // never the key
        return "RingAssignment[epoch=" + epoch + ", n=" + memberCount() + ", self=" + selfIndex() + ", "
                + members().size() + (window() ? " members of its window]" : " members]");
    }
}
