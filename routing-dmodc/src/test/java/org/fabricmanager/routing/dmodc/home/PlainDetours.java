package org.fabricmanager.routing.dmodc.home;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;

/**
 * The detours of weak homes for {@link PlainHome}: {@link Detours}' rule written plainly, sharing no code with it.
 * A home whose switch has fewer ports up than its pod's most ({@code top}), at a position where some pod of its width
 * has that many, gets, per leaf, a different linked switch with more (fewest so far in the pod, then most ports up,
 * then lowest position); source leaf {@code k} outside the pod sends it there when {@code (k + l) mod 4·top - 3·top}
 * is at least its switch's ports up, both are candidates, and its own switch at the detour has as many ports up as
 * at the home.
 */
final class PlainDetours {
    private final Map<Integer, Integer> podOfLeaf = new HashMap<>();
    private final Map<Integer, int[]> upOfPod = new HashMap<>();
    private final Map<Integer, Integer> topOfPod = new HashMap<>();
    /** Per leaf number, per home position, its detour. */
    private final Map<Integer, Map<Integer, Integer>> detour = new HashMap<>();

    /** The detours of {@code pods} ({@code {upper by position, lower}}) whose number is in {@code routed}. */
    PlainDetours(FabricIndex index, DmodcRouting routing, List<int[][]> pods, List<Integer> routed) {
        Map<String, Integer> planeTop = new HashMap<>(); // "width/position"
        for (int p : routed) {
            int[] homes = pods.get(p)[0];
            if (homes.length > Long.SIZE) {
                continue;
            }
            int[] up = new int[homes.length];
            for (int i = 0; i < homes.length; i++) {
                for (int g = 0; homes[i] >= 0 && g < index.groupCount(homes[i]); g++) {
                    int v = index.groupNeighbour(index.groupStart(homes[i]) + g);
                    up[i] += routing.rank(v) > routing.rank(homes[i]) ? index.groupSize(index.groupStart(homes[i]) + g)
                            : 0;
                }
                planeTop.merge(homes.length + "/" + i, up[i], Math::max);
            }
            upOfPod.put(p, up);
        }
        for (int p : upOfPod.keySet()) {
            int[] homes = pods.get(p)[0];
            int[] up = upOfPod.get(p);
            int most = 0;
            for (int u : up) {
                most = Math.max(most, u);
            }
            topOfPod.put(p, most);
            int[] taken = new int[homes.length];
            for (int s : pods.get(p)[1]) {
                int l = index.leafNumber(s);
                podOfLeaf.put(l, p);
                Map<Integer, Integer> to = new HashMap<>();
                for (int h = 0; h < homes.length; h++) {
                    if (!linked(index, s, homes[h]) || up[h] >= most || planeTop.get(homes.length + "/" + h) < most) {
                        continue;
                    }
                    int best = -1;
                    for (int i = 0; i < homes.length; i++) {
                        if (linked(index, s, homes[i]) && !to.containsValue(i) && up[i] > up[h] && (best < 0
                                || taken[i] < taken[best] || taken[i] == taken[best] && up[i] > up[best])) {
                            best = i;
                        }
                    }
                    if (best >= 0) {
                        to.put(h, best);
                        taken[best]++;
                    }
                }
                detour.put(l, to);
            }
        }
    }

    private static boolean linked(FabricIndex index, int s, int u) {
        for (int g = index.groupStart(s); u >= 0 && g < index.groupStart(s) + index.groupCount(s); g++) {
            if (index.groupNeighbour(g) == u) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where source leaf number {@code k} of pod {@code p} sends leaf {@code l}'s home at position {@code h} instead,
     * among candidate positions {@code c} (the home one of them), or -1.
     */
    int detour(int k, int p, int l, int h, List<Integer> c) {
        Integer q = podOfLeaf.get(l);
        if (q == null || q == p || !upOfPod.containsKey(p) || upOfPod.get(p).length != upOfPod.get(q).length
                || !detour.get(l).containsKey(h)) {
            return -1;
        }
        int top = topOfPod.get(q);
        int v = detour.get(l).get(h);
        boolean sends = (k + l) % (4 * top) - 3 * top >= upOfPod.get(q)[h] && c.contains(v)
                && upOfPod.get(p)[v] >= upOfPod.get(p)[h];
        return sends ? v : -1;
    }
}
