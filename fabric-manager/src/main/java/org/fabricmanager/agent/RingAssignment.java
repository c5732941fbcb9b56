package org.fabricmanager.agent;

import java.util.List;
import org.fabricmanager.southbound.Message;

/**
 * A complete failure-detector configuration received in DETECTOR_CONFIG chunks: the ring in order,
 * this agent's position in it, the periods, the broadcast overlay and the epoch's key that seals the
 * ring's datagrams.
 */
public record RingAssignment(long epoch, int etaMs, int deltaMs, int pauseMs, Message.Overlay overlay,
                           Message.Transport transport, Message.StartMode startMode, int selfIndex,
                           List<Message.DetectorMember> members, byte[] ringKey) {
    public RingAssignment {
        members = List.copyOf(members);
        ringKey = ringKey.clone();
    }

    @Override
    public byte[] ringKey() {
        return ringKey.clone();
    }
}
