package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.LongIntMap;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;

/**
 * Turns the port reports of the connected switches into a {@link Fabric}. A switch-to-switch link is
 * taken only when both ends are connected and up and each names the other (GUID and port); a node
 * link is taken from the leaf's report, and a node two ports claim goes to neither. Every claim
 * that is not taken becomes a {@link LinkIssue}. Nodes without a destination index get the lowest free
 * indices in topological order (the map is updated).
 */
public final class TopologyBuilder {
    private TopologyBuilder() {
    }

    /** The discovered fabric, the claims that were not taken, and how many nodes got a new index. */
    public record Result(Fabric fabric, List<LinkIssue> issues, int newIndices) {
        public Result {
            issues = List.copyOf(issues);
        }
    }

    /** The fabric's switch for {@code s}'s reports: its agent's name, or one made of its GUID when it has none. */
    static FabricSwitch fabricSwitch(SwitchPorts s) {
        String name = s.name() == null || s.name().isBlank() ? "switch-" + Guids.format(s.guid()) : s.name();
        return new FabricSwitch(s.guid(), name, s.portCount());
    }

    private record NodeClaim(long guid, String name, long leaf, int port) {
    }

    /**
     * Builds the fabric of {@code switches}.
     *
     * @param expected the expected PGFT recorded in the fabric, or {@code null}
     */
    public static Result build(Collection<SwitchPorts> switches, DestinationIndexMap indices, PgftSpec expected,
                               NodeOrdering ordering) {
        List<SwitchPorts> sorted = new ArrayList<>(switches);
        sorted.sort((x, y) -> Long.compareUnsigned(x.guid(), y.guid()));
        LongIntMap positions = new LongIntMap(sorted.size());
        List<FabricSwitch> fabricSwitches = new ArrayList<>(sorted.size());
        for (SwitchPorts s : sorted) {
            positions.putIfAbsent(s.guid(), fabricSwitches.size());
            fabricSwitches.add(fabricSwitch(s));
        }
        List<Link> links = new ArrayList<>();
        List<LinkIssue> issues = new ArrayList<>();
        Map<Long, NodeClaim> nodeClaims = new LinkedHashMap<>();
        Set<Long> contested = new LinkedHashSet<>();
        LongFunction<SwitchPorts> byGuid = guid -> {
            int i = positions.get(guid);
            return i == LongIntMap.ABSENT ? null : sorted.get(i);
        };
        for (SwitchPorts s : sorted) {
            for (int p = 1; p <= s.portCount(); p++) {
                PortRecord r = s.port(p);
                if (!r.isUp()) {
                    continue;
                }
                if (r.peerKind() == PortRecord.PeerKind.SWITCH) {
                    switchClaim(s, p, r, byGuid, links, issues);
                } else if (r.peerKind() == PortRecord.PeerKind.NODE) {
                    PortRef at = new PortRef(s.guid(), p);
                    if (positions.containsKey(r.peerGuid())) {
                        issues.add(new LinkIssue(LinkIssue.Kind.NODE_CONFLICT, at, "claims node " + Guids.format(r.peerGuid())
                                + ", which is a connected switch"));
                        continue;
                    }
                    NodeClaim first = nodeClaims.get(r.peerGuid());
                    if (first != null) {
                        // two ports claim one node: a forged or miscabled report must not steal a node's
                        // attachment, so neither gets it and both are reported
                        issues.add(new LinkIssue(LinkIssue.Kind.NODE_CONFLICT, at, "claims node " + Guids.format(r.peerGuid())
                                + ", also claimed at " + new PortRef(first.leaf(), first.port()) + ": neither gets it"));
                        contested.add(r.peerGuid());
                        continue;
                    }
                    nodeClaims.put(r.peerGuid(), new NodeClaim(r.peerGuid(), nodeName(r), s.guid(), p));
                }
            }
        }
        for (long node : contested) {
            NodeClaim first = nodeClaims.remove(node);
            issues.add(new LinkIssue(LinkIssue.Kind.NODE_CONFLICT, new PortRef(first.leaf(), first.port()), "claims node "
                    + Guids.format(node) + ", also claimed by another port: neither gets it"));
        }
        for (NodeClaim c : nodeClaims.values()) {
            links.add(new Link(c.leaf(), c.port(), c.guid(), 1));
        }
        int assigned = 0;
        boolean missing = false;
        for (NodeClaim c : nodeClaims.values()) {
            missing |= !indices.contains(c.guid());
        }
        if (missing) {
            Fabric provisional = new Fabric(expected, fabricSwitches, nodes(nodeClaims.values(), indices, true), links);
            assigned = indices.assign(ordering.order(provisional));
        }
        Fabric fabric = new Fabric(expected, fabricSwitches, nodes(nodeClaims.values(), indices, false), links);
        return new Result(fabric, issues, assigned);
    }

    private static void switchClaim(SwitchPorts s, int p, PortRecord r, LongFunction<SwitchPorts> byGuid,
                                    List<Link> links, List<LinkIssue> issues) {
        SwitchPorts peer = byGuid.apply(r.peerGuid());
        if (peer == null) {
            issues.add(new LinkIssue(LinkIssue.Kind.PEER_NOT_CONNECTED, new PortRef(s.guid(), p), claim(r)
                    + ", which is not connected"));
            return;
        }
        if (r.peerPort() < 1 || r.peerPort() > peer.portCount()) {
            issues.add(new LinkIssue(LinkIssue.Kind.PEER_PORT_INVALID, new PortRef(s.guid(), p), claim(r)
                    + ", but that switch has " + peer.portCount() + " ports"));
            return;
        }
        PortRecord back = peer.port(r.peerPort());
        if (back.isUp() && back.peerKind() == PortRecord.PeerKind.SWITCH && back.peerGuid() == s.guid()
                && back.peerPort() == p) {
            boolean first = Long.compareUnsigned(s.guid(), peer.guid()) < 0 || (s.guid() == peer.guid() && p < r.peerPort());
            if (first) {
                links.add(new Link(s.guid(), p, peer.guid(), r.peerPort()));
            }
            return;
        }
        issues.add(new LinkIssue(LinkIssue.Kind.CONTRADICTED, new PortRef(s.guid(), p), claim(r) + ", which reports "
                + back));
    }

    /** The name of the node port record {@code r} claims: the one it reports, or one made of its GUID. */
    static String nodeName(PortRecord r) {
        return r.peerName().isBlank() ? "node-" + Guids.format(r.peerGuid()) : r.peerName();
    }

    private static String claim(PortRecord r) {
        return "claims " + Guids.format(r.peerGuid()) + ":" + r.peerPort();
    }

    private static List<EndNode> nodes(Collection<NodeClaim> claims, DestinationIndexMap indices, boolean provisional) {
        List<EndNode> nodes = new ArrayList<>(claims.size());
        int next = 0;
        for (NodeClaim c : claims) {
            next = Math.max(next, indices.indexOf(c.guid()) + 1);
        }
        for (NodeClaim c : claims) {
            int index = indices.indexOf(c.guid());
            if (index < 0) {
                if (!provisional) {
                    throw new IllegalStateException("node " + Guids.format(c.guid()) + " has no destination index");
                }
                index = next++;
            }
            nodes.add(new EndNode(c.guid(), c.name(), index));
        }
        return nodes;
    }
}
