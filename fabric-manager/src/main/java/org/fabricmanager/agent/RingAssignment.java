package org.fabricmanager.agent;

import java.util.List;
import org.fabricmanager.southbound.Message;

/**
 * A complete failure-detector configuration: the ring's size, this agent's position in it, the members
 * it was told about (every member when it came as DETECTOR_CONFIG chunks; its ring window when it came as
 * one DETECTOR_WINDOW, the others being asked for on demand), the periods, the broadcast overlay and the
 * epoch's key that seals the ring's datagrams.
 *
 * @param members     the members named, ascending by index
 * @param window      true when {@code members} is only the agent's window (addresses of others are looked up)
 * @param fingerprint the ring's fingerprint as the daemon computed it (a window cannot compute it); ignored
 *                    for a whole ring, which computes its own
 * @param deadAtStart members the member starts with in its dead set (ring slots of switches that have not
 *                    connected yet), ascending; empty when every member starts alive
 */
public record RingAssignment(long epoch, int etaMs, int deltaMs, int pauseMs, Message.Overlay overlay,
                             Message.Transport transport, Message.StartMode startMode, int memberCount, int selfIndex,
                             List<Message.DetectorPeer> members, boolean window, int fingerprint, byte[] ringKey,
                             int[] deadAtStart) {
    public RingAssignment {
        members = List.copyOf(members);
        ringKey = ringKey.clone();
        deadAtStart = deadAtStart.clone();
    }

    /** An assignment in which every member starts alive. */
    public RingAssignment(long epoch, int etaMs, int deltaMs, int pauseMs, Message.Overlay overlay,
                          Message.Transport transport, Message.StartMode startMode, int memberCount, int selfIndex,
                          List<Message.DetectorPeer> members, boolean window, int fingerprint, byte[] ringKey) {
        this(epoch, etaMs, deltaMs, pauseMs, overlay, transport, startMode, memberCount, selfIndex, members, window,
                fingerprint, ringKey, new int[0]);
    }

    /** The assignment a DETECTOR_WINDOW carries. */
    static RingAssignment of(Message.DetectorWindow w) {
        return new RingAssignment(w.epoch(), w.etaMs(), w.deltaMs(), w.pauseMs(), w.overlay(), w.transport(),
                w.startMode(), w.memberCount(), w.selfIndex(), w.members(), true, w.fingerprint(), w.ringKey(),
                w.deadAtStart());
    }

    @Override
    public byte[] ringKey() {
        return ringKey.clone();
    }

    @Override
    public int[] deadAtStart() {
        return deadAtStart.clone();
    }

    @Override
    public String toString() {
        // never the key
        return "RingAssignment[epoch=" + epoch + ", n=" + memberCount + ", self=" + selfIndex + ", " + members.size()
                + (window ? " members of its window]" : " members]");
    }
}
