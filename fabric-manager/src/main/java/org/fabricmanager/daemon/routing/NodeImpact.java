package org.fabricmanager.daemon.routing;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;

/**
 * What a new routing did to the end nodes, against the routing in force before it: the nodes it cut off (attached
 * before, and now without a live leaf: their leaf died, their node link failed, they left, or their leaf lost every
 * link to the rest of the fabric), the nodes attached again, and the destinations whose routes moved (an entry for
 * them changed in a switch's table that both versions hold; cut-off and newly attached nodes are not counted as moved).
 * Computed on the routing thread from the fabrics and the derived {@link TableSet}: one look-up per node, and one
 * vectorised comparison of each changed row, so about what counting the churn costs. Immutable once built.
 */
public final class NodeImpact {
    /** Moved nodes named in {@link #movedSample()}: the count says the rest. */
    public static final int MOVED_SAMPLE = 16;
    /** No previous routing (the first tables, or reused ones): nothing was cut off or moved. */
    public static final NodeImpact NONE = new NodeImpact(List.of(), List.of(), new BitSet(), List.of());

    private final List<EndNode> cutOff;
    private final List<EndNode> attached;
    private final BitSet moved;
    private final List<EndNode> movedSample;

    private NodeImpact(List<EndNode> cutOff, List<EndNode> attached, BitSet moved, List<EndNode> movedSample) {
        this.cutOff = List.copyOf(cutOff);
        this.attached = List.copyOf(attached);
        this.moved = moved;
        this.movedSample = List.copyOf(movedSample);
    }

    /**
     * The impact of going from {@code before} (routed by {@code beforeTables}) to {@code after} (routed by {@code
     * afterTables}, derived from {@code beforeTables}); {@link #NONE} when there was no routing before.
     */
    public static NodeImpact between(Fabric before, TableSet beforeTables, Fabric after, TableSet afterTables) {
        if (before == null || beforeTables == null) {
            return NONE;
        }
        FabricIndex was = before.index();
        FabricIndex now = after.index();
        byte[] wasLeaves = new byte[was.switchCount()];
        byte[] nowLeaves = new byte[now.switchCount()];
        List<EndNode> cutOff = new ArrayList<>();
        // destinations of nodes attached in both fabrics: only their entries can be said to have moved
        BitSet stayed = new BitSet(now.destinationCount());
        for (int pos = 0; pos < was.nodeCount(); pos++) {
            if (!attached(was, pos, wasLeaves)) {
                continue;
            }
            long guid = was.nodeGuid(pos);
            int bits = was.pathBits(pos); // an end port's extra LID (LMC > 0): its own destination, the port's node
            int p = now.nodePosition(guid);
            if (p == FabricIndex.NONE || !attached(now, p, nowLeaves)) {
                if (bits == 0) {
                    cutOff.add(node(before, guid, was.nodeIndex(pos)));
                }
            } else if (now.lmc() == was.lmc() && now.nodeIndex(p + bits) == was.nodeIndex(pos)) {
                stayed.set(now.nodeIndex(p + bits));
            }
        }
        List<EndNode> back = new ArrayList<>();
        for (int pos = 0; pos < now.nodeCount(); pos++) {
            if (!attached(now, pos, nowLeaves)) {
                continue;
            }
            int p = was.nodePosition(now.nodeGuid(pos));
            if (now.pathBits(pos) == 0 && (p == FabricIndex.NONE || !attached(was, p, wasLeaves))) {
                back.add(node(after, now.nodeGuid(pos), now.nodeIndex(pos)));
            }
        }
        BitSet moved = movedDestinations(beforeTables, afterTables, stayed);
        List<EndNode> sample = new ArrayList<>();
        for (int d = moved.nextSetBit(0); d >= 0 && sample.size() < MOVED_SAMPLE; d = moved.nextSetBit(d + 1)) {
            sample.add(node(after, now.nodeGuid(now.nodeByDestination(d)), d));
        }
        return new NodeImpact(cutOff, back, moved, sample);
    }

    /**
     * Destinations among {@code candidates} whose entry differs in a row both versions hold. Only the 64-entry blocks
     * the derived set knows changed are compared (a leaf's death changes one block per row: comparing whole rows cost
     * several times as much at 5,120 switches, on the fault's path: docs/performance.md, "Choices in the code,
     * measured"); a row whose changes are not known is compared in full.
     */
    private static BitSet movedDestinations(TableSet before, TableSet after, BitSet candidates) {
        BitSet moved = new BitSet(after.length());
        ForwardingTables a = after.tables();
        ForwardingTables b = before.tables();
        int common = Math.min(a.destinationCount(), b.destinationCount());
        for (int s = 0; s < after.rowCount(); s++) {
            int p = before.row(after.guid(s));
            if (p < 0) {
                continue;
            }
            int[] blocks = after.changedBlocks(s);
            if (blocks == null) {
                compare(a, s, b, p, 0, common, moved, candidates);
                continue;
            }
            for (int block : blocks) {
                int from = block * LftBlock.SIZE;
                compare(a, s, b, p, from, Math.min(common, from + LftBlock.SIZE), moved, candidates);
            }
        }
        return moved;
    }

    /** Marks the candidates among destinations {@code [from, to)} whose entries differ between the two rows. */
    private static void compare(ForwardingTables a, int s, ForwardingTables b, int p, int from, int to, BitSet moved,
                                BitSet candidates) {
        for (int d = from; d < to; d++) {
            if (a.port(s, d) != b.port(p, d) && candidates.get(d)) {
                moved.set(d);
            }
        }
    }

    /**
     * True when the node at {@code pos} has a leaf that can reach the rest of the fabric: a live node link, and at
     * least one link to another switch unless its leaf is the only switch ({@code leaves} memoises it per leaf).
     */
    static boolean attached(FabricIndex index, int pos, byte[] leaves) {
        int leaf = index.nodeLeaf(pos);
        if (leaf == FabricIndex.NONE) {
            return false;
        }
        if (leaves[leaf] == 0) {
            // once per leaf (0: not known yet, 1: linked to another switch, 2: alone), not once per node
            boolean linked = index.switchCount() == 1;
            for (int peer : index.peerSwitches(leaf)) {
                linked |= peer != FabricIndex.NONE && peer != leaf;
            }
            leaves[leaf] = (byte) (linked ? 1 : 2);
        }
        return leaves[leaf] == 1;
    }

    /** The node as {@code fabric} names it (a node without an entry is named by its GUID). */
    private static EndNode node(Fabric fabric, long guid, int index) {
        return fabric.nodeByGuid(guid).orElseGet(() -> new EndNode(guid, Guids.format(guid), index));
    }

    /** Nodes attached before and not now, in the previous fabric's destination order. */
    public List<EndNode> cutOff() {
        return cutOff;
    }

    /** Nodes attached now and not before (back, or new), in destination order. */
    public List<EndNode> attached() {
        return attached;
    }

    /** Destinations of nodes attached before and after whose routes changed in at least one switch. */
    public int movedCount() {
        return moved.cardinality();
    }

    /** Adds the moved destinations to {@code into} (a reaction's union over its routings). */
    public void addMovedTo(BitSet into) {
        into.or(moved);
    }

    /** Up to {@value #MOVED_SAMPLE} moved nodes, lowest destination index first. */
    public List<EndNode> movedSample() {
        return movedSample;
    }

    /** True when the routing cut off, attached or moved no node. */
    public boolean isEmpty() {
        return cutOff.isEmpty() && attached.isEmpty() && moved.isEmpty();
    }
}
