package org.fabricmanager.routing.dmodc.plain;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/**
 * Dmodc written straight from the paper and {@code docs/formats.md}, sharing no code with the {@code dmodc}
 * engine (not even {@code FabricIndex}): ranks by BFS from the leaves, Procedure 1 in its push form with int
 * costs and long dividers, then formulas (1)-(4) entry by entry. It is the map a reader follows before the
 * engine's shortcuts, the oracle the engine's tests compare against, and the engine {@code dmodc-plain}.
 *
 * <p>Plain means quadratic: the cost table holds one int per pair of switches (100 MB at 5,120 switches) and
 * Procedure 1 walks every leaf for every up link. The one concession to size is that the candidate groups of
 * formula (2) are found once per switch and destination leaf, not once per destination.
 *
 * <p>With an LMC ({@link Fabric#lmc()}), each LID of a node is a destination of its own, {@code d = (index << lmc) |
 * pathBits}: the path bits are the low bits of {@code d}, so that formula (3) at a leaf sends the LIDs of one node
 * through consecutive candidate groups, distinct ones where there are enough.
 */
public final class PlainDmodc {
    /** An unreachable cost. */
    public static final int INF = Integer.MAX_VALUE;

    private final long[] guid;                 // switch ids by ascending unsigned GUID
    private final Map<Long, Integer> idOf = new TreeMap<>();
    private final List<List<int[]>> portsTo;   // per switch: groups {neighbour, port, port, ...} by neighbour GUID
    private final int[] rank;
    private final boolean[] leaf;
    private final int[] leaves;                // leaf switch ids, ascending
    private final int[][] cost;                // [switch][leaf switch] hops down to that leaf, INF if none
    private final long[] divider;
    private final int destinations;
    private final int lmc;                     // each node answers to 2^lmc LIDs: destinations (index << lmc) | bits
    private final int[] destLeaf;              // per destination index: its leaf switch id, or -1
    private final int[] destPort;              // per destination index: its port on that leaf

    /** Ranks, costs and dividers of {@code fabric}; routes are computed on demand. */
    public PlainDmodc(Fabric fabric) {
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
        lmc = fabric.lmc();
        destinations = maxIndex + 1 << lmc;
        destLeaf = new int[destinations];
        destPort = new int[destinations];
        Arrays.fill(destLeaf, -1);
        leaf = new boolean[n];
        portsTo = groupPorts(fabric, nodeIndex, n);
        leaves = leafIds();
        rank = ranks();
        cost = new int[n][];
        divider = new long[n];
        procedureOne();
    }

    /** Port groups per switch, by neighbour GUID; attaches end nodes to their leaves on the way. */
    private List<List<int[]>> groupPorts(Fabric fabric, Map<Long, Integer> nodeIndex, int n) {
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
        List<List<int[]>> groups = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<int[]> of = new ArrayList<>();
            for (Map.Entry<Long, List<Integer>> e : byNeighbour.get(i).entrySet()) {
                List<Integer> ports = new ArrayList<>(e.getValue());
                ports.sort(Integer::compare);
                int[] g = new int[ports.size() + 1];
                g[0] = idOf.get(e.getKey());
                for (int k = 0; k < ports.size(); k++) {
                    g[k + 1] = ports.get(k);
                }
                of.add(g);
            }
            groups.add(of);
        }
        return groups;
    }

    /** The node of destination index {@code index} is on {@code port} of {@code s}: so is each of its LIDs. */
    private void attach(int s, int port, int index) {
        leaf[s] = true;
        for (int bits = 0; bits < 1 << lmc; bits++) {
            destLeaf[index << lmc | bits] = s;
            destPort[index << lmc | bits] = port;
        }
    }

    private int[] leafIds() {
        return IntStream.range(0, leaf.length).filter(i -> leaf[i]).toArray();
    }

    /** Ranks: BFS from all leaves at once; a switch no leaf reaches keeps {@link #INF}. */
    private int[] ranks() {
        int[] r = new int[leaf.length];
        Arrays.fill(r, INF);
        List<Integer> queue = new ArrayList<>();
        for (int l : leaves) {
            r[l] = 0;
            queue.add(l);
        }
        for (int h = 0; h < queue.size(); h++) {
            int s = queue.get(h);
            for (int[] g : portsTo.get(s)) {
                if (r[g[0]] == INF) {
                    r[g[0]] = r[s] + 1;
                    queue.add(g[0]);
                }
            }
        }
        return r;
    }

    /**
     * Procedure 1 in its push form: going up by rank, each switch offers its costs plus one to its up
     * neighbours and raises their divider to its own times its number of up neighbours; then going down,
     * each switch offers its costs plus one to its down neighbours.
     */
    private void procedureOne() {
        int n = leaf.length;
        for (int s = 0; s < n; s++) {
            cost[s] = new int[leaves.length];
            Arrays.fill(cost[s], INF);
            divider[s] = 1;
        }
        for (int k = 0; k < leaves.length; k++) {
            cost[leaves[k]][k] = 0;
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> rank[i]));
        for (int s : order) {
            List<Integer> up = up(s);
            long pi = divider[s] * up.size();
            for (int t : up) {
                offer(s, t);
                divider[t] = Math.max(divider[t], pi);
            }
        }
        for (int k = n - 1; k >= 0; k--) {
            int s = order[k];
            if (!leaf[s]) {
                for (int t : down(s)) {
                    offer(s, t);
                }
            }
        }
    }

    /** {@code t} learns every leaf {@code s} reaches, one hop further, where that is shorter. */
    private void offer(int s, int t) {
        for (int k = 0; k < leaves.length; k++) {
            if (cost[s][k] != INF && cost[s][k] + 1 < cost[t][k]) {
                cost[t][k] = cost[s][k] + 1;
            }
        }
    }

    private List<Integer> up(int s) {
        List<Integer> out = new ArrayList<>();
        for (int[] g : portsTo.get(s)) {
            if (rank[s] != INF && rank[g[0]] != INF && rank[g[0]] > rank[s]) {
                out.add(g[0]);
            }
        }
        return out;
    }

    private List<Integer> down(int s) {
        List<Integer> out = new ArrayList<>();
        for (int[] g : portsTo.get(s)) {
            if (rank[s] != INF && rank[g[0]] < rank[s]) {
                out.add(g[0]);
            }
        }
        return out;
    }

    /** Switches, in ascending GUID order (the order of {@link #tables()}'s rows). */
    public int switchCount() {
        return guid.length;
    }

    /** GUID of switch {@code s}. */
    public long switchGuid(int s) {
        return guid[s];
    }

    /** Destination indices routed ((the highest end node index plus one) times 2^lmc). */
    public int destinationCount() {
        return destinations;
    }

    /** Procedure 1's cost from switch {@code s} down to switch {@code target}, {@link #INF} if none or not a leaf. */
    public int cost(int s, int target) {
        int k = Arrays.binarySearch(leaves, target);
        return k < 0 ? INF : cost[s][k];
    }

    /** Procedure 1's divider of switch {@code s}. */
    public long divider(int s) {
        return divider[s];
    }

    /** Formula (2): the groups of {@code s} whose neighbour is closer to leaf number {@code k}. */
    private List<int[]> candidates(int s, int k) {
        List<int[]> c = new ArrayList<>();
        for (int[] g : portsTo.get(s)) {
            if (cost[g[0]][k] < cost[s][k]) {
                c.add(g);
            }
        }
        return c;
    }

    /** Formulas (1)-(4) for switch {@code s} and destination {@code d}, or {@link ForwardingTables#NO_ROUTE}. */
    public int port(int s, int d) {
        int l = destLeaf[d];
        if (l < 0) {
            return ForwardingTables.NO_ROUTE;
        }
        if (l == s) {
            return destPort[d];
        }
        int k = Arrays.binarySearch(leaves, l);
        return cost[s][k] == INF ? ForwardingTables.NO_ROUTE : port(s, d, candidates(s, k));
    }

    /** Formulas (3) and (4): the group by the destination over the divider, then the port within the group. */
    private int port(int s, int d, List<int[]> c) {
        long pi = divider[s];
        int[] g = c.get((int) ((d / pi) % c.size()));
        int size = g.length - 1;
        return g[1 + (int) ((d / (pi * c.size())) % size)];
    }

    /** Every table, {@code [switch][destination]}, switches in ascending GUID order. */
    public int[][] tables() {
        int[][] t = new int[guid.length][];
        for (int s = 0; s < guid.length; s++) {
            t[s] = row(s);
        }
        return t;
    }

    /** The table of switch {@code s}: {@link #port(int, int)} of every destination. */
    public int[] row(int s) {
        int[] row = new int[destinations];
        Arrays.fill(row, ForwardingTables.NO_ROUTE);
        List<List<int[]>> byLeaf = new ArrayList<>();
        for (int k = 0; k < leaves.length; k++) {
            byLeaf.add(leaves[k] == s || cost[s][k] == INF ? null : candidates(s, k));
        }
        for (int d = 0; d < destinations; d++) {
            int l = destLeaf[d];
            if (l == s) {
                row[d] = destPort[d];
            } else if (l >= 0) {
                List<int[]> c = byLeaf.get(Arrays.binarySearch(leaves, l));
                if (c != null) {
                    row[d] = port(s, d, c);
                }
            }
        }
        return row;
    }
}
