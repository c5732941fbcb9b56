package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;
import org.fabricmanager.topology.TopologyException;

/**
 * What drains hold out of a snapshot's fabric although it is there: the drained switches that are admitted, the cables
 * between switches that a drain masks while both ends report each other up, and the cables to end nodes that a drain
 * masks while the leaf reports them up, with their nodes. Taken from the reports on the control thread when a snapshot
 * is checked, so that the check ({@link ShapeCheck}) can put them back and count them as drained, not missing. A
 * drained element that is down or gone is not here: it is missing.
 *
 * @param switches drained switches that are admitted, by GUID, in the order drained
 * @param cables   drained cables that are up, switch to switch ({@link Link#normalized()}) or leaf to node (the node
 *                 as {@code b}, port 1)
 * @param nodes    the end nodes of the drained node cables, with their stored destination index (or a free one above
 *                 every stored index, for the check only)
 */
public record DrainedParts(Set<Long> switches, List<Link> cables, List<EndNode> nodes) {
    /** Nothing drained. */
    public static final DrainedParts NONE = new DrainedParts(Set.of(), List.of(), List.of());

    public DrainedParts {
        switches = Collections.unmodifiableSet(new LinkedHashSet<>(switches)); // in the order drained
        cables = List.copyOf(cables);
        nodes = List.copyOf(nodes);
    }

    /** True when nothing drained is present. */
    public boolean isEmpty() {
        return switches.isEmpty() && cables.isEmpty();
    }

    /**
     * The drained parts that are present and up.
     *
     * @param drained the drained elements (port 0: a whole switch), as named
     * @param reports the admitted switches' reports, as the switches gave them (no drain masked)
     * @param indices the stored destination indices
     */
    public static DrainedParts of(Collection<PortRef> drained, PortReports reports, DestinationIndexMap indices) {
        if (drained.isEmpty()) {
            return NONE;
        }
        Collector c = new Collector(reports, indices);
        for (PortRef e : drained) {
            SwitchPorts ports = reports.admittedPorts(e.guid());
            if (ports == null) {
                continue; // not in the fabric: missing, not drained
            }
            if (e.port() == 0) {
                c.switches.add(e.guid());
                for (int p = 1; p <= ports.portCount(); p++) {
                    c.cable(ports, p);
                }
            } else if (e.port() <= ports.portCount()) {
                c.cable(ports, e.port());
            }
        }
        return new DrainedParts(c.switches, new ArrayList<>(c.cables), c.nodes);
    }

    /**
     * {@code fabric} (a snapshot, drains masked) with the drained parts put back, and what was put back: the drained
     * switches of {@code fabric}, and the drained cables that join parts of it and use ports it leaves free, as an
     * operator reads them. The cables of a drained switch count with it, not as drained links.
     *
     * @param fabric   the fabric with the parts put back ({@code fabric} itself when nothing was)
     * @param switches the drained switches, {@code name 0x...}
     * @param links    the other drained cables, {@code 0x...:P - 0x...:Q}
     */
    public record Restored(Fabric fabric, List<String> switches, List<String> links) {
    }

    /**
     * Puts the parts back into {@code fabric}: what a check against the expected shape must see of the cabling.
     *
     * @throws TopologyException when a part does not fit the fabric after all (the check then sees it missing)
     */
    public Restored restore(Fabric fabric) {
        if (isEmpty()) {
            return new Restored(fabric, List.of(), List.of());
        }
        FabricIndex index = fabric.index();
        List<String> switchNames = new ArrayList<>();
        for (long guid : switches) {
            fabric.switchByGuid(guid).ifPresent(s -> switchNames.add(s.name() + " " + Guids.format(guid)));
        }
        List<Link> links = new ArrayList<>();
        List<EndNode> joining = new ArrayList<>();
        List<String> linkNames = new ArrayList<>();
        Set<Integer> taken = new HashSet<>();
        Map<Long, EndNode> nodeByGuid = new HashMap<>();
        nodes.forEach(n -> nodeByGuid.put(n.guid(), n));
        for (Link l : cables) {
            EndNode node = nodeByGuid.get(l.b()); // a node cable has its node as b; a cable between switches has none
            boolean fits = node == null ? free(index, l.a(), l.aPort()) && free(index, l.b(), l.bPort())
                    : free(index, l.a(), l.aPort()) && !fabric.isNode(node.guid()) && !fabric.isSwitch(node.guid())
                            && indexFree(index, node.index()) && taken.add(node.index());
            if (!fits) {
                continue; // the snapshot lacks an end or holds another link on its port: checked as the snapshot has it
            }
            links.add(l);
            if (node != null) {
                joining.add(node);
            }
            if (!switches.contains(l.a()) && !switches.contains(l.b())) {
                linkNames.add(Guids.format(l.a()) + ":" + l.aPort() + " - " + Guids.format(l.b()) + ":" + l.bPort());
            }
        }
        Fabric restored = links.isEmpty() ? fabric
                : fabric.withChanges(Set.of(), Set.of(), List.of(), List.of(), joining, links);
        return new Restored(restored, switchNames, linkNames);
    }

    /** Switch {@code guid} is in the fabric and its port {@code port} holds no link there. */
    private static boolean free(FabricIndex index, long guid, int port) {
        int s = index.switchId(guid);
        return s != FabricIndex.NONE && port >= 1 && port <= index.switchPorts(s)
                && index.peerSwitches(s)[port] == FabricIndex.NONE && index.peerNodes(s)[port] == FabricIndex.NONE;
    }

    private static boolean indexFree(FabricIndex index, int d) {
        return d >= index.destinationCount() || index.nodeByDestination(d) == FabricIndex.NONE;
    }

    /** Gathers the parts, each cable once whichever end was drained or named. */
    private static final class Collector {
        private final PortReports reports;
        private final DestinationIndexMap indices;
        private final Set<Long> switches = new LinkedHashSet<>();
        private final Set<Link> cables = new LinkedHashSet<>();
        private final List<EndNode> nodes = new ArrayList<>();
        private final Set<Long> nodeGuids = new HashSet<>();
        private int provisional;

        Collector(PortReports reports, DestinationIndexMap indices) {
            this.reports = reports;
            this.indices = indices;
            this.provisional = indices.highestIndex() + 1;
        }

        /** The cable at port {@code p} of {@code ports}, when it is up (at both ends, between switches). */
        void cable(SwitchPorts ports, int p) {
            PortRecord r = ports.port(p);
            if (!r.isUp()) {
                return;
            }
            if (r.peerKind() == PortRecord.PeerKind.SWITCH) {
                SwitchPorts peer = reports.admittedPorts(r.peerGuid());
                if (peer == null || r.peerPort() < 1 || r.peerPort() > peer.portCount()) {
                    return;
                }
                PortRecord back = peer.port(r.peerPort());
                if (back.isUp() && back.peerKind() == PortRecord.PeerKind.SWITCH && back.peerGuid() == ports.guid()
                        && back.peerPort() == p) {
                    cables.add(new Link(ports.guid(), p, peer.guid(), r.peerPort()).normalized());
                }
            } else if (r.peerKind() == PortRecord.PeerKind.NODE && nodeGuids.add(r.peerGuid())) {
                cables.add(new Link(ports.guid(), p, r.peerGuid(), 1));
                int index = indices.indexOf(r.peerGuid());
                nodes.add(new EndNode(r.peerGuid(), TopologyBuilder.nodeName(r), index >= 0 ? index : provisional++));
            }
        }
    }
}
