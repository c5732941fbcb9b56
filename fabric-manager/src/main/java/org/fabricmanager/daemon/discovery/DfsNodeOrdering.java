package org.fabricmanager.daemon.discovery;

import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Topological node order by depth-first descent: from the highest-ranked switches (by GUID), go down
 * to lower-ranked neighbours in the order of the ports that reach them, and list each leaf's nodes by
 * port when the leaf is first reached; leaves not reached that way follow by GUID. The nodes of one
 * leaf are consecutive and leaves are grouped by their ancestors; on a canonical PGFT this is exactly
 * the canonical numbering.
 */
public final class DfsNodeOrdering implements NodeOrdering {
    @Override
    public long[] order(Fabric fabric) {
        FabricIndex index = fabric.index();
        int n = index.switchCount();
        int[] rank = Ranking.fromLeaves(index);
        Integer[] tops = new Integer[n];
        for (int s = 0; s < n; s++) {
            tops[s] = s;
        }
        java.util.Arrays.sort(tops, (x, y) -> rank[x] != rank[y] ? Integer.compare(rank[y], rank[x]) : Integer.compare(x, y));
        boolean[] visited = new boolean[n];
        long[] out = new long[index.nodeCount()];
        int[] filled = {0};
        for (int s : tops) {
            if (rank[s] != Ranking.UNREACHED && !visited[s]) {
                descend(index, rank, s, visited, out, filled);
            }
        }
        for (int s : index.leaves()) {
            if (!visited[s]) {
                descend(index, rank, s, visited, out, filled);
            }
        }
        boolean[] listed = new boolean[index.nodeCount()];
        for (int i = 0; i < filled[0]; i++) {
            listed[index.nodePosition(out[i])] = true;
        }
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            if (!listed[pos]) {
                out[filled[0]++] = index.nodeGuid(pos);
            }
        }
        return out;
    }

    private static void descend(FabricIndex index, int[] rank, int s, boolean[] visited, long[] out, int[] filled) {
        visited[s] = true;
        int[] peers = index.peerSwitches(s);
        int[] nodes = index.peerNodes(s);
        for (int p = 1; p <= index.switchPorts(s); p++) {
            if (nodes[p] != FabricIndex.NONE) {
                out[filled[0]++] = index.nodeGuid(nodes[p]);
            }
        }
        for (int p = 1; p <= index.switchPorts(s); p++) {
            int t = peers[p];
            if (t != FabricIndex.NONE && !visited[t] && rank[t] < rank[s]) {
                descend(index, rank, t, visited, out, filled);
            }
        }
    }
}
