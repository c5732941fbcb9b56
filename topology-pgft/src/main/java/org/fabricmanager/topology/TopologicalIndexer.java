package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assigns destination indices in topological order, the order the canonical PGFT numbering gives:
 * the nodes of one leaf are consecutive (by leaf port), and leaves are grouped by their ancestors.
 * Dmodc spreads routes by destination index, so this order is what balances a discovered fabric.
 *
 * <p>Grouping: levels are breadth-first ranks from the leaves; the leaves that stay connected using
 * only switches up to level {@code l} form one group at level {@code l} (a pod). Groups are ordered
 * by the smallest leaf GUID they contain, level by level from the top, then leaves by GUID. On a
 * canonical PGFT this is exactly the canonical order. On a degraded fabric a leaf or pod that lost
 * every link to its siblings becomes a group of its own and moves after the groups whose smallest
 * leaf GUID is smaller. Nodes with no link come last, by their previous index.
 */
public final class TopologicalIndexer {
    private TopologicalIndexer() {
    }

    /** The node GUIDs of {@code fabric} in topological order. */
    public static long[] order(Fabric fabric) {
        FabricIndex index = fabric.index();
        int n = index.switchCount();
        int[] rank = Ranking.fromLeaves(index);
        int highest = 0;
        for (int r : rank) {
            if (r != Ranking.UNREACHED) {
                highest = Math.max(highest, r);
            }
        }
        final int top = highest;
        int[] leaves = index.leaves();
        int leafCount = leaves.length;
        // keys[leaf][k]: smallest leaf GUID of the leaf's group at level top+1-k (k = 0 is the top).
        long[][] keys = new long[leafCount][top + 1];
        UnionFind groups = new UnionFind(n);
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        long[] smallest = new long[n];
        for (int r = 0; r <= top; r++) {
            for (int s = 0; s < n; s++) {
                if (rank[s] == Ranking.UNREACHED || rank[s] > r) {
                    continue;
                }
                for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                    int t = neighbours[g];
                    if (rank[t] != Ranking.UNREACHED && Math.max(rank[s], rank[t]) == r) {
                        groups.union(s, t);
                    }
                }
            }
            Arrays.fill(smallest, -1L);
            for (int s : leaves) {
                int root = groups.find(s);
                long guid = index.switchGuid(s);
                if (smallest[root] == -1L || Long.compareUnsigned(guid, smallest[root]) < 0) {
                    smallest[root] = guid;
                }
            }
            for (int i = 0; i < leafCount; i++) {
                keys[i][top - r] = smallest[groups.find(leaves[i])];
            }
        }
        Integer[] sorted = new Integer[leafCount];
        for (int i = 0; i < leafCount; i++) {
            sorted[i] = i;
        }
        Arrays.sort(sorted, (x, y) -> {
            for (int k = 0; k <= top; k++) {
                int c = Long.compareUnsigned(keys[x][k], keys[y][k]);
                if (c != 0) {
                    return c;
                }
            }
            return Long.compareUnsigned(index.switchGuid(leaves[x]), index.switchGuid(leaves[y]));
        });

        long[] order = new long[index.nodeCount()];
        int k = 0;
        for (int i : sorted) {
            int[] nodesOnPort = index.peerNodes(leaves[i]);
            for (int p = 1; p < nodesOnPort.length; p++) {
                if (nodesOnPort[p] != FabricIndex.NONE) {
                    order[k++] = index.nodeGuid(nodesOnPort[p]);
                }
            }
        }
        // index positions are in ascending destination-index order already
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            if (index.nodeLeaf(pos) == FabricIndex.NONE) {
                order[k++] = index.nodeGuid(pos);
            }
        }
        return order;
    }

    /** {@code fabric} with destination indices {@code 0..nodes-1} in topological order. */
    public static Fabric reindex(Fabric fabric) {
        return reindex(fabric, Map.of());
    }

    /**
     * {@code fabric} with destination indices in topological order, keeping the indices of
     * {@code kept}: a node listed there keeps its index; the others get the smallest indices that
     * are neither kept nor already given, in topological order. Indices of GUIDs in {@code kept}
     * that are not in the fabric stay reserved (a node that comes back gets its old index).
     *
     * @throws TopologyException when {@code kept} gives one index to two GUIDs or a negative index
     */
    public static Fabric reindex(Fabric fabric, Map<Long, Integer> kept) {
        BitSet taken = new BitSet();
        Map<Integer, Long> owner = new HashMap<>();
        for (Map.Entry<Long, Integer> e : kept.entrySet()) {
            int index = e.getValue();
            if (index < 0) {
                throw new TopologyException("kept index " + index + " of " + Guids.format(e.getKey()) + " is negative");
            }
            Long previous = owner.put(index, e.getKey());
            if (previous != null) {
                throw new TopologyException("kept index " + index + " is given to both " + Guids.format(previous)
                        + " and " + Guids.format(e.getKey()));
            }
            taken.set(index);
        }
        List<EndNode> nodes = new ArrayList<>(fabric.nodes().size());
        int next = 0;
        for (long guid : order(fabric)) {
            EndNode old = fabric.nodeByGuid(guid).orElseThrow();
            Integer keep = kept.get(guid);
            int index;
            if (keep != null) {
                index = keep;
            } else {
                next = taken.nextClearBit(next);
                index = next;
                taken.set(index);
            }
            nodes.add(new EndNode(guid, old.name(), index));
        }
        nodes.sort(Comparator.comparingInt(EndNode::index));
        return new Fabric(fabric.pgft().orElse(null), null, fabric.switches(), nodes, fabric.links(), fabric.lmc());
    }
}
