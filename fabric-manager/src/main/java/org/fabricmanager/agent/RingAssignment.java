package org.fabricmanager.agent;

import java.util.List;
import org.fabricmanager.southbound.Message;

/**
 * A complete failure-detector configuration received in DETECTOR_CONFIG chunks: the ring in order,
 * this agent's position in it, the periods and the broadcast overlay.
 */
public record RingAssignment(long epoch, int etaMs, int deltaMs, int pauseMs, Message.Overlay overlay,
                           Message.Transport transport, Message.StartMode startMode, int selfIndex,
                           List<Message.DetectorMember> members) {
    public RingAssignment {
        members = List.copyOf(members);
    }
}
