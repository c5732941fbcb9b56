package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/**
 * The fabric after a change, derived from the fabric before it instead of rebuilt from every report:
 * only the ports of the switches whose reports changed, and the switches that left, are looked at, with
 * {@link TopologyBuilder}'s rules (a switch link when both ends are up and name each other, a node link from
 * the leaf's report), and the switches that joined with all their ports. What the rules cannot decide locally gives
 * up ({@code null}) and the caller builds from scratch: a node new to the daemon (its index is assigned in
 * topological order) or one that two ports claim. A fault
 * among 5,120 switches then costs the control thread the changed ports and one copy of the link list.
 */
final class FabricDelta {
    private FabricDelta() {
    }

    /** What discovery knows of end nodes beyond the reports of the changed switches. */
    interface Nodes {
        /** Up ports of admitted switches that claim node {@code guid} (two or more: none gets it). */
        int claims(long guid);

        /** Node {@code guid}'s stored destination index, or a negative number when it has none yet. */
        int index(long guid);
    }

    /**
     * The fabric of the reports now, given {@code before} (built from the reports as they were) and what
     * changed since: the switches whose reports changed ({@code dirty}, still admitted), those that left, and those
     * admitted since ({@code joined}). A switch that comes back (a spine or a leaf after a reboot) joins with the
     * links both ends claim; one that left and came back since {@code before} needs a build. A node link that appears
     * brings its node back when {@code nodes} says it has a destination index already and this one claim; otherwise
     * (a new node, two claims) a build decides.
     *
     * @return the new fabric, or {@code null} when the change needs a build from scratch
     */
    static Fabric apply(Fabric before, Set<Long> dirty, Set<Long> left, Set<Long> joined, PortReports reports,
                        UnaryOperator<SwitchPorts> mask, Nodes nodes) {
        FabricIndex index = before.index();
        Set<Long> removedSwitches = new HashSet<>();
        Set<Long> removedNodes = new HashSet<>();
        for (long guid : left) {
            int s = index.switchId(guid);
            if (s == FabricIndex.NONE) {
                continue;
            }
            removedSwitches.add(guid);
            for (int node : index.peerNodes(s)) {
                if (node != FabricIndex.NONE) {
                    removedNodes.add(index.nodeGuid(node));
                }
            }
        }
        Set<Link> removed = new HashSet<>();
        Set<Link> added = new HashSet<>();
        List<FabricSwitch> addedSwitches = new ArrayList<>(joined.size());
        List<EndNode> addedNodes = new ArrayList<>();
        for (long guid : joined) {
            SwitchPorts ports = reports.admittedPorts(guid);
            if (left.contains(guid) || index.switchId(guid) != FabricIndex.NONE || ports == null) {
                return null;
            }
            ports = mask.apply(ports);
            addedSwitches.add(TopologyBuilder.fabricSwitch(ports));
            for (int p = 1; p <= ports.portCount(); p++) {
                Link now = claim(guid, p, ports.port(p), reports, mask, removedSwitches);
                if (now != null && !take(before, joined, now, ports.port(p), nodes, added, addedNodes)) {
                    return null;
                }
            }
        }
        for (long guid : dirty) {
            if (joined.contains(guid)) {
                continue; // all its ports were taken above
            }
            int s = index.switchId(guid);
            SwitchPorts ports = reports.admittedPorts(guid);
            if (s == FabricIndex.NONE || ports == null) {
                return null;
            }
            ports = mask.apply(ports);
            for (int p = 1; p <= ports.portCount(); p++) {
                Link now = claim(guid, p, ports.port(p), reports, mask, removedSwitches);
                Link was = current(index, s, p);
                if (now == null ? was == null : was != null && now.normalized().equals(was.normalized())) {
                    continue;
                }
                if (was != null) {
                    removed.add(was.normalized());
                    if (before.isNode(was.b())) {
                        // a node exists only through its leaf's claim: without it, it leaves the fabric
                        removedNodes.add(was.b());
                    }
                }
                if (now != null && !take(before, joined, now, ports.port(p), nodes, added, addedNodes)) {
                    return null;
                }
            }
        }
        for (Link l : added) {
            if (removedNodes.contains(l.a()) || removedNodes.contains(l.b())) {
                return null;
            }
        }
        return before.withChanges(removedSwitches, removedNodes, removed, addedSwitches, addedNodes,
                new ArrayList<>(added));
    }

    /**
     * Adds link {@code now}, claimed by {@code r}, and the node it brings into the fabric if it ends at one: a node
     * that was there before, with the destination index it keeps, claimed by this port alone.
     *
     * @return false when a build must place that node (a node new to the daemon takes its index in topological
     *         order, two claims leave it out, one still in the fabric moves)
     */
    private static boolean take(Fabric before, Set<Long> joined, Link now, PortRecord r, Nodes nodes, Set<Link> added,
                                List<EndNode> addedNodes) {
        long guid = now.b();
        if (!before.isSwitch(guid) && !joined.contains(guid)) {
            int index = nodes.index(guid);
            if (index < 0 || nodes.claims(guid) != 1 || before.isNode(guid)) {
                return false;
            }
            addedNodes.add(new EndNode(guid, TopologyBuilder.nodeName(r), index));
        }
        added.add(now.normalized());
        return true;
    }

    /** The link {@link TopologyBuilder} takes at {@code guid}'s port {@code p} from the reports now, or null. */
    private static Link claim(long guid, int p, PortRecord r, PortReports reports, UnaryOperator<SwitchPorts> mask,
                              Set<Long> removedSwitches) {
        if (!r.isUp()) {
            return null;
        }
        if (r.peerKind() == PortRecord.PeerKind.NODE) {
            return reports.admittedPorts(r.peerGuid()) != null ? null : new Link(guid, p, r.peerGuid(), 1);
        }
        if (r.peerKind() != PortRecord.PeerKind.SWITCH || removedSwitches.contains(r.peerGuid())) {
            return null;
        }
        SwitchPorts peer = reports.admittedPorts(r.peerGuid());
        if (peer == null || r.peerPort() < 1 || r.peerPort() > peer.portCount()) {
            return null;
        }
        PortRecord back = mask.apply(peer).port(r.peerPort());
        boolean mutual = back.isUp() && back.peerKind() == PortRecord.PeerKind.SWITCH && back.peerGuid() == guid
                && back.peerPort() == p;
        return mutual ? new Link(guid, p, r.peerGuid(), r.peerPort()) : null;
    }

    /** The link at switch id {@code s}'s port {@code p} in the fabric before, or null. */
    private static Link current(FabricIndex index, int s, int p) {
        if (p > index.switchPorts(s)) {
            return null;
        }
        int peerSwitch = index.peerSwitches(s)[p];
        if (peerSwitch != FabricIndex.NONE) {
            return new Link(index.switchGuid(s), p, index.switchGuid(peerSwitch), index.peerPorts(s)[p]);
        }
        int node = index.peerNodes(s)[p];
        return node == FabricIndex.NONE ? null : new Link(index.switchGuid(s), p, index.nodeGuid(node), 1);
    }
}
