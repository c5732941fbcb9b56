package org.fabricmanager.agent;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.DetectorMember;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.ProtocolException;

/**
 * Collects the chunks of one DETECTOR_CONFIG epoch ({@code docs/protocol.md}, section 3.9): chunks
 * must agree on the ring's parameters; a chunk of another epoch discards a partly received one; the
 * ring is complete when every member 0..n-1 has arrived. A configuration's chunks belong to one
 * session: the agent resets the assembler when a new session starts, since a session cut in the
 * middle of a configuration leaves a partial epoch the daemon will resend differently (the same
 * epoch with start mode JOIN to a member that reconnects).
 */
final class DetectorConfigAssembler {
    private DetectorConfig first;
    private DetectorMember[] members;
    private int received;

    /** Forgets a partly received configuration (a new session starts). */
    void reset() {
        first = null;
        members = null;
        received = 0;
    }

    /**
     * Adds one chunk.
     *
     * @return the complete ring when this chunk completed it
     * @throws ProtocolException MALFORMED when the chunk disagrees with earlier chunks of its epoch
     */
    Optional<RingAssignment> add(DetectorConfig chunk) {
        if (first == null || first.epoch() != chunk.epoch()) {
            first = chunk;
            members = new DetectorMember[chunk.memberCount()];
            received = 0;
        } else if (chunk.etaMs() != first.etaMs() || chunk.deltaMs() != first.deltaMs()
                || chunk.pauseMs() != first.pauseMs() || chunk.startMode() != first.startMode()
                || chunk.overlay() != first.overlay() || chunk.transport() != first.transport()
                || chunk.memberCount() != first.memberCount() || chunk.selfIndex() != first.selfIndex()
                || !MessageDigest.isEqual(chunk.ringKey(), first.ringKey())) {
            throw new ProtocolException(ErrorCode.MALFORMED, MessageType.DETECTOR_CONFIG.code(), chunk.txid(),
                    "DETECTOR_CONFIG: chunk of epoch " + chunk.epoch() + " disagrees with the epoch's first chunk");
        }
        List<DetectorMember> list = chunk.members();
        for (int i = 0; i < list.size(); i++) {
            int at = chunk.chunkStart() + i;
            if (members[at] == null) {
                received++;
            }
            members[at] = list.get(i);
        }
        if (received < members.length) {
            return Optional.empty();
        }
        List<Message.DetectorPeer> peers = new ArrayList<>(members.length);
        for (int i = 0; i < members.length; i++) {
            peers.add(new Message.DetectorPeer(i, members[i].guid(), members[i].incarnation(), members[i].address(),
                    members[i].port()));
        }
        RingAssignment ring = new RingAssignment(first.epoch(),
                new RingAssignment.Parameters(first.etaMs(), first.deltaMs(), first.pauseMs(), first.overlay(),
                        first.transport(), first.startMode()),
                new RingAssignment.Membership(members.length, first.selfIndex(), peers, false, 0), first.ringKey());
        first = null;
        members = null;
        return Optional.of(ring);
    }
}
