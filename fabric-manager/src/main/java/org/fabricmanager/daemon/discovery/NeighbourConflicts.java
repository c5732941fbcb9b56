package org.fabricmanager.daemon.discovery;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PortRef;

/**
 * Finds port reports that contradict what the fabric already agrees on: a claim on a remote port that
 * is part of a confirmed link (both ends name each other) with someone else, or two ports of one
 * switch claiming the same remote port. Such a report is refused with NEIGHBOUR_CONFLICT and the
 * confirmed link is kept; a real re-cabling never trips this, because unplugging the cable takes the
 * old link down first.
 */
public final class NeighbourConflicts {
    private NeighbourConflicts() {
    }

    /**
     * The first conflict of {@code claims} reported by switch {@code guid}, if any.
     *
     * @param connected the reports of a connected switch by GUID, {@code null} for others (the reporting
     *                  switch's own entry is ignored); looked up only for the claims' peers, so the cost is
     *                  that of the claims, not of the fabric
     */
    public static Optional<String> find(long guid, List<PortRecord> claims, LongFunction<SwitchPorts> connected) {
        Map<PortRef, Integer> claimedBy = new HashMap<>();
        for (PortRecord r : claims) {
            if (!r.isUp() || r.peerKind() != PortRecord.PeerKind.SWITCH) {
                continue;
            }
            PortRef remote = new PortRef(r.peerGuid(), r.peerPort());
            Integer other = claimedBy.put(remote, r.port());
            if (other != null) {
                return Optional.of("ports " + other + " and " + r.port() + " of " + Guids.format(guid)
                        + " both claim " + remote);
            }
            SwitchPorts peer = connected.apply(r.peerGuid());
            if (peer == null || r.peerGuid() == guid || r.peerPort() > peer.portCount()) {
                continue;
            }
            PortRecord back = peer.port(r.peerPort());
            if (!back.isUp() || back.peerKind() != PortRecord.PeerKind.SWITCH || back.peerGuid() == guid) {
                continue;
            }
            SwitchPorts third = connected.apply(back.peerGuid());
            if (third == null || back.peerPort() > third.portCount() || back.peerGuid() == guid) {
                continue;
            }
            PortRecord confirm = third.port(back.peerPort());
            if (confirm.isUp() && confirm.peerKind() == PortRecord.PeerKind.SWITCH && confirm.peerGuid() == r.peerGuid()
                    && confirm.peerPort() == r.peerPort()) {
                return Optional.of("port " + r.port() + " of " + Guids.format(guid) + " claims " + remote
                        + ", which is cabled to " + new PortRef(back.peerGuid(), back.peerPort())
                        + " (both ends agree)");
            }
        }
        return Optional.empty();
    }
}
