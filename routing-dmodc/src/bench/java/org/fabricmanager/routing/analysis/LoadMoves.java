package org.fabricmanager.routing.analysis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * An experiment, not an engine: tables improved the way dfsssp balances, by the all-to-all load of every link, to
 * see what such weights give and cost against {@code dmodc-home}'s rules ({@link BalanceSweepBenchmark#weighted}).
 * A move takes the routes towards one destination that some switches send to one neighbour above and sends them to
 * another neighbour above that is as close to the destination, when the busiest link of the new paths would carry
 * fewer routes than the busiest of the old ones. Two kinds, in rounds: a pod's leaves move a destination together
 * (so it still comes down one path from the whole pod), and a level-1 switch moves it alone. Every entry stays a
 * shortest up*&#47;down* choice, so the tables stay valid and deadlock-free. With {@link #limitShift}, a move is
 * also refused when it would put more routes of one shift permutation on a link than a cap (the candidates are then
 * tried from the least busy bottleneck on). Plain loops and quadratic searches: for the 4,096-node sweep only.
 */
final class LoadMoves {
    private final FabricIndex index;
    private final byte[][] rows;
    private final int[] ranks;
    /** Per switch and port, the link group (the directed link's id here). */
    private final int[][] groupOf;
    /** Per leaf number and switch, the hops between them. */
    private final int[][] hops;
    private final int[] destinationLeaf;
    private final int[] leafNodes;
    /** Per link group, the all-to-all routes it carries. */
    private final long[] load;
    /** Per switch and destination, the sources whose route to it crosses the switch. */
    private final int[][] through;
    private final int[] oldPath = new int[32];
    private final int[] newPath = new int[32];
    /** Per destination, its position among the attached destinations (the shift patterns' numbering). */
    private final int[] position;
    /** Per shift {@code k} (1..n-1) and link group, the routes of that shift permutation on it; null: no limit. */
    private byte[][] shiftLoad;
    private int shiftCap;

    LoadMoves(FabricIndex index, ForwardingTables tables) {
        this.index = index;
        int switches = index.switchCount();
        int leaves = index.leafCount();
        int destinations = tables.destinationCount();
        this.ranks = Ranking.fromSources(index, index.leaves());
        this.rows = new byte[switches][];
        this.groupOf = new int[switches][256];
        for (int s = 0; s < switches; s++) {
            rows[s] = tables.copyRow(s);
            Arrays.fill(groupOf[s], -1);
            for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
                for (int i = 0; i < index.groupSize(g); i++) {
                    groupOf[s][index.groupPort(g, i)] = g;
                }
            }
        }
        this.hops = new int[leaves][];
        for (int l = 0; l < leaves; l++) {
            hops[l] = distancesFrom(index.leaves()[l]);
        }
        this.destinationLeaf = new int[destinations];
        Arrays.fill(destinationLeaf, -1);
        this.leafNodes = new int[leaves];
        int[] nodes = index.leafNodeArray();
        for (int l = 0; l < leaves; l++) {
            leafNodes[l] = index.leafNodeStart(l + 1) - index.leafNodeStart(l);
            for (int i = index.leafNodeStart(l); i < index.leafNodeStart(l + 1); i++) {
                destinationLeaf[index.nodeIndex(nodes[i])] = l;
            }
        }
        this.position = new int[destinations];
        for (int d = 0, p = 0; d < destinations; d++) {
            position[d] = destinationLeaf[d] < 0 ? -1 : p++;
        }
        int lastSwitch = switches - 1;
        this.load = new long[index.groupStart(lastSwitch) + index.groupCount(lastSwitch)];
        this.through = new int[switches][destinations];
        for (int d = 0; d < destinations; d++) {
            for (int l = 0; destinationLeaf[d] >= 0 && l < leaves; l++) {
                if (l != destinationLeaf[d]) {
                    through[index.leaves()[l]][d] += leafNodes[l];
                    add(d, oldPath, onward(index.leaves()[l], d, oldPath), leafNodes[l]);
                }
            }
        }
    }

    /** The tables as moved so far. */
    ForwardingTables tables() {
        long[] guids = new long[rows.length];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        return ForwardingTables.ofRows(guids, rows, destinationLeaf.length);
    }

    /**
     * From now on, a move is made only if no link carries more than {@code cap} routes of any shift permutation
     * after it (a link already above keeps what it has but gets no more): the shift order kept by load alone.
     */
    void limitShift(int cap) {
        int n = (int) Arrays.stream(position).filter(p -> p >= 0).count();
        shiftLoad = new byte[n][load.length];
        shiftCap = cap;
        for (int d = 0; d < destinationLeaf.length; d++) {
            for (int l = 0; destinationLeaf[d] >= 0 && l < leafNodes.length; l++) {
                if (l != destinationLeaf[d]) {
                    int count = onward(index.leaves()[l], d, oldPath);
                    for (int i = index.leafNodeStart(l); i < index.leafNodeStart(l + 1); i++) {
                        byte[] row = shiftLoad[shift(i, d)];
                        for (int j = 0; j < count; j++) {
                            row[oldPath[j]]++;
                        }
                    }
                }
            }
        }
    }

    /** The shift permutation in which node {@code i} (of the leaf node array) sends to {@code d}. */
    private int shift(int i, int d) {
        int n = shiftLoad.length;
        return Math.floorMod(position[d] - position[index.nodeIndex(index.leafNodeArray()[i])], n);
    }

    /**
     * Whether moving {@code d} at {@code members} to {@code next} keeps every shift's load within the cap; with
     * {@code apply}, makes the move's shift loads (before the rows change).
     */
    private boolean shiftAllows(int[] members, int d, int next, boolean apply) {
        if (shiftLoad == null) {
            return true;
        }
        int[] from = new int[32];
        int[] to = new int[32];
        for (int l = 0; l < leafNodes.length; l++) {
            if (l == destinationLeaf[d]) {
                continue;
            }
            int u = index.leaves()[l];
            int count = onward(u, d, from);
            int at = -1;
            for (int j = -1; j < count && at < 0; j++) {
                int sw = j < 0 ? u : index.groupNeighbour(from[j]);
                for (int m : members) {
                    at = sw == m ? j + 1 : at;
                }
            }
            if (at < 0) {
                continue;
            }
            int sw = at == 0 ? u : index.groupNeighbour(from[at - 1]);
            to[0] = groupTo(sw, next);
            int newCount = 1 + onward(next, d, tail);
            System.arraycopy(tail, 0, to, 1, newCount - 1);
            for (int i = index.leafNodeStart(l); i < index.leafNodeStart(l + 1); i++) {
                byte[] row = shiftLoad[shift(i, d)];
                for (int j = 0; j < newCount; j++) {
                    if (!contains(from, at, count, to[j])) {
                        if (!apply && row[to[j]] + 1 > shiftCap) {
                            return false;
                        }
                        row[to[j]] += apply ? 1 : 0;
                    }
                }
                for (int j = at; apply && j < count; j++) {
                    if (!contains(to, 0, newCount, from[j])) {
                        row[from[j]]--;
                    }
                }
            }
        }
        return true;
    }

    private final int[] tail = new int[32];

    private static boolean contains(int[] a, int from, int to, int v) {
        for (int i = from; i < to; i++) {
            if (a[i] == v) {
                return true;
            }
        }
        return false;
    }

    /** One round of moves by the leaves of each pod together; returns how many were made. */
    int podRound() {
        int moves = 0;
        for (int[] pod : pods()) {
            for (int d = 0; d < destinationLeaf.length; d++) {
                int target = destinationLeaf[d] < 0 ? -1 : index.leaves()[destinationLeaf[d]];
                if (target < 0 || Arrays.stream(pod).anyMatch(s -> s == target)) {
                    continue;
                }
                Map<Integer, List<Integer>> byNext = new TreeMap<>();
                for (int s : pod) {
                    int g = groupOf[s][rows[s][d] & 0xff];
                    if (g >= 0) {
                        byNext.computeIfAbsent(index.groupNeighbour(g), k -> new ArrayList<>()).add(s);
                    }
                }
                for (List<Integer> members : byNext.values()) {
                    moves += move(members.stream().mapToInt(Integer::intValue).toArray(), d) ? 1 : 0;
                }
            }
        }
        return moves;
    }

    /** One round of moves by each switch of {@code rank} alone; returns how many were made. */
    int switchRound(int rank) {
        int moves = 0;
        for (int u = 0; u < rows.length; u++) {
            for (int d = 0; ranks[u] == rank && d < destinationLeaf.length; d++) {
                moves += through[u][d] > 0 && move(new int[] {u}, d) ? 1 : 0;
            }
        }
        return moves;
    }

    /**
     * Moves destination {@code d} of {@code members} (all sending it to one neighbour above) to the neighbour above
     * whose paths have the least busy bottleneck, if that is below the old paths'.
     */
    private boolean move(int[] members, int d) {
        int first = members[0];
        int g0 = groupOf[first][rows[first][d] & 0xff];
        int v = index.groupNeighbour(g0);
        int leaf = destinationLeaf[d];
        if (ranks[v] <= ranks[first]) {
            return false;
        }
        int weight = 0;
        long oldBottleneck = 0;
        for (int s : members) {
            weight += through[s][d];
            oldBottleneck = Math.max(oldBottleneck, load[groupOf[s][rows[s][d] & 0xff]]);
        }
        int oldCount = onward(v, d, oldPath);
        for (int i = 0; i < oldCount; i++) {
            oldBottleneck = Math.max(oldBottleneck, load[oldPath[i]]);
        }
        long best = oldBottleneck;
        int bestNext = -1;
        List<long[]> better = new ArrayList<>();
        for (int g = index.groupStart(first); g < index.groupStart(first) + index.groupCount(first); g++) {
            int next = index.groupNeighbour(g);
            if (next == v || ranks[next] <= ranks[first] || hops[leaf][next] != hops[leaf][first] - 1) {
                continue;
            }
            long bottleneck = 0;
            for (int s : members) {
                int to = groupTo(s, next);
                bottleneck = to < 0 ? Long.MAX_VALUE : Math.max(bottleneck, load[to] + through[s][d]);
            }
            int count = onward(next, d, newPath);
            for (int i = 0; i < count && bottleneck < best; i++) {
                boolean shared = false;
                for (int j = 0; j < oldCount; j++) {
                    shared |= oldPath[j] == newPath[i];
                }
                bottleneck = Math.max(bottleneck, load[newPath[i]] + (shared ? 0 : weight));
            }
            if (bottleneck < best) {
                better.add(new long[] {bottleneck, next});
            }
        }
        better.sort((a, b) -> Long.compare(a[0], b[0])); // stable: ties keep the port order
        for (int i = 0; i < better.size() && bestNext < 0; i++) {
            bestNext = shiftAllows(members, d, (int) better.get(i)[1], false) ? (int) better.get(i)[1] : -1;
        }
        if (bestNext < 0) {
            return false;
        }
        shiftAllows(members, d, bestNext, true);
        for (int s : members) {
            int w = through[s][d];
            load[groupOf[s][rows[s][d] & 0xff]] -= w;
            int to = groupTo(s, bestNext);
            load[to] += w;
            rows[s][d] = (byte) index.groupPort(to, 0);
        }
        through[v][d] -= weight;
        add(d, oldPath, oldCount, -weight);
        through[bestNext][d] += weight;
        add(d, newPath, onward(bestNext, d, newPath), weight);
        return true;
    }

    /** Adds {@code w} routes to {@code d} along {@code path}'s {@code n} links and the switches they reach. */
    private void add(int d, int[] path, int n, int w) {
        int target = index.leaves()[destinationLeaf[d]];
        for (int i = 0; i < n; i++) {
            load[path[i]] += w;
            int next = index.groupNeighbour(path[i]);
            if (next != target) {
                through[next][d] += w;
            }
        }
    }

    /** The links from {@code u} on to {@code d}'s leaf by the tables; their count. */
    private int onward(int u, int d, int[] out) {
        int n = 0;
        int target = index.leaves()[destinationLeaf[d]];
        while (u != target && n < out.length) {
            int g = groupOf[u][rows[u][d] & 0xff];
            if (g < 0) {
                break;
            }
            out[n++] = g;
            u = index.groupNeighbour(g);
        }
        return n;
    }

    private int groupTo(int s, int v) {
        for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
            if (index.groupNeighbour(g) == v) {
                return g;
            }
        }
        return -1;
    }

    /** The leaves joined through the switches just above them, each pod's leaf switches. */
    private List<int[]> pods() {
        int[] pod = new int[rows.length];
        Arrays.fill(pod, -1);
        List<int[]> pods = new ArrayList<>();
        for (int start : index.leaves()) {
            if (pod[start] >= 0) {
                continue;
            }
            List<Integer> members = new ArrayList<>();
            ArrayDeque<Integer> todo = new ArrayDeque<>(List.of(start));
            pod[start] = pods.size();
            while (!todo.isEmpty()) {
                int s = todo.poll();
                if (index.isLeaf(s)) {
                    members.add(s);
                }
                for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
                    int v = index.groupNeighbour(g);
                    if (pod[v] < 0 && ranks[v] <= 1 && ranks[v] != ranks[s]) {
                        pod[v] = pods.size();
                        todo.add(v);
                    }
                }
            }
            pods.add(members.stream().mapToInt(Integer::intValue).sorted().toArray());
        }
        return pods;
    }

    private int[] distancesFrom(int leaf) {
        int[] distance = new int[rows.length];
        Arrays.fill(distance, Integer.MAX_VALUE);
        distance[leaf] = 0;
        ArrayDeque<Integer> todo = new ArrayDeque<>(List.of(leaf));
        while (!todo.isEmpty()) {
            int u = todo.poll();
            for (int g = index.groupStart(u); g < index.groupStart(u) + index.groupCount(u); g++) {
                int v = index.groupNeighbour(g);
                if (distance[v] == Integer.MAX_VALUE) {
                    distance[v] = distance[u] + 1;
                    todo.add(v);
                }
            }
        }
        return distance;
    }
}
