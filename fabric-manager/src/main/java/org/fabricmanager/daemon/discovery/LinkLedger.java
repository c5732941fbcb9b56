package org.fabricmanager.daemon.discovery;

import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.southbound.PortRecord;

/**
 * Counts, as reports arrive, what a discovery of the admitted switches would find: switch-to-switch
 * links confirmed by both ends (up, each naming the other's GUID and port) and ports that report an end
 * node. Each report costs O(1), so discovery can tell when the expected fabric is complete without
 * rebuilding the fabric on every report; the build then confirms it. Self-cabled ports are not counted.
 */
final class LinkLedger {
    private long confirmedSwitchLinks;
    private long nodePorts;
    /** Up ports that report each end node, by the node's GUID (absent: none). */
    private final Map<Long, Integer> nodeClaims = new HashMap<>();

    /**
     * Port {@code port} of admitted switch {@code owner} changes from {@code before} to {@code after}
     * (a switch being admitted: from down to each record; leaving: from each record to down).
     */
    void replace(SwitchPorts owner, PortRecord before, PortRecord after, PortReports reports) {
        if (confirmed(owner, before, reports)) {
            confirmedSwitchLinks--;
        }
        if (confirmed(owner, after, reports)) {
            confirmedSwitchLinks++;
        }
        if (before.isUp() && before.peerKind() == PortRecord.PeerKind.NODE) {
            nodePorts--;
            nodeClaims.computeIfPresent(before.peerGuid(), (g, n) -> n == 1 ? null : n - 1);
        }
        if (after.isUp() && after.peerKind() == PortRecord.PeerKind.NODE) {
            nodePorts++;
            nodeClaims.merge(after.peerGuid(), 1, Integer::sum);
        }
    }

    /** Up ports of admitted switches that report end node {@code guid} (a node with two claims is an anomaly). */
    int nodeClaims(long guid) {
        return nodeClaims.getOrDefault(guid, 0);
    }

    private static boolean confirmed(SwitchPorts owner, PortRecord r, PortReports reports) {
        if (!r.isUp() || r.peerKind() != PortRecord.PeerKind.SWITCH || r.peerGuid() == owner.guid()) {
            return false;
        }
        SwitchPorts peer = reports.admittedPorts(r.peerGuid());
        if (peer == null || r.peerPort() < 1 || r.peerPort() > peer.portCount()) {
            return false;
        }
        PortRecord back = peer.port(r.peerPort());
        return back.isUp() && back.peerKind() == PortRecord.PeerKind.SWITCH && back.peerGuid() == owner.guid()
                && back.peerPort() == r.port();
    }

    /** Links the admitted switches' reports describe: confirmed switch-to-switch links plus node ports. */
    long links() {
        return confirmedSwitchLinks + nodePorts;
    }

    long confirmedSwitchLinks() {
        return confirmedSwitchLinks;
    }

    long nodePorts() {
        return nodePorts;
    }
}
