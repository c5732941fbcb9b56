package org.fabricmanager.daemon.discovery;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongPredicate;
import org.fabricmanager.southbound.PortRecord;

/**
 * Counts, as reports arrive, what a discovery of the admitted switches would find: switch-to-switch
 * links confirmed by both ends (up, each naming the other's GUID and port) and ports that report an end
 * node. Each report costs O(1), so discovery can tell when the expected fabric is complete without
 * rebuilding the fabric on every report; the build then confirms it. Self-cabled ports are not counted. It also
 * keeps which switches the admitted ones see up at the other end of a cable, connected or not.
 */
final class LinkLedger {
    private long confirmedSwitchLinks;
    private long nodePorts;
    /** Up ports that report each end node, by the node's GUID (absent: none). */
    private final Map<Long, Integer> nodeClaims = new HashMap<>();
    /** Up ports that report each switch at their other end, by that switch's GUID (absent: none). */
    private final Map<Long, Integer> switchClaims = new HashMap<>();

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
        if (switchClaim(owner, before)) {
            switchClaims.computeIfPresent(before.peerGuid(), (g, n) -> n == 1 ? null : n - 1);
        }
        if (switchClaim(owner, after)) {
            switchClaims.merge(after.peerGuid(), 1, Integer::sum);
        }
    }

    private static boolean switchClaim(SwitchPorts owner, PortRecord r) {
        return r.isUp() && r.peerKind() == PortRecord.PeerKind.SWITCH && r.peerGuid() != owner.guid();
    }

    /**
     * The switches that {@code among} accepts and that an admitted switch sees up at the other end of a cable, yet
     * are not admitted themselves: alive and cabled, their agents not connected (yet). One pass over the switches
     * seen, not over the ports.
     */
    int claimedAbsent(PortReports reports, LongPredicate among) {
        int absent = 0;
        for (long guid : switchClaims.keySet()) {
            if (reports.admittedPorts(guid) == null && among.test(guid)) {
                absent++;
            }
        }
        return absent;
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
