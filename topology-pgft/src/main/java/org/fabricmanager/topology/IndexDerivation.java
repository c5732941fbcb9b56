package org.fabricmanager.topology;

import java.util.Arrays;
import java.util.Collection;

/**
 * Derives the {@link FabricIndex} of a changed fabric from the index of the fabric it was derived from: entry for
 * entry what {@link FabricIndexBuilder} builds, but what did not change is shared with the old index, and only the
 * rows and port groups of the switches the change touches are computed again. The steps, in order: number the
 * switches (the old ones without the removed, the added among them), order the nodes, carry the old rows over
 * (renumbered when switch ids moved), apply the removed and added links, then the port groups and the leaves. A
 * fault's re-route at 5,120 switches then indexes the few switches a fault touches instead of re-reading 200,000
 * links.
 *
 * <p>With an LMC a node is 2^lmc positions in a row (one per LID, {@link FabricIndex}): a removed or added node
 * removes or adds its whole row of positions, and a node's link sets the leaf of each.
 */
final class IndexDerivation {
    private final SwitchTable old;
    private final NodeTable oldNodes;
    private final PeerRows oldPeers;
    private final PortGroups oldGroups;
    private final int[] oldLeaves;
    private final int oldCount;
    private final int lmc;

    // switch numbering
    private int[] newId;
    private FabricSwitch[] joining;
    private int[] joiningId;
    private int n;
    private boolean renumber;

    // nodes; newPos is null while they keep their positions
    private int[] newPos;
    private NodeTable nodes;
    private int[] leafOf;
    private int[] leafPortOf;
    private boolean nodesMoved;

    // rows: touched switches get their port groups computed again; own rows are no longer shared with the old index
    private SwitchTable switches;
    private PeerRows peers;
    private boolean[] touched;
    private boolean[] own;

    private IndexDerivation(FabricIndex index, int lmc) {
        this.lmc = lmc;
        old = index.switchTable();
        oldNodes = index.nodeTable();
        oldPeers = index.peerRows();
        oldGroups = index.portGroups();
        oldLeaves = index.leaves();
        oldCount = old.guid().length;
    }

    /** The index of {@code fabric}, which is {@code old}'s fabric with {@code change} applied. */
    static FabricIndex derive(Fabric fabric, FabricIndex old, IndexChange change) {
        if (old.lmc() != fabric.lmc()) {
            throw new IllegalArgumentException("LMC " + fabric.lmc() + " derived from an index of LMC " + old.lmc());
        }
        IndexDerivation d = new IndexDerivation(old, fabric.lmc());
        d.numberSwitches(change.removedSwitches(), change.addedSwitches());
        d.orderNodes(change.removedNodes(), change.addedNodes());
        d.carryRows();
        d.applyLinks(change.removedLinks(), change.addedLinks());
        NodeTable nodes = new NodeTable(d.nodes.guid(), d.nodes.index(), d.leafOf, d.leafPortOf, d.nodes.posByGuid(),
                d.nodes.destinationCount(), d.nodes.byDestination());
        PortGroups groups = d.portGroups();
        LeafLayout leaves = d.nodesMoved ? LeafLayout.of(d.n, d.leafOf) : old.leafLayout();
        return new FabricIndex(fabric, d.switches, nodes, d.peers, groups, leaves);
    }

    /**
     * Switch ids stay dense and in GUID order: without the removed switches the others move down, and the added
     * ones take their places among them (a merge of the two GUID orders).
     */
    private void numberSwitches(Collection<Long> removedSwitches, Collection<FabricSwitch> addedSwitches) {
        long[] oldGuid = old.guid();
        int[] newId = new int[oldCount];
        boolean[] dropped = new boolean[oldCount];
        for (long g : removedSwitches) {
            int s = old.idByGuid().get(g);
            if (s != FabricIndex.NONE) {
                dropped[s] = true;
            }
        }
        FabricSwitch[] joining = addedSwitches.toArray(new FabricSwitch[0]);
        Arrays.sort(joining, (x, y) -> Long.compareUnsigned(x.guid(), y.guid()));
        int[] joiningId = new int[joining.length];
        int n = 0;
        int j = 0;
        for (int s = 0; s < oldCount; s++) {
            while (j < joining.length && Long.compareUnsigned(joining[j].guid(), oldGuid[s]) < 0) {
                joiningId[j++] = n++;
            }
            newId[s] = dropped[s] ? FabricIndex.NONE : n++;
        }
        while (j < joining.length) {
            joiningId[j++] = n++;
        }
        this.newId = newId;
        this.joining = joining;
        this.joiningId = joiningId;
        this.n = n;
        this.renumber = n != oldCount || joining.length > 0;
    }

    /**
     * Nodes keep their order (destination index): without the removed ones the others move down in position, and
     * the added ones take their places among them (a merge of the two index orders), a row of 2^lmc positions each.
     */
    private void orderNodes(Collection<Long> removedNodes, Collection<EndNode> addedNodes) {
        leafOf = oldNodes.leaf();
        leafPortOf = oldNodes.leafPort();
        if (removedNodes.isEmpty() && addedNodes.isEmpty()) {
            nodes = oldNodes;
            return;
        }
        long[] oldNodeGuid = oldNodes.guid();
        int[] oldNodeIndex = oldNodes.index();
        int[] oldLeaf = oldNodes.leaf();
        int[] oldLeafPort = oldNodes.leafPort();
        int oldCountOfNodes = oldNodeGuid.length;
        int lids = 1 << lmc;
        int[] newPos = new int[oldCountOfNodes];
        int gone = 0;
        for (long g : removedNodes) {
            int pos = oldNodes.posByGuid().get(g); // the base LID's, first of the node's row
            if (pos != FabricIndex.NONE && newPos[pos] != FabricIndex.NONE) {
                Arrays.fill(newPos, pos, pos + lids, FabricIndex.NONE);
                gone += lids;
            }
        }
        EndNode[] arriving = addedNodes.toArray(new EndNode[0]);
        Arrays.sort(arriving, (x, y) -> Integer.compare(x.index(), y.index()));
        int count = oldCountOfNodes - gone + arriving.length * lids;
        long[] nodeGuid = new long[count];
        int[] nodeIndex = new int[count];
        LongIntMap nodePosByGuid = new LongIntMap(count);
        int[] leafOf = new int[count];
        int[] leafPortOf = new int[count];
        int k = 0;
        int a = 0;
        for (int i = 0; i <= oldCountOfNodes; i++) {
            while (a < arriving.length && (i == oldCountOfNodes || arriving[a].index() << lmc < oldNodeIndex[i])) {
                for (int bits = 0; bits < lids; bits++) {
                    nodeGuid[k] = arriving[a].guid();
                    nodeIndex[k] = arriving[a].index() << lmc | bits;
                    leafOf[k] = FabricIndex.NONE; // its link is among the added ones
                    leafPortOf[k] = FabricIndex.NONE;
                    nodePosByGuid.putIfAbsent(nodeGuid[k], k);
                    k++;
                }
                a++;
            }
            if (i == oldCountOfNodes) {
                break;
            }
            if (newPos[i] == FabricIndex.NONE) {
                continue;
            }
            newPos[i] = k;
            nodeGuid[k] = oldNodeGuid[i];
            nodeIndex[k] = oldNodeIndex[i];
            leafOf[k] = oldLeaf[i];
            leafPortOf[k] = oldLeafPort[i];
            nodePosByGuid.putIfAbsent(nodeGuid[k], k);
            k++;
        }
        int destinationCount = count == 0 ? 0 : nodeIndex[count - 1] + 1; // the last position's, its largest LID
        int[] nodeByDestination = FabricIndex.filled(destinationCount);
        for (int pos = 0; pos < count; pos++) {
            nodeByDestination[nodeIndex[pos]] = pos;
        }
        this.newPos = newPos;
        this.leafOf = leafOf;
        this.leafPortOf = leafPortOf;
        // derive takes the leaf columns as the links leave them (leafOf, leafPortOf), not these
        this.nodes = new NodeTable(nodeGuid, nodeIndex, leafOf, leafPortOf, nodePosByGuid, destinationCount,
                nodeByDestination);
    }

    /**
     * The old rows, shared where switch ids stay, else renumbered (and cut where the peer went); the joining
     * switches get unconnected rows.
     */
    private void carryRows() {
        int[] newPos = this.newPos;
        int[] newId = this.newId;
        boolean[] touched = new boolean[n];
        boolean[] own = new boolean[n];
        nodesMoved = renumber || newPos != null;
        int[][] oldPeerSwitch = oldPeers.peerSwitch();
        int[][] oldPeerPort = oldPeers.peerPort();
        int[][] oldPeerNode = oldPeers.peerNode();
        if (!renumber) {
            switches = old;
            peers = new PeerRows(oldPeerSwitch.clone(), oldPeerPort.clone(), oldPeerNode.clone());
            if (newPos != null) {
                int[][] peerNode = peers.peerNode();
                for (int leaf : oldLeaves) {
                    peerNode[leaf] = renumberedNodes(peerNode[leaf], newPos);
                }
            }
        } else {
            switches = SwitchTable.ofSize(n);
            peers = PeerRows.ofSize(n);
            long[] switchGuid = switches.guid();
            int[] switchPorts = switches.ports();
            LongIntMap switchIdByGuid = switches.idByGuid();
            int[][] peerSwitch = peers.peerSwitch();
            int[][] peerPort = peers.peerPort();
            int[][] peerNode = peers.peerNode();
            for (int s = 0; s < oldCount; s++) {
                int t = newId[s];
                if (t == FabricIndex.NONE) {
                    continue;
                }
                switchGuid[t] = old.guid()[s];
                switchPorts[t] = old.ports()[s];
                switchIdByGuid.putIfAbsent(switchGuid[t], t);
                // every row holds switch ids: renumbered, and cut where the peer went
                int[] peerRow = oldPeerSwitch[s].clone();
                int[] ports = oldPeerPort[s];
                for (int p = 0; p < peerRow.length; p++) {
                    if (peerRow[p] != FabricIndex.NONE) {
                        int q = newId[peerRow[p]];
                        if (q == FabricIndex.NONE) {
                            if (!touched[t]) {
                                touched[t] = true;
                                ports = ports.clone();
                            }
                            ports[p] = FabricIndex.NONE;
                        }
                        peerRow[p] = q;
                    }
                }
                peerSwitch[t] = peerRow;
                peerPort[t] = ports;
                peerNode[t] = newPos == null ? oldPeerNode[s] : renumberedNodes(oldPeerNode[s], newPos);
            }
            for (int k = 0; k < joining.length; k++) {
                // a joining switch's rows are new (its links are added below): touched, and owned already
                int t = joiningId[k];
                peers.unconnectedRow(switches, t, joining[k]);
                touched[t] = true;
                own[t] = true;
            }
            int[] leafOf = this.leafOf;
            int[] leafPortOf = this.leafPortOf;
            if (newPos == null) {
                leafOf = leafOf.clone();
                leafPortOf = leafPortOf.clone();
            } // else new arrays already
            for (int i = 0; i < leafOf.length; i++) {
                if (leafOf[i] != FabricIndex.NONE) {
                    int t = newId[leafOf[i]];
                    leafOf[i] = t;
                    if (t == FabricIndex.NONE) {
                        leafPortOf[i] = FabricIndex.NONE;
                    }
                }
            }
            this.leafOf = leafOf;
            this.leafPortOf = leafPortOf;
        }
        this.touched = touched;
        this.own = own;
    }

    /** A copy of node row {@code row} with the positions mapped by {@code newPos} (a removed node: NONE). */
    private static int[] renumberedNodes(int[] row, int[] newPos) {
        int[] out = row;
        for (int p = 0; p < row.length; p++) {
            if (row[p] != FabricIndex.NONE) {
                if (out == row) {
                    out = row.clone();
                }
                out[p] = newPos[row[p]];
            }
        }
        return out;
    }

    /** Takes the {@code removed} links out of the rows, then puts the {@code added} ones in. */
    private void applyLinks(Collection<Link> removed, Collection<Link> added) {
        LongIntMap switchIdByGuid = switches.idByGuid();
        LongIntMap oldSwitchIdByGuid = old.idByGuid();
        LongIntMap nodePosByGuid = nodes.posByGuid();
        int[][] peerSwitch = peers.peerSwitch();
        int[][] peerPort = peers.peerPort();
        int[][] peerNode = peers.peerNode();
        boolean[] touched = this.touched;
        boolean[] own = this.own;
        boolean renumber = this.renumber;
        boolean nodesMoved = this.nodesMoved;
        int[] leafOf = this.leafOf;
        int[] leafPortOf = this.leafPortOf;
        int lids = 1 << lmc;
        for (int pass = 0; pass < 2; pass++) {
            for (Link l : pass == 0 ? removed : added) {
                int sa = switchIdByGuid.get(l.a());
                int sb = switchIdByGuid.get(l.b());
                if (sa == FabricIndex.NONE && sb == FabricIndex.NONE) {
                    continue; // node to node, or it went with a removed switch
                }
                if ((sa == FabricIndex.NONE && oldSwitchIdByGuid.get(l.a()) != FabricIndex.NONE)
                        || (sb == FabricIndex.NONE && oldSwitchIdByGuid.get(l.b()) != FabricIndex.NONE)) {
                    continue; // went with a removed switch
                }
                if ((sa == FabricIndex.NONE && nodePosByGuid.get(l.a()) == FabricIndex.NONE)
                        || (sb == FabricIndex.NONE && nodePosByGuid.get(l.b()) == FabricIndex.NONE)) {
                    continue; // went with a removed node (its leaf's row was renumbered without it)
                }
                for (int s : new int[] {sa, sb}) {
                    if (s != FabricIndex.NONE && !own[s]) {
                        // rows still shared with the old index are copied before they are written
                        own[s] = true;
                        touched[s] = true;
                        peerSwitch[s] = renumber ? peerSwitch[s] : peerSwitch[s].clone();
                        peerPort[s] = peerPort[s].clone();
                        peerNode[s] = peerNode[s].clone();
                    }
                }
                if ((sa == FabricIndex.NONE || sb == FabricIndex.NONE) && !nodesMoved) {
                    nodesMoved = true;
                    leafOf = leafOf.clone();
                    leafPortOf = leafPortOf.clone();
                }
                boolean add = pass == 1;
                if (sa != FabricIndex.NONE && sb != FabricIndex.NONE) {
                    peerSwitch[sa][l.aPort()] = add ? sb : FabricIndex.NONE;
                    peerPort[sa][l.aPort()] = add ? l.bPort() : FabricIndex.NONE;
                    peerSwitch[sb][l.bPort()] = add ? sa : FabricIndex.NONE;
                    peerPort[sb][l.bPort()] = add ? l.aPort() : FabricIndex.NONE;
                } else {
                    int s = sa != FabricIndex.NONE ? sa : sb;
                    int port = sa != FabricIndex.NONE ? l.aPort() : l.bPort();
                    int pos = nodePosByGuid.get(sa != FabricIndex.NONE ? l.b() : l.a()); // the base LID's
                    peerNode[s][port] = add ? pos : FabricIndex.NONE;
                    Arrays.fill(leafOf, pos, pos + lids, add ? s : FabricIndex.NONE);
                    Arrays.fill(leafPortOf, pos, pos + lids, add ? port : FabricIndex.NONE);
                }
            }
        }
        this.nodesMoved = nodesMoved;
        this.leafOf = leafOf;
        this.leafPortOf = leafPortOf;
    }

    /** The port groups: copied from the old index for the switches no change touched. */
    private PortGroups portGroups() {
        int[] oldOf = new int[n];
        for (int s = 0; s < oldCount; s++) {
            if (newId[s] != FabricIndex.NONE) {
                oldOf[newId[s]] = s;
            }
        }
        return PortGroups.of(switches.ports(), peers.peerSwitch(), touched, oldGroups, oldOf, newId);
    }
}
