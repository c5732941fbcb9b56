package org.fabricmanager.topology;

import java.util.Arrays;

/**
 * The indexed, read-only view of a {@link Fabric} that algorithms work on. Switches get dense ids
 * {@code 0..switchCount()-1} in ascending (unsigned) GUID order; nodes get dense positions in
 * ascending destination-index order. Adjacency and port groups are primitive arrays.
 *
 * <p>With an LMC ({@link Fabric#lmc()}, OpenSM's), each end port answers to 2^lmc LIDs and each LID is a
 * destination of its own: a node is 2^lmc positions in a row, with destination indices {@code (index << lmc) |
 * pathBits}, the same GUID, leaf and leaf port. Engines route every position as they route a node; {@link
 * #nodePosition(long)} and {@link #peerNodes(int)} give the position of the base LID (path bits 0).
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

    /** The index made of these parts; {@link FabricIndexBuilder} and {@link IndexDerivation} make them. */
    FabricIndex(Fabric fabric, SwitchTable switches, NodeTable nodes, PeerRows peers, PortGroups groups,
                LeafLayout leafLayout) {
        this.fabric = fabric;
        switchGuid = switches.guid();
        switchPorts = switches.ports();
        switchIdByGuid = switches.idByGuid();
        nodeGuid = nodes.guid();
        nodeIndex = nodes.index();
        nodeLeaf = nodes.leaf();
        nodeLeafPort = nodes.leafPort();
        nodePosByGuid = nodes.posByGuid();
        destinationCount = nodes.destinationCount();
        nodeByDestination = nodes.byDestination();
        peerSwitch = peers.peerSwitch();
        peerPort = peers.peerPort();
        peerNode = peers.peerNode();
        groupStart = groups.start();
        groupNeighbour = groups.neighbour();
        groupPortStart = groups.portStart();
        groupPorts = groups.ports();
        leaves = leafLayout.leaves();
        leafNumber = leafLayout.leafNumber();
        leafNodeStart = leafLayout.leafNodeStart();
        leafNodes = leafLayout.leafNodes();
    }

    /** The index of the whole {@code fabric}. */
    static FabricIndex of(Fabric fabric) {
        return FabricIndexBuilder.build(fabric);
    }

    /**
     * The index of {@code fabric}, which is {@code old}'s fabric with {@code change} applied: entry for entry what
     * {@link #of} builds, but what did not change is shared with {@code old} (see {@link IndexDerivation}).
     * Switches keep GUID order (the added ones take their places among them); nodes keep destination-index order,
     * so when nodes come or go the others move in position (their indices stay) and the leaves' node rows are
     * renumbered.
     */
    static FabricIndex derive(Fabric fabric, FabricIndex old, IndexChange change) {
        return IndexDerivation.derive(fabric, old, change);
    }

    // ---- parts, for the classes that derive one index from another ----------------------------

    SwitchTable switchTable() {
        return new SwitchTable(switchGuid, switchPorts, switchIdByGuid);
    }

    NodeTable nodeTable() {
        return new NodeTable(nodeGuid, nodeIndex, nodeLeaf, nodeLeafPort, nodePosByGuid, destinationCount,
                nodeByDestination);
    }

    PeerRows peerRows() {
        return new PeerRows(peerSwitch, peerPort, peerNode);
    }

    PortGroups portGroups() {
        return new PortGroups(groupStart, groupNeighbour, groupPortStart, groupPorts);
    }

    LeafLayout leafLayout() {
        return new LeafLayout(leaves, leafNumber, leafNodeStart, leafNodes);
    }

    /** A new array of {@code size} entries, all {@link #NONE}. */
    static int[] filled(int size) {
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

    /** The LMC of the end ports (0: one LID and one position per node). */
    public int lmc() {
        return fabric.lmc();
    }

    /** The path bits of position {@code pos}: its LID is its node's base LID plus these (0 without an LMC). */
    public int pathBits(int pos) {
        return nodeIndex[pos] & (1 << fabric.lmc()) - 1;
    }

    /**
     * The position of the base LID of {@code pos}'s node (path bits 0): the position {@link #peerNodes(int)} names at
     * the node's leaf port; {@code pos} itself without an LMC.
     */
    public int basePosition(int pos) {
        return pos - pathBits(pos);
    }

    /** Node positions: one per node, or 2^lmc per node with an LMC (one per LID). */
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
