package org.fabricmanager.agent;

import java.util.List;
import org.fabricmanager.southbound.Message;

/**
 * A complete failure-detector configuration received in DETECTOR_CONFIG chunks: the ring in order,
 * this agent's position in it, the periods and the broadcast overlay.
 */
public record DetectorRing(long epoch, int etaMs, int deltaMs, Message.Overlay overlay, Message.Transport transport,
                           int selfIndex, List<Message.DetectorMember> members) {
    public DetectorRing {
        members = List.copyOf(members);
    }
}
