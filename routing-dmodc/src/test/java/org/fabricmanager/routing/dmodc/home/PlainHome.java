package org.fabricmanager.routing.dmodc.home;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
        int widest = 0;
        for (int[][] pod : pods) {
            for (int s : pod[1]) {
                widest = Math.max(widest, (int) Arrays.stream(pod[0]).filter(h -> h >= 0 && plain.group(s, h) >= 0)
                        .count());
            }
        }
        List<Integer> routed = new ArrayList<>();
        for (int p = 0; p < pods.size(); p++) {
            if (Arrays.stream(pods.get(p)[0]).filter(h -> h >= 0).count() <= widest) {
                routed.add(p);
            }
        }
        PlainDetours detours = new PlainDetours(index, routing, pods, routed);
        for (int p : routed) {
            plain.leaves(p, pods.get(p)[0], pods.get(p)[1], detours);
        }
        int[] leafPod = new int[index.leafCount()];
        Arrays.fill(leafPod, -1);
        for (int p = 0; p < pods.size(); p++) {
            for (int s : pods.get(p)[1]) {
                leafPod[index.leafNumber(s)] = p;
            }
        }
        for (int[][] plane : plain.pods(1)) {
            int[] down = new int[plane[0].length * (pods.size() + 1)];
            List<LevelOne> switches = new ArrayList<>();
            for (int u : plane[1]) {
                int p = podNumber(pods, u);
                int[] homes = p < 0 ? new int[0] : pods.get(p)[0];
                int present = (int) Arrays.stream(homes).filter(h -> h >= 0).count();
                LevelOne one = plain.new LevelOne(u, plane[0], p, homes.length, present, leafPod, down);
                if (one.up.isEmpty() || one.up.size() > Long.SIZE) {
                    continue;
                }
                one.count();
                switches.add(one);
            }
            for (LevelOne one : switches) {
                one.route();
            }
        }
        return plain.table;
    }

    /**
     * Step one, the leaves of a pod with no more level-1 switches than any leaf is linked to in its pod: each
     * destination to its home when a candidate (or to its detour, {@link PlainDetours}), else by the pod's shares
     * ({@link PlainShares}).
     */
    private void leaves(int p, int[] homes, int[] lower, PlainDetours detours) {
        int n = homes.length;
        if (n == 0) {
            return;
        }
        int inside = 0;
        for (int s : lower) {
            inside += byLeaf.get(index.leafNumber(s)).size();
        }
        PlainShares shares = n <= Long.SIZE
                ? new PlainShares(index, routing, homes, index.destinationCount() - inside) : null;
        for (int s : lower) {
            int k = index.leafNumber(s);
            if (shares != null) {
                shares.startLeaf(Arrays.stream(homes).map(h -> h >= 0 && group(s, h) >= 0 ? 1 : 0).toArray(), k);
            }
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
                if (c.isEmpty()) {
                    continue;
                }
                for (int d : byLeaf.get(l)) {
                    int q = d / routing.divider(s);
                    int home = q % n;
                    int detour = shares == null || !c.contains(home) ? -1 : detours.detour(k, p, l, home, c);
                    if (detour >= 0) {
                        shares.take(detour, d);
                        table[s][d] = port(group(s, homes[detour]), q, c.size());
                        extras.get(homes[detour]).add(d);
                    } else if (c.contains(home)) {
                        if (c.size() < n) {
                            table[s][d] = port(group(s, homes[home]), q, n);
                        }
                    } else {
                        int slot = shares == null ? -1 : shares.choose(c, d);
                        slot = slot >= 0 ? slot : c.get((int) ((q + (long) k) % c.size()));
                        if (shares != null) {
                            shares.take(slot, d);
                        }
                        table[s][d] = port(group(s, homes[slot]), q, c.size());
                        extras.get(homes[slot]).add(d);
                    }
                }
            }
        }
    }

    /**
     * Step two, a level-1 switch: home tops where its list is short, then its extras half a list away. When its pod
     * misses level-1 switches ({@code present} of {@code positions}), Dmodc's divider is scaled to the positions
     * and every destination it sends up takes its home top by it. A home destination whose home top is not a
     * candidate takes a stand-in, one per leaf and {@code ⌊d/Π⌋}: of the candidates no stand-in of the last
     * {@code n} leaves took, the one with the fewest leaves' homes and stand-ins on its link up plus the plane's on
     * its link down to the leaf's pod ({@link #count}, then each stand-in), the formula's among equals.
     */
    private final class LevelOne {
        final int u;
        final int[] tops;
        final int pod;
        final int rotation;
        final int n;
        final boolean planeWide;
        final boolean widened;
        final int div;
        final List<Integer> up = new ArrayList<>();
        final int[] leafPod;
        /** Per top position and leaf pod, the plane's whole destinations down that link. */
        final int[] down;
        final int[] load;
        final int[] last;

        LevelOne(int u, int[] tops, int pod, int positions, int present, int[] leafPod, int[] down) {
            this.u = u;
            this.tops = tops;
            this.pod = pod;
            this.rotation = Math.max(pod, 0);
            this.n = tops.length;
            this.leafPod = leafPod;
            this.down = down;
            for (int g = index.groupStart(u); g < index.groupStart(u) + index.groupCount(u); g++) {
                int rank = routing.rank(index.groupNeighbour(g));
                if (rank > routing.rank(u)) {
                    up.add(g);
                }
            }
            this.planeWide = n <= Long.SIZE;
            this.widened = present < positions;
            this.div = widened ? (int) Math.ceil((double) routing.divider(u) * positions / present)
                    : routing.divider(u);
            this.load = new int[n];
            this.last = new int[n];
            Arrays.fill(last, Integer.MIN_VALUE / 2);
        }

        /**
         * Per top position, the leaves (not of this switch's pod) whose first destination's home top it is and a
         * candidate here; added to {@link #down} per position and the leaf's pod.
         */
        void count() {
            for (int l = 0; planeWide && l < index.leafCount(); l++) {
                if (byLeaf.get(l).isEmpty() || leafPod[l] == pod) {
                    continue;
                }
                int h = byLeaf.get(l).get(0) / div % n;
                if (closestLinked(u, l, tops).contains(h)) {
                    load[h]++;
                    down[h * downPods() + leafPod[l] + 1]++;
                }
            }
        }

        void route() {
            for (int l = 0; planeWide && l < index.leafCount(); l++) {
                List<Integer> c = closestLinked(u, l, tops);
                if (cost(u, l) != closest(l, tops) + 1 || c.isEmpty() || c.size() == n && !widened) {
                    continue;
                }
                int previous = -1;
                int chosen = -1;
                for (int d : byLeaf.get(l)) {
                    int q = d / div;
                    int home = q % n;
                    if (c.contains(home)) {
                        table[u][d] = port(group(u, tops[home]), q, n);
                        continue;
                    }
                    if (q != previous) {
                        chosen = standIn(l, c, q);
                        previous = q;
                    }
                    table[u][d] = port(group(u, tops[chosen]), q, c.size());
                }
            }
            for (int d : extras.get(u)) {
                int l = leafOf(d);
                int q = d / div;
                int own = cost(u, l);
                List<Integer> c = planeWide ? closestLinked(u, l, tops) : List.of();
                if (planeWide && own == closest(l, tops) + 1 && !c.isEmpty()) {
                    int position = extraPosition(c, q);
                    table[u][d] = port(group(u, tops[position]), q, c.contains((int) ((q + (long) n / 2) % n))
                            ? n : c.size());
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

        private int extraPosition(List<Integer> c, int q) {
            long half = q + (long) n / 2;
            int position = (int) (half % n);
            return c.contains(position) ? position : PlainHome.standIn(c, n, half, rotation, c.size() / 2);
        }

        private int standIn(int l, List<Integer> c, int q) {
            int best = PlainHome.standIn(c, n, q, rotation, 0);
            List<Integer> free = c.stream().filter(i -> l - last[i] >= n).toList();
            if (!free.isEmpty()) {
                if (!free.contains(best)) {
                    best = free.get(0);
                }
                for (int i : free) {
                    if (weightOn(i, l) < weightOn(best, l)) {
                        best = i;
                    }
                }
            }
            load[best]++;
            down[best * downPods() + leafPod[l] + 1]++;
            last[best] = l;
            return best;
        }

        private long weightOn(int position, int l) {
            return load[position] + down[position * downPods() + leafPod[l] + 1];
        }

        private int downPods() {
            return down.length / n;
        }
    }

    /**
     * The position standing in for value {@code v}, whose position {@code v mod n} is not among {@code c}: the
     * missing positions numbered in order of {@code v} (all of earlier rounds, then those before it in this one),
     * turned by {@code rotation} times their count and {@code offset}, over {@code c}.
     */
    private static int standIn(List<Integer> c, int n, long v, int rotation, int offset) {
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (!c.contains(i)) {
                missing.add(i);
            }
        }
        long t = v / n * missing.size() + missing.indexOf((int) (v % n));
        return c.get((int) ((t + (long) rotation * missing.size() + offset) % c.size()));
    }

    /** The positions in {@code tops} of those closest to leaf {@code l} that {@code u} is linked to. */
    private List<Integer> closestLinked(int u, int l, int[] tops) {
        List<Integer> c = new ArrayList<>();
        int best = closest(l, tops);
        for (int i = 0; i < tops.length; i++) {
            if (best != INF && tops[i] >= 0 && cost(tops[i], l) == best && group(u, tops[i]) >= 0) {
                c.add(i);
            }
        }
        return c;
    }

    private int closest(int l, int[] tops) {
        int best = INF;
        for (int t : tops) {
            best = t < 0 ? best : Math.min(best, cost(t, l));
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
        placeByPorts(r, pods);
        return pods;
    }

    /**
     * Pods with fewer upper switches than rank {@code r}'s distinct up ports (the first port of each link group
     * from rank {@code r} up), when those are as many as the widest pod's upper switches: each upper switch at the
     * position of the port its lower switches reach it on, -1 where none is, when every one is reached on one
     * port, no two on the same, ascending with id.
     */
    private void placeByPorts(int r, List<int[][]> pods) {
        TreeSet<Integer> ports = new TreeSet<>();
        int widest = 0;
        for (int[][] pod : pods) {
            widest = Math.max(widest, pod[0].length);
            for (int s : pod[1]) {
                for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
                    if (routing.rank(index.groupNeighbour(g)) == r + 1) {
                        ports.add(firstPort(g));
                    }
                }
            }
        }
        if (ports.size() > Long.SIZE || ports.size() != widest) {
            return;
        }
        List<Integer> order = new ArrayList<>(ports);
        for (int[][] pod : pods) {
            if (pod[0].length == order.size()) {
                continue;
            }
            Map<Integer, Integer> position = new HashMap<>();
            boolean ok = true;
            for (int s : pod[1]) {
                for (int g = index.groupStart(s); g < index.groupStart(s) + index.groupCount(s); g++) {
                    int v = index.groupNeighbour(g);
                    if (Arrays.stream(pod[0]).anyMatch(u -> u == v)) {
                        int at = order.indexOf(firstPort(g));
                        ok &= position.getOrDefault(v, at) == at;
                        position.put(v, at);
                    }
                }
            }
            for (int i = 0; ok && i < pod[0].length; i++) {
                ok = position.containsKey(pod[0][i])
                        && (i == 0 || position.get(pod[0][i]) > position.get(pod[0][i - 1]));
            }
            if (ok) {
                int[] placed = new int[order.size()];
                Arrays.fill(placed, -1);
                for (int u : pod[0]) {
                    placed[position.get(u)] = u;
                }
                pod[0] = placed;
            }
        }
    }

    private int firstPort(int g) {
        int first = Integer.MAX_VALUE;
        for (int i = 0; i < index.groupSize(g); i++) {
            first = Math.min(first, index.groupPort(g, i));
        }
        return first;
    }

    /** The number of the pod (above the leaves) whose upper switches hold {@code u}, or -1. */
    private static int podNumber(List<int[][]> pods, int u) {
        for (int p = 0; p < pods.size(); p++) {
            if (Arrays.stream(pods.get(p)[0]).anyMatch(s -> s == u)) {
                return p;
            }
        }
        return -1;
    }
}
