package org.fabricmanager.routing.dmodc.home;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;

/**
 * {@code dmodc-home}'s rules written plainly, one entry at a time, from Dmodc's routing (its tables, ranks, costs
 * and dividers): the reference {@link HomeDmodcEngineTest} compares the engine with, entry by entry. It shares no
 * code with the pass ({@link HomePlanes}, {@link ExtraSpread}, {@link Pods}): its own pods by a search over the
 * links, closest level-2 switches by comparing costs for each leaf, candidate lists built for every destination,
 * the rotation by pod and formula (4) with plain arithmetic. Slow on purpose; for test fabrics.
 */
final class PlainHome {
    private static final int INF = 127;

    private final FabricIndex index;
    private final DmodcRouting routing;
    private final int[][] table;
    private final List<List<Integer>> byLeaf = new ArrayList<>();
    private final List<TreeSet<Integer>> extras = new ArrayList<>();

    private PlainHome(FabricIndex index, DmodcRouting routing) {
        this.index = index;
        this.routing = routing;
        ForwardingTables dmodc = routing.result().tables();
        table = new int[index.switchCount()][index.destinationCount()];
        for (int s = 0; s < table.length; s++) {
            extras.add(new TreeSet<>());
            for (int d = 0; d < table[s].length; d++) {
                table[s][d] = dmodc.port(s, d);
            }
        }
        for (int l = 0; l < index.leafCount(); l++) {
            byLeaf.add(new ArrayList<>());
        }
        for (int d = 0; d < index.destinationCount(); d++) {
            int leaf = leafOf(d);
            if (leaf >= 0) {
                byLeaf.get(leaf).add(d);
            }
        }
    }

    /** The tables {@code dmodc-home} gives for {@code index}, {@code [switch][destination]}. */
    static int[][] tables(FabricIndex index, DmodcRouting routing) {
        PlainHome plain = new PlainHome(index, routing);
        List<int[][]> pods = plain.pods(0);
        for (int[][] pod : pods) {
            plain.leaves(pod[0], pod[1]);
        }
        for (int[][] plane : plain.pods(1)) {
            for (int u : plane[1]) {
                plain.levelOne(u, plane[0], podNumber(pods, u));
            }
        }
        return plain.table;
    }

    /** Step one, a pod's leaves: each destination to its home when a candidate, else spread by the leaf's number. */
    private void leaves(int[] homes, int[] lower) {
        int n = homes.length;
        if (n == 0 || Arrays.stream(lower).noneMatch(s -> Arrays.stream(homes).allMatch(h -> group(s, h) >= 0))) {
            return;
        }
        for (int s : lower) {
            int k = index.leafNumber(s);
            for (int l = 0; l < index.leafCount(); l++) {
                int own = cost(s, l);
                if (l == k || own == INF || candidateOutside(s, l, homes)) {
                    continue;
                }
                List<Integer> c = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (group(s, homes[i]) >= 0 && cost(homes[i], l) < own) {
                        c.add(i);
                    }
                }
                if (c.isEmpty() || c.size() == n) {
                    continue;
                }
                for (int d : byLeaf.get(l)) {
                    int q = d / routing.divider(s);
                    int home = q % n;
                    if (c.contains(home)) {
                        table[s][d] = port(group(s, homes[home]), q, n);
                    } else {
                        int slot = c.get((int) ((q + (long) k) % c.size()));
                        table[s][d] = port(group(s, homes[slot]), q, c.size());
                        extras.get(homes[slot]).add(d);
                    }
                }
            }
        }
    }

    /** Step two, a level-1 switch: home tops where its list is short, then its extras half a list away. */
    private void levelOne(int u, int[] tops, int rotation) {
        List<Integer> up = new ArrayList<>();
        for (int g = index.groupStart(u); g < index.groupStart(u) + index.groupCount(u); g++) {
            if (routing.rank(index.groupNeighbour(g)) > routing.rank(u)) {
                up.add(g);
            }
        }
        if (up.isEmpty() || up.size() > Long.SIZE) {
            return;
        }
        int n = tops.length;
        boolean planeWide = n <= Long.SIZE;
        int div = routing.divider(u);
        for (int l = 0; planeWide && l < index.leafCount(); l++) {
            List<Integer> c = closestLinked(u, l, tops);
            if (cost(u, l) != closest(l, tops) + 1 || c.isEmpty() || c.size() == n) {
                continue;
            }
            for (int d : byLeaf.get(l)) {
                int q = d / div;
                int home = q % n;
                table[u][d] = c.contains(home) ? port(group(u, tops[home]), q, n)
                        : port(group(u, tops[c.get((int) ((q + (long) rotation) % c.size()))]), q, c.size());
            }
        }
        for (int d : extras.get(u)) {
            int l = leafOf(d);
            int q = d / div;
            int own = cost(u, l);
            List<Integer> c = planeWide ? closestLinked(u, l, tops) : List.of();
            if (planeWide && own == closest(l, tops) + 1 && !c.isEmpty()) {
                int turn = c.size() < n ? rotation : 0;
                int slot = c.get((int) ((q + (long) c.size() / 2 + turn) % c.size()));
                table[u][d] = port(group(u, tops[slot]), q, c.size());
                continue;
            }
            List<Integer> closer = new ArrayList<>();
            for (int g : up) {
                if (cost(index.groupNeighbour(g), l) < own) {
                    closer.add(g);
                }
            }
            if (!closer.isEmpty()) {
                int g = closer.get((int) ((q + (long) closer.size() / 2) % closer.size()));
                table[u][d] = port(g, q, closer.size());
            }
        }
    }

    /** The positions in {@code tops} of those closest to leaf {@code l} that {@code u} is linked to. */
    private List<Integer> closestLinked(int u, int l, int[] tops) {
        List<Integer> c = new ArrayList<>();
        int best = closest(l, tops);
        for (int i = 0; i < tops.length; i++) {
            if (best != INF && cost(tops[i], l) == best && group(u, tops[i]) >= 0) {
                c.add(i);
            }
        }
        return c;
    }

    private int closest(int l, int[] tops) {
        int best = INF;
        for (int t : tops) {
            best = Math.min(best, cost(t, l));
        }
        return best;
    }

    private boolean candidateOutside(int s, int l, int[] homes) {
        for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
            int v = index.groupNeighbour(g);
            if (Arrays.stream(homes).noneMatch(h -> h == v) && cost(v, l) < cost(s, l)) {
                return true;
            }
        }
        return false;
    }

    /** Formula (4): port {@code ⌊q / n⌋ mod size} of group {@code g}. */
    private int port(int g, int q, int n) {
        return index.groupPort(g, (q / n) % index.groupSize(g));
    }

    /** The group of {@code s} leading to {@code v}, or -1. */
    private int group(int s, int v) {
        for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
            if (index.groupNeighbour(g) == v) {
                return g;
            }
        }
        return -1;
    }

    private int cost(int s, int l) {
        return routing.costs().cost(s, l);
    }

    private int leafOf(int d) {
        int pos = index.nodeByDestination(d);
        int leaf = pos < 0 ? -1 : index.nodeLeaf(pos);
        return leaf < 0 ? -1 : index.leafNumber(leaf);
    }

    /**
     * The pods above rank {@code r}: switches of ranks {@code r} and {@code r + 1} joined by links between the two,
     * found by a search from each rank-{@code r + 1} switch in id order (so numbered by their first such switch);
     * each as {@code {upper, lower}}, both in id order.
     */
    private List<int[][]> pods(int r) {
        int[] seen = new int[index.switchCount()];
        Arrays.fill(seen, -1);
        List<int[][]> pods = new ArrayList<>();
        for (int start = 0; start < seen.length; start++) {
            if (routing.rank(start) != r + 1 || seen[start] >= 0) {
                continue;
            }
            TreeSet<Integer> upper = new TreeSet<>();
            TreeSet<Integer> lower = new TreeSet<>();
            List<Integer> todo = new ArrayList<>(List.of(start));
            seen[start] = pods.size();
            while (!todo.isEmpty()) {
                int s = todo.remove(todo.size() - 1);
                (routing.rank(s) == r ? lower : upper).add(s);
                for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
                    int v = index.groupNeighbour(g);
                    int rv = routing.rank(v);
                    if (seen[v] < 0 && (rv == r || rv == r + 1) && rv != routing.rank(s)) {
                        seen[v] = pods.size();
                        todo.add(v);
                    }
                }
            }
            pods.add(new int[][] {upper.stream().mapToInt(Integer::intValue).toArray(),
                    lower.stream().mapToInt(Integer::intValue).toArray()});
        }
        return pods;
    }

    /** The number of the pod (above the leaves) whose upper switches hold {@code u}, or 0. */
    private static int podNumber(List<int[][]> pods, int u) {
        for (int p = 0; p < pods.size(); p++) {
            if (Arrays.stream(pods.get(p)[0]).anyMatch(s -> s == u)) {
                return p;
            }
        }
        return 0;
    }
}
