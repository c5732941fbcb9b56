package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/**
 * The cables a drain hides from routing although they are present and up, taken from the reports when a snapshot is
 * taken (control thread), and put back into that snapshot's fabric for its check against the expected shape (off it).
 * The verdict is about the cabling: a drained cable that is there is not missing, and a miswired one stays miswired;
 * a drained cable that is down, or a drained switch that is not connected, is missing as any other.
 *
 * @param links    the hidden cables, between switches or to end nodes
 * @param nodes    the end nodes at the far end of hidden cables, by GUID (a node without a destination index yet has
 *                 one above every index in use: the fabric they join is checked, never routed)
 * @param switches the drained switches that are connected
 * @param cables   the drained cables as named (not those of drained switches) that are present and up
 */
record DrainedParts(List<Link> links, Map<Long, EndNode> nodes, List<Long> switches, List<Link> cables) {
    static final DrainedParts NONE = new DrainedParts(List.of(), Map.of(), List.of(), List.of());

    DrainedParts {
        links = List.copyOf(links);
        nodes = Map.copyOf(nodes);
        switches = List.copyOf(switches);
        cables = List.copyOf(cables);
    }

    /** A fabric with the drained parts put back, and how many drained switches and cables it holds. */
    record Restored(Fabric fabric, int switches, int cables) {
    }

    /**
     * What {@code elements} hide of the admitted switches' {@code reports} as {@code quarantine} leaves them (a
     * quarantined port stays down: that is a fault, not a drain).
     */
    static DrainedParts of(Collection<PortRef> elements, PortReports reports, UnaryOperator<SwitchPorts> quarantine,
                           DestinationIndexMap indices) {
        if (elements.isEmpty()) {
            return NONE;
        }
        Set<Link> links = new LinkedHashSet<>();
        Map<Long, EndNode> nodes = new LinkedHashMap<>();
        List<Long> switches = new ArrayList<>();
        List<Link> cables = new ArrayList<>();
        int unindexed = indices.highestIndex() + 1;
        for (PortRef e : elements) {
            SwitchPorts reported = reports.admittedPorts(e.guid());
            if (reported == null) {
                continue; // not in the fabric: missing, whatever the drain
            }
            SwitchPorts seen = quarantine.apply(reported);
            int from = e.port() == 0 ? 1 : e.port();
            int to = e.port() == 0 ? seen.portCount() : Math.min(e.port(), seen.portCount());
            if (e.port() == 0) {
                switches.add(e.guid());
            }
            for (int p = from; p <= to; p++) {
                Link l = hidden(seen, p, reports, quarantine);
                if (l == null) {
                    continue;
                }
                links.add(l);
                if (e.port() > 0) {
                    cables.add(l);
                }
                PortRecord r = seen.port(p);
                if (r.peerKind() == PortRecord.PeerKind.NODE && !nodes.containsKey(r.peerGuid())) {
                    int index = indices.indexOf(r.peerGuid());
                    nodes.put(r.peerGuid(), new EndNode(r.peerGuid(), TopologyBuilder.nodeName(r),
                            index >= 0 ? index : unindexed++));
                }
            }
        }
        return new DrainedParts(new ArrayList<>(links), nodes, switches, cables);
    }

    /**
     * The cable at port {@code p} of {@code s} if it is up, to a node, or to an admitted switch whose port names it
     * back, as {@link TopologyBuilder} takes links (a node link with the switch first); else {@code null}.
     */
    private static Link hidden(SwitchPorts s, int p, PortReports reports, UnaryOperator<SwitchPorts> quarantine) {
        PortRecord r = s.port(p);
        if (!r.isUp()) {
            return null;
        }
        if (r.peerKind() == PortRecord.PeerKind.NODE) {
            return new Link(s.guid(), p, r.peerGuid(), 1);
        }
        SwitchPorts peer = r.peerKind() == PortRecord.PeerKind.SWITCH ? reports.admittedPorts(r.peerGuid()) : null;
        if (peer == null || r.peerPort() < 1 || r.peerPort() > peer.portCount()) {
            return null;
        }
        PortRecord back = quarantine.apply(peer).port(r.peerPort());
        boolean namesBack = back.isUp() && back.peerKind() == PortRecord.PeerKind.SWITCH && back.peerGuid() == s.guid()
                && back.peerPort() == p;
        return namesBack ? new Link(s.guid(), p, peer.guid(), r.peerPort()).normalized() : null;
    }

    /**
     * {@code routed} with the hidden cables put back, with their end nodes, where both ends are free in it: a switch
     * gone since the snapshot was taken, a port or node taken by another claim, keeps that cable out.
     */
    Restored restore(Fabric routed) {
        if (links.isEmpty()) {
            return new Restored(routed, (int) switches.stream().filter(routed::isSwitch).count(), 0);
        }
        FabricIndex index = routed.index();
        List<Link> added = new ArrayList<>();
        List<EndNode> addedNodes = new ArrayList<>();
        Set<Long> nodesUsed = new HashSet<>();
        for (Link l : links) {
            EndNode node = nodes.get(l.b());
            boolean toNode = node != null && !routed.isSwitch(l.b());
            if (!free(index, l.a(), l.aPort()) || (toNode ? routed.isNode(l.b()) || !nodesUsed.add(l.b())
                    : !free(index, l.b(), l.bPort()))) {
                continue;
            }
            added.add(l);
            if (toNode) {
                addedNodes.add(node);
            }
        }
        Fabric fabric = added.isEmpty() ? routed
                : routed.withChanges(Set.of(), Set.of(), List.of(), List.of(), addedNodes, added);
        Set<Link> in = new HashSet<>(added);
        return new Restored(fabric, (int) switches.stream().filter(routed::isSwitch).count(),
                (int) cables.stream().filter(in::contains).count());
    }

    /** Port {@code port} of switch {@code guid} is in the fabric, and no link uses it. */
    private static boolean free(FabricIndex index, long guid, int port) {
        int s = index.switchId(guid);
        return s != FabricIndex.NONE && port <= index.switchPorts(s) && index.peerSwitches(s)[port] == FabricIndex.NONE
                && index.peerNodes(s)[port] == FabricIndex.NONE;
    }
}
