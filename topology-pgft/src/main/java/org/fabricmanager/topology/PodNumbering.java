package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Numbers the pods of a {@link StructuralMatch} top-down: the label A of every placeable switch. The child pods of
 * one pod are numbered by smallest leaf GUID; pods split by a degraded fabric are merged back greedily while they
 * fit, and parts that fit nowhere stay unlabelled (-1), to be placed from their neighbours.
 */
final class PodNumbering {
    private final StructuralLevels lv;
    private final LevelComponents components;
    private final PgftSpec spec;

    private PodNumbering(StructuralLevels lv, LevelComponents components) {
        this.lv = lv;
        this.components = components;
        this.spec = lv.spec;
    }

    /** Label A (the pod) per switch id; -1 where there is none. */
    static int[] labels(StructuralLevels lv, LevelComponents components) {
        return new PodNumbering(lv, components).number();
    }

    private int[] number() {
        int h = lv.h;
        int n = lv.n;
        int[] level = lv.level;
        int[][] podRoot = components.podRoot();
        int[][] colRoot = components.colRoot();
        int[] labelA = StructuralLevels.filled(n);
        int[][] podA = new int[h + 1][];
        podA[h] = StructuralLevels.filled(n);
        for (int s = 0; s < n; s++) {
            if (lv.placeable(s) && level[s] == 1) {
                podA[h][podRoot[h][s]] = 0;
            }
        }
        for (int l = h; l >= 2; l--) {
            podA[l - 1] = StructuralLevels.filled(n);
            Map<Integer, ComponentPart> parts = new HashMap<>();
            for (int s = 0; s < n; s++) {
                if (!lv.placeable(s) || level[s] > l - 1) {
                    continue;
                }
                ComponentPart part = parts.computeIfAbsent(podRoot[l - 1][s], r -> new ComponentPart(r, h));
                part.parent = podRoot[l][s];
                part.perLevel[level[s]]++;
                part.size++;
                // two switches of one level and one column are never in one pod
                part.signature.add(((long) level[s] << 32) | colRoot[level[s]][s]);
                if (level[s] == 1) {
                    part.anchors++;
                    part.see(lv.index.switchGuid(s));
                }
            }
            Map<Integer, List<ComponentPart>> byParentA = new TreeMap<>();
            for (ComponentPart part : parts.values()) {
                int parentA = podA[l][part.parent];
                if (parentA >= 0 && part.anchors > 0) {
                    byParentA.computeIfAbsent(parentA, k -> new ArrayList<>()).add(part);
                }
            }
            int m = spec.m(l);
            for (Map.Entry<Integer, List<ComponentPart>> e : byParentA.entrySet()) {
                List<List<ComponentPart>> bins = pack(e.getValue(), m, l - 1);
                for (int c = 0; c < bins.size(); c++) {
                    for (ComponentPart part : bins.get(c)) {
                        podA[l - 1][part.root] = e.getKey() * m + c;
                    }
                }
            }
        }
        for (int s = 0; s < n; s++) {
            if (lv.placeable(s)) {
                labelA[s] = podA[level[s]][podRoot[level[s]][s]];
            }
        }
        return labelA;
    }

    /**
     * Groups the child pods of one pod into at most {@code m} pods of level {@code l}, ordered by
     * smallest leaf GUID. Parts holding a level-l switch are distinct pods: each gets its own slot
     * while there are slots. Fragments (leaves or lower pods cut off from every level-l switch) then
     * fill the room left, preferring pods without level-l switches (fewer implied missing links).
     * Parts that fit nowhere are left out: their switches get placed from their neighbours.
     */
    private List<List<ComponentPart>> pack(List<ComponentPart> children, int m, int l) {
        List<ComponentPart> anchored = new ArrayList<>();
        List<ComponentPart> fragments = new ArrayList<>();
        for (ComponentPart p : children) {
            (p.perLevel[l] > 0 ? anchored : fragments).add(p);
        }
        Comparator<ComponentPart> bySize = (x, y) -> x.anchors != y.anchors ? Integer.compare(y.anchors, x.anchors)
                : ComponentPart.compare(x, y);
        anchored.sort(bySize);
        fragments.sort(bySize);
        List<List<ComponentPart>> bins = new ArrayList<>();
        List<int[]> totals = new ArrayList<>();
        List<Set<Long>> used = new ArrayList<>();
        for (ComponentPart p : anchored) {
            int chosen = bins.size() < m ? -1 : firstFit(totals, used, p, l, false);
            put(bins, totals, used, chosen, p, bins.size() < m);
        }
        for (ComponentPart p : fragments) {
            int chosen = firstFit(totals, used, p, l, true);
            boolean fresh = chosen < 0 && bins.size() < m;
            if (chosen < 0 && !fresh) {
                chosen = firstFit(totals, used, p, l, false);
            }
            put(bins, totals, used, chosen, p, fresh);
        }
        for (List<ComponentPart> bin : bins) {
            bin.sort(ComponentPart::compare);
        }
        bins.sort((x, y) -> ComponentPart.compare(x.get(0), y.get(0)));
        return bins;
    }

    private int firstFit(List<int[]> totals, List<Set<Long>> used, ComponentPart p, int l, boolean onlyWithoutTop) {
        for (int i = 0; i < totals.size(); i++) {
            if ((!onlyWithoutTop || totals.get(i)[l] == 0) && fits(totals.get(i), p, l)
                    && ComponentPart.disjoint(used.get(i), p.signature)) {
                return i;
            }
        }
        return -1;
    }

    private static void put(List<List<ComponentPart>> bins, List<int[]> totals, List<Set<Long>> used, int chosen,
                            ComponentPart p, boolean fresh) {
        if (chosen >= 0) {
            bins.get(chosen).add(p);
            ComponentPart.add(totals.get(chosen), p.perLevel);
            used.get(chosen).addAll(p.signature);
        } else if (fresh) {
            bins.add(new ArrayList<>(List.of(p)));
            totals.add(p.perLevel.clone());
            used.add(new HashSet<>(p.signature));
        }
    }

    private boolean fits(int[] total, ComponentPart p, int l) {
        for (int k = 1; k <= l; k++) {
            long capacity = (long) spec.bigW(k) * (spec.bigM(l) / spec.bigM(k));
            if (total[k] + p.perLevel[k] > capacity) {
                return false;
            }
        }
        return true;
    }
}
