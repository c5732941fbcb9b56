package org.fabricmanager.topology;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The indexed, read-only view of a {@link Fabric} that algorithms work on. Switches get dense ids
 * {@code 0..switchCount()-1} in ascending (unsigned) GUID order; nodes get dense positions in
 * ascending destination-index order. Adjacency and port groups are primitive arrays.
 *
 * <p>Port groups follow {@code docs/formats.md}: the ports of a switch that reach the same
 * neighbour switch form a group; groups are ordered by the neighbour's GUID (so by neighbour id)
 * and ports inside a group by port number. Links from a switch to itself are not grouped.
 *
 * <p>Arrays returned by accessors are the index's own storage, shared for speed: callers must not
 * modify them.
 */
public final class FabricIndex {
    /** Marker for "no switch", "no node" or "no port" in the arrays. */
    public static final int NONE = -1;

    private final Fabric fabric;
    private final long[] switchGuid;
    private final int[] switchPorts;
    private final LongIntMap switchIdByGuid;

    private final long[] nodeGuid;
    private final int[] nodeIndex;
    private final int[] nodeLeaf;
    private final int[] nodeLeafPort;
    private final LongIntMap nodePosByGuid;
    private final int destinationCount;
    private final int[] nodeByDestination;

    private final int[][] peerSwitch;
    private final int[][] peerPort;
    private final int[][] peerNode;

    private final int[] groupStart;
    private final int[] groupNeighbour;
    private final int[] groupPortStart;
    private final int[] groupPorts;

    private final int[] leaves;
    private final int[] leafNumber;
    private final int[] leafNodeStart;
    private final int[] leafNodes;

    FabricIndex(Fabric fabric) {
        this.fabric = fabric;
        List<FabricSwitch> switches = fabric.switches();
        int n = switches.size();
        FabricSwitch[] sorted = switches.toArray(new FabricSwitch[0]);
        Arrays.sort(sorted, (x, y) -> Long.compareUnsigned(x.guid(), y.guid()));
        switchGuid = new long[n];
        switchPorts = new int[n];
        switchIdByGuid = new LongIntMap(n);
        peerSwitch = new int[n][];
        peerPort = new int[n][];
        peerNode = new int[n][];
        for (int s = 0; s < n; s++) {
            unconnectedRow(s, sorted[s]);
        }

        EndNode[] nodes = fabric.nodes().toArray(new EndNode[0]);
        Arrays.sort(nodes, (x, y) -> Integer.compare(x.index(), y.index()));
        int nn = nodes.length;
        nodeGuid = new long[nn];
        nodeIndex = new int[nn];
        nodeLeaf = filled(nn);
        nodeLeafPort = filled(nn);
        nodePosByGuid = new LongIntMap(nn);
        int maxIndex = -1;
        for (int i = 0; i < nn; i++) {
            nodeGuid[i] = nodes[i].guid();
            nodeIndex[i] = nodes[i].index();
            nodePosByGuid.putIfAbsent(nodeGuid[i], i);
            maxIndex = Math.max(maxIndex, nodeIndex[i]);
        }
        destinationCount = maxIndex + 1;
        nodeByDestination = filled(destinationCount);
        for (int i = 0; i < nn; i++) {
            nodeByDestination[nodeIndex[i]] = i;
        }

        for (Link l : fabric.links()) {
            int sa = switchIdByGuid.get(l.a());
            int sb = switchIdByGuid.get(l.b());
            if (sa != NONE && sb != NONE) {
                peerSwitch[sa][l.aPort()] = sb;
                peerPort[sa][l.aPort()] = l.bPort();
                peerSwitch[sb][l.bPort()] = sa;
                peerPort[sb][l.bPort()] = l.aPort();
            } else if (sa != NONE) {
                attachNode(sa, l.aPort(), l.b());
            } else if (sb != NONE) {
                attachNode(sb, l.bPort(), l.a());
            }
            // node-to-node cables carry no route; recognition reports them
        }

        Groups groups = groups(null, null, null, null);
        groupStart = groups.start;
        groupNeighbour = groups.neighbour;
        groupPortStart = groups.portStart;
        groupPorts = groups.ports;

        LeafLayout layout = new LeafLayout(n, nodeLeaf);
        leaves = layout.leaves;
        leafNumber = layout.leafNumber;
        leafNodeStart = layout.leafNodeStart;
        leafNodes = layout.leafNodes;
    }

    /**
     * The index of {@code fabric}, which is {@code old}'s fabric without the switches {@code removedSwitches} and
     * the end nodes {@code removedNodes} (and their links), with {@code removed} links taken away, and with the
     * switches {@code addedSwitches}, the nodes {@code addedNodes} and the links {@code added}: entry for entry what
     * {@code new FabricIndex(fabric)} builds, but what did not change is shared with {@code old}, and only the rows
     * and port groups of the switches the change touches are computed again. Switches keep GUID order (the added ones
     * take their places among them); nodes keep destination-index order, so when nodes come or go the others move in
     * position (their indices stay) and the leaves' node rows are renumbered. A fault's re-route at 5,120 switches
     * then indexes in a few milliseconds instead of re-reading 200,000 links.
     */
    static FabricIndex derive(Fabric fabric, FabricIndex old, Collection<Long> removedSwitches,
                              Collection<FabricSwitch> addedSwitches, Collection<Long> removedNodes,
                              Collection<EndNode> addedNodes, Collection<Link> removed, Collection<Link> added) {
        return new FabricIndex(fabric, old, removedSwitches, addedSwitches, removedNodes, addedNodes, removed, added);
    }

    private FabricIndex(Fabric fabric, FabricIndex old, Collection<Long> removedSwitches,
                        Collection<FabricSwitch> addedSwitches, Collection<Long> removedNodes,
                        Collection<EndNode> addedNodes, Collection<Link> removed, Collection<Link> added) {
        this.fabric = fabric;
        int oldCount = old.switchGuid.length;
        // Switch ids stay dense and in GUID order: without the removed switches the others move down, and the added
        // ones take their places among them (a merge of the two GUID orders).
        int[] newId = new int[oldCount];
        boolean[] dropped = new boolean[oldCount];
        for (long g : removedSwitches) {
            int s = old.switchIdByGuid.get(g);
            if (s != NONE) {
                dropped[s] = true;
            }
        }
        FabricSwitch[] joining = addedSwitches.toArray(new FabricSwitch[0]);
        Arrays.sort(joining, (x, y) -> Long.compareUnsigned(x.guid(), y.guid()));
        int[] joiningId = new int[joining.length];
        int n = 0;
        int j = 0;
        for (int s = 0; s < oldCount; s++) {
            while (j < joining.length && Long.compareUnsigned(joining[j].guid(), old.switchGuid[s]) < 0) {
                joiningId[j++] = n++;
            }
            newId[s] = dropped[s] ? NONE : n++;
        }
        while (j < joining.length) {
            joiningId[j++] = n++;
        }
        boolean renumber = n != oldCount || joining.length > 0;
        // nodes keep their order (destination index): without the removed ones the others move down in position, and
        // the added ones take their places among them (a merge of the two index orders)
        int[] newPos = null;
        int[] leafOf = old.nodeLeaf;
        int[] leafPortOf = old.nodeLeafPort;
        if (removedNodes.isEmpty() && addedNodes.isEmpty()) {
            nodeGuid = old.nodeGuid;
            nodeIndex = old.nodeIndex;
            nodePosByGuid = old.nodePosByGuid;
            destinationCount = old.destinationCount;
            nodeByDestination = old.nodeByDestination;
        } else {
            int oldNodes = old.nodeGuid.length;
            newPos = new int[oldNodes];
            int gone = 0;
            for (long g : removedNodes) {
                int pos = old.nodePosByGuid.get(g);
                if (pos != NONE && newPos[pos] != NONE) {
                    newPos[pos] = NONE;
                    gone++;
                }
            }
            EndNode[] arriving = addedNodes.toArray(new EndNode[0]);
            Arrays.sort(arriving, (x, y) -> Integer.compare(x.index(), y.index()));
            int count = oldNodes - gone + arriving.length;
            nodeGuid = new long[count];
            nodeIndex = new int[count];
            nodePosByGuid = new LongIntMap(count);
            leafOf = new int[count];
            leafPortOf = new int[count];
            int k = 0;
            int a = 0;
            for (int i = 0; i <= oldNodes; i++) {
                while (a < arriving.length && (i == oldNodes || arriving[a].index() < old.nodeIndex[i])) {
                    nodeGuid[k] = arriving[a].guid();
                    nodeIndex[k] = arriving[a].index();
                    leafOf[k] = NONE; // its link is among the added ones
                    leafPortOf[k] = NONE;
                    nodePosByGuid.putIfAbsent(nodeGuid[k], k);
                    k++;
                    a++;
                }
                if (i == oldNodes) {
                    break;
                }
                if (newPos[i] == NONE) {
                    continue;
                }
                newPos[i] = k;
                nodeGuid[k] = old.nodeGuid[i];
                nodeIndex[k] = old.nodeIndex[i];
                leafOf[k] = old.nodeLeaf[i];
                leafPortOf[k] = old.nodeLeafPort[i];
                nodePosByGuid.putIfAbsent(nodeGuid[k], k);
                k++;
            }
            destinationCount = count == 0 ? 0 : nodeIndex[count - 1] + 1;
            nodeByDestination = filled(destinationCount);
            for (int pos = 0; pos < count; pos++) {
                nodeByDestination[nodeIndex[pos]] = pos;
            }
        }
        boolean[] touched = new boolean[n];
        boolean[] own = new boolean[n];
        boolean nodesMoved = renumber || newPos != null;
        if (!renumber) {
            switchGuid = old.switchGuid;
            switchPorts = old.switchPorts;
            switchIdByGuid = old.switchIdByGuid;
            peerSwitch = old.peerSwitch.clone();
            peerPort = old.peerPort.clone();
            peerNode = old.peerNode.clone();
            if (newPos != null) {
                for (int leaf : old.leaves) {
                    peerNode[leaf] = renumberedNodes(peerNode[leaf], newPos);
                }
            }
        } else {
            switchGuid = new long[n];
            switchPorts = new int[n];
            switchIdByGuid = new LongIntMap(n);
            peerSwitch = new int[n][];
            peerPort = new int[n][];
            peerNode = new int[n][];
            for (int s = 0; s < oldCount; s++) {
                int t = newId[s];
                if (t == NONE) {
                    continue;
                }
                switchGuid[t] = old.switchGuid[s];
                switchPorts[t] = old.switchPorts[s];
                switchIdByGuid.putIfAbsent(switchGuid[t], t);
                // every row holds switch ids: renumbered, and cut where the peer went
                int[] peers = old.peerSwitch[s].clone();
                int[] ports = old.peerPort[s];
                for (int p = 0; p < peers.length; p++) {
                    if (peers[p] != NONE) {
                        int q = newId[peers[p]];
                        if (q == NONE) {
                            if (!touched[t]) {
                                touched[t] = true;
                                ports = ports.clone();
                            }
                            ports[p] = NONE;
                        }
                        peers[p] = q;
                    }
                }
                peerSwitch[t] = peers;
                peerPort[t] = ports;
                peerNode[t] = newPos == null ? old.peerNode[s] : renumberedNodes(old.peerNode[s], newPos);
            }
            for (int k = 0; k < joining.length; k++) {
                // a joining switch's rows are new (its links are added below): touched, and owned already
                int t = joiningId[k];
                unconnectedRow(t, joining[k]);
                touched[t] = true;
                own[t] = true;
            }
            if (newPos == null) {
                leafOf = leafOf.clone();
                leafPortOf = leafPortOf.clone();
            } // else new arrays already
            for (int i = 0; i < leafOf.length; i++) {
                if (leafOf[i] != NONE) {
                    int t = newId[leafOf[i]];
                    leafOf[i] = t;
                    if (t == NONE) {
                        leafPortOf[i] = NONE;
                    }
                }
            }
        }
        for (int pass = 0; pass < 2; pass++) {
            for (Link l : pass == 0 ? removed : added) {
                int sa = switchIdByGuid.get(l.a());
                int sb = switchIdByGuid.get(l.b());
                if (sa == NONE && sb == NONE) {
                    continue; // node to node, or it went with a removed switch
                }
                if ((sa == NONE && old.switchIdByGuid.get(l.a()) != NONE)
                        || (sb == NONE && old.switchIdByGuid.get(l.b()) != NONE)) {
                    continue; // went with a removed switch
                }
                if ((sa == NONE && nodePosByGuid.get(l.a()) == NONE) || (sb == NONE && nodePosByGuid.get(l.b()) == NONE)) {
                    continue; // went with a removed node (its leaf's row was renumbered without it)
                }
                for (int s : new int[] {sa, sb}) {
                    if (s != NONE && !own[s]) {
                        // rows still shared with the old index are copied before they are written
                        own[s] = true;
                        touched[s] = true;
                        peerSwitch[s] = renumber ? peerSwitch[s] : peerSwitch[s].clone();
                        peerPort[s] = peerPort[s].clone();
                        peerNode[s] = peerNode[s].clone();
                    }
                }
                if ((sa == NONE || sb == NONE) && !nodesMoved) {
                    nodesMoved = true;
                    leafOf = leafOf.clone();
                    leafPortOf = leafPortOf.clone();
                }
                boolean add = pass == 1;
                if (sa != NONE && sb != NONE) {
                    peerSwitch[sa][l.aPort()] = add ? sb : NONE;
                    peerPort[sa][l.aPort()] = add ? l.bPort() : NONE;
                    peerSwitch[sb][l.bPort()] = add ? sa : NONE;
                    peerPort[sb][l.bPort()] = add ? l.aPort() : NONE;
                } else {
                    int s = sa != NONE ? sa : sb;
                    int port = sa != NONE ? l.aPort() : l.bPort();
                    int pos = nodePosByGuid.get(sa != NONE ? l.b() : l.a());
                    peerNode[s][port] = add ? pos : NONE;
                    leafOf[pos] = add ? s : NONE;
                    leafPortOf[pos] = add ? port : NONE;
                }
            }
        }
        nodeLeaf = leafOf;
        nodeLeafPort = leafPortOf;

        int[] oldOf = new int[n];
        for (int s = 0; s < oldCount; s++) {
            if (newId[s] != NONE) {
                oldOf[newId[s]] = s;
            }
        }
        Groups groups = groups(touched, old, oldOf, newId);
        groupStart = groups.start;
        groupNeighbour = groups.neighbour;
        groupPortStart = groups.portStart;
        groupPorts = groups.ports;

        if (!nodesMoved) {
            leaves = old.leaves;
            leafNumber = old.leafNumber;
            leafNodeStart = old.leafNodeStart;
            leafNodes = old.leafNodes;
            return;
        }
        LeafLayout layout = new LeafLayout(n, nodeLeaf);
        leaves = layout.leaves;
        leafNumber = layout.leafNumber;
        leafNodeStart = layout.leafNodeStart;
        leafNodes = layout.leafNodes;
    }

    /** A copy of node row {@code row} with the positions mapped by {@code newPos} (a removed node: {@link #NONE}). */
    private static int[] renumberedNodes(int[] row, int[] newPos) {
        int[] out = row;
        for (int p = 0; p < row.length; p++) {
            if (row[p] != NONE) {
                if (out == row) {
                    out = row.clone();
                }
                out[p] = newPos[row[p]];
            }
        }
        return out;
    }

    /** Switch id {@code s} is {@code sw}, none of its ports connected yet. */
    private void unconnectedRow(int s, FabricSwitch sw) {
        switchGuid[s] = sw.guid();
        switchPorts[s] = sw.ports();
        switchIdByGuid.putIfAbsent(sw.guid(), s);
        peerSwitch[s] = filled(sw.ports() + 1);
        peerPort[s] = filled(sw.ports() + 1);
        peerNode[s] = filled(sw.ports() + 1);
    }

    /** Port groups in CSR layout. */
    private record Groups(int[] start, int[] neighbour, int[] portStart, int[] ports) {
    }

    /**
     * The port groups of every switch from the peer rows, or, with an {@code old} index, copied from it for
     * the switches not {@code touched} (old id {@code oldOf[s]}, neighbour ids mapped by {@code newId}).
     */
    private Groups groups(boolean[] touched, FabricIndex old, int[] oldOf, int[] newId) {
        int n = switchGuid.length;
        int[] start = new int[n + 1];
        int[][] neighbours = new int[n][];
        int groups = 0;
        int ports = 0;
        for (int s = 0; s < n; s++) {
            start[s] = groups;
            if (old == null || touched[s]) {
                neighbours[s] = distinctNeighbours(s);
                groups += neighbours[s].length;
                for (int p = 1; p <= switchPorts[s]; p++) {
                    if (peerSwitch[s][p] != NONE && peerSwitch[s][p] != s) {
                        ports++;
                    }
                }
            } else {
                int o = oldOf[s];
                groups += old.groupStart[o + 1] - old.groupStart[o];
                ports += old.groupPortStart[old.groupStart[o + 1]] - old.groupPortStart[old.groupStart[o]];
            }
        }
        start[n] = groups;
        int[] neighbour = new int[groups];
        int[] portStart = new int[groups + 1];
        int[] portList = new int[ports];
        int g = 0;
        int pi = 0;
        for (int s = 0; s < n; s++) {
            if (neighbours[s] != null) {
                for (int peer : neighbours[s]) {
                    neighbour[g] = peer;
                    portStart[g] = pi;
                    for (int p = 1; p <= switchPorts[s]; p++) {
                        if (peerSwitch[s][p] == peer) {
                            portList[pi++] = p;
                        }
                    }
                    g++;
                }
            } else {
                int o = oldOf[s];
                int og = old.groupStart[o];
                int count = old.groupStart[o + 1] - og;
                int op = old.groupPortStart[og];
                int portCount = old.groupPortStart[og + count] - op;
                for (int i = 0; i < count; i++) {
                    neighbour[g + i] = newId[old.groupNeighbour[og + i]];
                    portStart[g + i] = old.groupPortStart[og + i] - op + pi;
                }
                System.arraycopy(old.groupPorts, op, portList, pi, portCount);
                g += count;
                pi += portCount;
            }
        }
        portStart[groups] = pi;
        return new Groups(start, neighbour, portStart, portList);
    }

    /** Leaves: switches with at least one node link, in id order; their nodes by destination index. */
    private static final class LeafLayout {
        final int[] leaves;
        final int[] leafNumber;
        final int[] leafNodeStart;
        final int[] leafNodes;

        LeafLayout(int n, int[] nodeLeaf) {
            leafNumber = filled(n);
            int leafCount = 0;
            int[] nodesPerSwitch = new int[n];
            for (int leaf : nodeLeaf) {
                if (leaf != NONE) {
                    nodesPerSwitch[leaf]++;
                }
            }
            for (int s = 0; s < n; s++) {
                if (nodesPerSwitch[s] > 0) {
                    leafNumber[s] = leafCount++;
                }
            }
            leaves = new int[leafCount];
            leafNodeStart = new int[leafCount + 1];
            for (int s = 0, k = 0; s < n; s++) {
                if (leafNumber[s] != NONE) {
                    leaves[k] = s;
                    leafNodeStart[k + 1] = leafNodeStart[k] + nodesPerSwitch[s];
                    k++;
                }
            }
            leafNodes = new int[leafNodeStart[leafCount]];
            int[] fill = Arrays.copyOf(leafNodeStart, leafCount);
            for (int i = 0; i < nodeLeaf.length; i++) {
                if (nodeLeaf[i] != NONE) {
                    leafNodes[fill[leafNumber[nodeLeaf[i]]]++] = i;
                }
            }
        }
    }

    private void attachNode(int s, int port, long node) {
        int pos = nodePosByGuid.get(node);
        peerNode[s][port] = pos;
        nodeLeaf[pos] = s;
        nodeLeafPort[pos] = port;
    }

    private int[] distinctNeighbours(int s) {
        int[] tmp = new int[switchPorts[s]];
        int k = 0;
        for (int p = 1; p <= switchPorts[s]; p++) {
            int peer = peerSwitch[s][p];
            if (peer != NONE && peer != s) {
                tmp[k++] = peer;
            }
        }
        int[] sorted = Arrays.copyOf(tmp, k);
        Arrays.sort(sorted);
        int unique = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[unique++] = sorted[i];
            }
        }
        return Arrays.copyOf(sorted, unique);
    }

    private static int[] filled(int size) {
        int[] a = new int[size];
        Arrays.fill(a, NONE);
        return a;
    }

    /** The fabric this index was built from. */
    public Fabric fabric() {
        return fabric;
    }

    // ---- switches -------------------------------------------------------------------------

    public int switchCount() {
        return switchGuid.length;
    }

    public long switchGuid(int s) {
        return switchGuid[s];
    }

    /** Number of ports of switch {@code s} (ports are 1..ports). */
    public int switchPorts(int s) {
        return switchPorts[s];
    }

    /** The switch id of {@code guid}, or {@link #NONE}. */
    public int switchId(long guid) {
        return switchIdByGuid.get(guid);
    }

    /** Per port (index = port number, 0 unused): the neighbour switch id or {@link #NONE}. */
    public int[] peerSwitches(int s) {
        return peerSwitch[s];
    }

    /** Per port: the neighbour's port number, for switch neighbours, or {@link #NONE}. */
    public int[] peerPorts(int s) {
        return peerPort[s];
    }

    /** Per port: the attached node's position or {@link #NONE}. */
    public int[] peerNodes(int s) {
        return peerNode[s];
    }

    // ---- port groups -----------------------------------------------------------------------

    /** First group of switch {@code s}; its groups are {@code groupStart(s) .. groupStart(s+1)-1}. */
    public int groupStart(int s) {
        return groupStart[s];
    }

    /** Number of port groups (= distinct neighbour switches) of {@code s}. */
    public int groupCount(int s) {
        return groupStart[s + 1] - groupStart[s];
    }

    /** The neighbour switch of global group {@code g}. */
    public int groupNeighbour(int g) {
        return groupNeighbour[g];
    }

    /** Number of ports in global group {@code g}. */
    public int groupSize(int g) {
        return groupPortStart[g + 1] - groupPortStart[g];
    }

    /** Port {@code i} (0-based, ascending port order) of global group {@code g}. */
    public int groupPort(int g, int i) {
        return groupPorts[groupPortStart[g] + i];
    }

    /** CSR arrays, for hot loops: per switch, start into {@link #groupNeighbourArray()} (length switches+1). */
    public int[] groupStartArray() {
        return groupStart;
    }

    /** CSR arrays: neighbour switch id per global group. */
    public int[] groupNeighbourArray() {
        return groupNeighbour;
    }

    /** CSR arrays: per global group, start into {@link #groupPortArray()} (length groups+1). */
    public int[] groupPortStartArray() {
        return groupPortStart;
    }

    /** CSR arrays: port numbers of all groups. */
    public int[] groupPortArray() {
        return groupPorts;
    }

    // ---- nodes -----------------------------------------------------------------------------

    public int nodeCount() {
        return nodeGuid.length;
    }

    /** Largest destination index + 1: the length of every forwarding table. */
    public int destinationCount() {
        return destinationCount;
    }

    public long nodeGuid(int pos) {
        return nodeGuid[pos];
    }

    public int nodeIndex(int pos) {
        return nodeIndex[pos];
    }

    /** The node's leaf switch id, or {@link #NONE} when the node has no link to a switch. */
    public int nodeLeaf(int pos) {
        return nodeLeaf[pos];
    }

    /** The leaf's port the node is attached to, or {@link #NONE}. */
    public int nodeLeafPort(int pos) {
        return nodeLeafPort[pos];
    }

    /** The node position of destination index {@code d}, or {@link #NONE} for an unused index. */
    public int nodeByDestination(int d) {
        return nodeByDestination[d];
    }

    /** The node position of {@code guid}, or {@link #NONE}. */
    public int nodePosition(long guid) {
        return nodePosByGuid.get(guid);
    }

    // ---- leaves ----------------------------------------------------------------------------

    /** Leaf switch ids (switches with at least one node link), ascending. */
    public int[] leaves() {
        return leaves;
    }

    public int leafCount() {
        return leaves.length;
    }

    /** The leaf number (position in {@link #leaves()}) of switch {@code s}, or {@link #NONE}. */
    public int leafNumber(int s) {
        return leafNumber[s];
    }

    public boolean isLeaf(int s) {
        return leafNumber[s] != NONE;
    }

    /** Node positions attached to leaf number {@code leaf}: {@code leafNodeStart(leaf) .. leafNodeStart(leaf+1)-1}. */
    public int leafNodeStart(int leaf) {
        return leafNodeStart[leaf];
    }

    /** Node positions grouped by leaf (see {@link #leafNodeStart(int)}), ascending destination index per leaf. */
    public int[] leafNodeArray() {
        return leafNodes;
    }
}
