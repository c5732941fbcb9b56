package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/**
 * A deliberately plain Dmodc written straight from the paper and docs/formats.md, sharing no code with
 * the engine (not even {@code FabricIndex}): BFS ranks from the leaves, Procedure 1 in its push
 * form with int costs, formulas (1)-(4) entry by entry. Slow, for comparisons on small fabrics.
 */
final class ReferenceDmodc {
    static final int INF = Integer.MAX_VALUE;

    final long[] guid;                       // switch ids by ascending unsigned GUID
    final Map<Long, Integer> idOf = new TreeMap<>();
    final List<List<int[]>> portsTo;          // per switch: groups as {neighbour, port, port, ...} ordered by neighbour GUID
    final int[] rank;
    final boolean[] leaf;
    final int[][] cost;                      // [switch][switch] cost to switch (only leaves used as targets)
    final long[] divider;
    final int destinations;
    final int[] destLeaf;                    // per destination index: leaf switch id or -1
    final int[] destPort;

    ReferenceDmodc(Fabric fabric) {
        List<FabricSwitch> sw = new ArrayList<>(fabric.switches());
        sw.sort(Comparator.comparing(FabricSwitch::guid, Long::compareUnsigned));
        int n = sw.size();
        guid = new long[n];
        for (int i = 0; i < n; i++) {
            guid[i] = sw.get(i).guid();
            idOf.put(guid[i], i);
        }
        int maxIndex = -1;
        Map<Long, Integer> nodeIndex = new TreeMap<>();
        for (EndNode e : fabric.nodes()) {
            nodeIndex.put(e.guid(), e.index());
            maxIndex = Math.max(maxIndex, e.index());
        }
        destinations = maxIndex + 1;
        destLeaf = new int[destinations];
        destPort = new int[destinations];
        Arrays.fill(destLeaf, -1);
        leaf = new boolean[n];
        List<TreeMap<Long, List<Integer>>> byNeighbour = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byNeighbour.add(new TreeMap<>(Long::compareUnsigned));
        }
        for (Link l : fabric.links()) {
            Integer a = idOf.get(l.a());
            Integer b = idOf.get(l.b());
            if (a != null && b != null && !a.equals(b)) {
                byNeighbour.get(a).computeIfAbsent(l.b(), k -> new ArrayList<>()).add(l.aPort());
                byNeighbour.get(b).computeIfAbsent(l.a(), k -> new ArrayList<>()).add(l.bPort());
            } else if (a != null && nodeIndex.containsKey(l.b())) {
                attach(a, l.aPort(), nodeIndex.get(l.b()));
            } else if (b != null && nodeIndex.containsKey(l.a())) {
                attach(b, l.bPort(), nodeIndex.get(l.a()));
            }
        }
        portsTo = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<int[]> groups = new ArrayList<>();
            for (Map.Entry<Long, List<Integer>> e : byNeighbour.get(i).entrySet()) {
                List<Integer> ports = new ArrayList<>(e.getValue());
                ports.sort(Integer::compare);
                int[] g = new int[ports.size() + 1];
                g[0] = idOf.get(e.getKey());
                for (int k = 0; k < ports.size(); k++) {
                    g[k + 1] = ports.get(k);
                }
                groups.add(g);
            }
            portsTo.add(groups);
        }
        // Ranks: BFS from all leaves.
        rank = new int[n];
        Arrays.fill(rank, INF);
        ArrayList<Integer> queue = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (leaf[i]) {
                rank[i] = 0;
                queue.add(i);
            }
        }
        for (int h = 0; h < queue.size(); h++) {
            int s = queue.get(h);
            for (int[] g : portsTo.get(s)) {
                if (rank[g[0]] == INF) {
                    rank[g[0]] = rank[s] + 1;
                    queue.add(g[0]);
                }
            }
        }
        // Procedure 1, push form, exactly as printed.
        cost = new int[n][n];
        divider = new long[n];
        for (int s = 0; s < n; s++) {
            Arrays.fill(cost[s], INF);
            divider[s] = 1;
        }
        for (int l = 0; l < n; l++) {
            if (leaf[l]) {
                cost[l][l] = 0;
            }
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> rank[i]));
        for (int s : order) {
            long pi = divider[s] * up(s).size();
            for (int t : up(s)) {
                for (int l = 0; l < n; l++) {
                    if (leaf[l] && cost[s][l] != INF && cost[s][l] + 1 < cost[t][l]) {
                        cost[t][l] = cost[s][l] + 1;
                    }
                }
            }
            for (int t : up(s)) {
                if (divider[t] < pi) {
                    divider[t] = pi;
                }
            }
        }
        for (int k = n - 1; k >= 0; k--) {
            int s = order[k];
            if (leaf[s]) {
                continue;
            }
            for (int t : down(s)) {
                for (int l = 0; l < n; l++) {
                    if (leaf[l] && cost[s][l] != INF && cost[s][l] + 1 < cost[t][l]) {
                        cost[t][l] = cost[s][l] + 1;
                    }
                }
            }
        }
    }

    private void attach(int s, int port, int index) {
        leaf[s] = true;
        destLeaf[index] = s;
        destPort[index] = port;
    }

    List<Integer> up(int s) {
        List<Integer> out = new ArrayList<>();
        for (int[] g : portsTo.get(s)) {
            if (rank[s] != INF && rank[g[0]] != INF && rank[g[0]] > rank[s]) {
                out.add(g[0]);
            }
        }
        return out;
    }

    List<Integer> down(int s) {
        List<Integer> out = new ArrayList<>();
        for (int[] g : portsTo.get(s)) {
            if (rank[s] != INF && rank[g[0]] < rank[s]) {
                out.add(g[0]);
            }
        }
        return out;
    }

    /** Formulas (1)-(4) for switch s and destination d, or 255. */
    int port(int s, int d) {
        int l = destLeaf[d];
        if (l < 0) {
            return ForwardingTables.NO_ROUTE;
        }
        if (l == s) {
            return destPort[d];
        }
        if (cost[s][l] == INF) {
            return ForwardingTables.NO_ROUTE;
        }
        List<int[]> c = new ArrayList<>();
        for (int[] g : portsTo.get(s)) {
            if (cost[g[0]][l] < cost[s][l]) {
                c.add(g);
            }
        }
        long pi = divider[s];
        int[] g = c.get((int) ((d / pi) % c.size()));
        int size = g.length - 1;
        return g[1 + (int) ((d / (pi * c.size())) % size)];
    }

    /** All tables, switches in ascending GUID order. */
    int[][] tables() {
        int[][] t = new int[guid.length][destinations];
        for (int s = 0; s < guid.length; s++) {
            for (int d = 0; d < destinations; d++) {
                t[s][d] = port(s, d);
            }
        }
        return t;
    }
}
