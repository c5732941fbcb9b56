package org.fabricmanager.topology;

import java.util.Arrays;
import java.util.List;

/**
 * Builds the {@link FabricIndex} of a whole {@link Fabric} in named steps: the switches in GUID order with
 * unconnected rows, the nodes in destination-index order, the links into the peer rows, then the port groups and
 * the leaf layout. {@link IndexDerivation} builds the same index from an older one when a fabric changes.
 */
final class FabricIndexBuilder {
    private FabricIndexBuilder() {
    }

    static FabricIndex build(Fabric fabric) {
        List<FabricSwitch> switchList = fabric.switches();
        int n = switchList.size();
        FabricSwitch[] sorted = switchList.toArray(new FabricSwitch[0]);
        Arrays.sort(sorted, (x, y) -> Long.compareUnsigned(x.guid(), y.guid()));
        SwitchTable switches = SwitchTable.ofSize(n);
        PeerRows peers = PeerRows.ofSize(n);
        for (int s = 0; s < n; s++) {
            peers.unconnectedRow(switches, s, sorted[s]);
        }
        NodeTable nodes = nodesInDestinationOrder(fabric.nodes(), fabric.lmc());
        connect(fabric.links(), switches, nodes, peers, 1 << fabric.lmc());
        PortGroups groups = PortGroups.of(switches.ports(), peers.peerSwitch());
        LeafLayout leaves = LeafLayout.of(n, nodes.leaf());
        return new FabricIndex(fabric, switches, nodes, peers, groups, leaves);
    }

    /**
     * The nodes by ascending destination index, none attached to a leaf yet. With an LMC, each node is 2^lmc
     * positions in a row, one per LID: destination {@code (index << lmc) | pathBits}, the node's GUID in each, and
     * the GUID's position that of its base LID.
     */
    private static NodeTable nodesInDestinationOrder(List<EndNode> endNodes, int lmc) {
        EndNode[] nodes = endNodes.toArray(new EndNode[0]);
        Arrays.sort(nodes, (x, y) -> Integer.compare(x.index(), y.index()));
        int lids = 1 << lmc;
        int nn = nodes.length * lids;
        long[] nodeGuid = new long[nn];
        int[] nodeIndex = new int[nn];
        int[] nodeLeaf = FabricIndex.filled(nn);
        int[] nodeLeafPort = FabricIndex.filled(nn);
        LongIntMap nodePosByGuid = new LongIntMap(nn);
        int maxIndex = -1;
        for (int i = 0; i < nn; i++) {
            EndNode node = nodes[i >> lmc];
            nodeGuid[i] = node.guid();
            nodeIndex[i] = node.index() << lmc | i & lids - 1;
            nodePosByGuid.putIfAbsent(nodeGuid[i], i);
            maxIndex = Math.max(maxIndex, nodeIndex[i]);
        }
        int destinationCount = maxIndex + 1;
        int[] nodeByDestination = FabricIndex.filled(destinationCount);
        for (int i = 0; i < nn; i++) {
            nodeByDestination[nodeIndex[i]] = i;
        }
        return new NodeTable(nodeGuid, nodeIndex, nodeLeaf, nodeLeafPort, nodePosByGuid, destinationCount,
                nodeByDestination);
    }

    /** Writes every link into the peer rows (switch to switch) or the node's leaf and port (switch to node). */
    private static void connect(List<Link> links, SwitchTable switches, NodeTable nodes, PeerRows peers, int lids) {
        LongIntMap switchIdByGuid = switches.idByGuid();
        int[][] peerSwitch = peers.peerSwitch();
        int[][] peerPort = peers.peerPort();
        for (Link l : links) {
            int sa = switchIdByGuid.get(l.a());
            int sb = switchIdByGuid.get(l.b());
            if (sa != FabricIndex.NONE && sb != FabricIndex.NONE) {
                peerSwitch[sa][l.aPort()] = sb;
                peerPort[sa][l.aPort()] = l.bPort();
                peerSwitch[sb][l.bPort()] = sa;
                peerPort[sb][l.bPort()] = l.aPort();
            } else if (sa != FabricIndex.NONE) {
                attachNode(nodes, peers, sa, l.aPort(), l.b(), lids);
            } else if (sb != FabricIndex.NONE) {
                attachNode(nodes, peers, sb, l.bPort(), l.a(), lids);
            }
            // node-to-node cables carry no route; recognition reports them
        }
    }

    /** Attaches the node's positions (one per LID) to port {@code port} of switch {@code s}; the port names the first. */
    private static void attachNode(NodeTable nodes, PeerRows peers, int s, int port, long node, int lids) {
        int pos = nodes.posByGuid().get(node);
        peers.peerNode()[s][port] = pos;
        for (int p = pos; p < pos + lids; p++) {
            nodes.leaf()[p] = s;
            nodes.leafPort()[p] = port;
        }
    }
}
