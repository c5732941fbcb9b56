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
 * Numbers the columns of a {@link StructuralMatch} bottom-up: the label B of every placeable switch. The child
 * columns of one column are numbered by smallest GUID of their own level; columns split by a degraded fabric are
 * merged back greedily while they fit, and parts that fit nowhere stay unlabelled (-1), to be placed from their
 * neighbours.
 */
final class ColumnNumbering {
    private final StructuralLevels lv;
    private final LevelComponents components;
    private final int[] labelA;
    private final PgftSpec spec;

    private ColumnNumbering(StructuralLevels lv, LevelComponents components, int[] labelA) {
        this.lv = lv;
        this.components = components;
        this.labelA = labelA;
        this.spec = lv.spec;
    }

    /** Label B (the column) per switch id, given the pods' labels {@code labelA}; -1 where there is none. */
    static int[] labels(StructuralLevels lv, LevelComponents components, int[] labelA) {
        return new ColumnNumbering(lv, components, labelA).number();
    }

    private int[] number() {
        int h = lv.h;
        int n = lv.n;
        int[] level = lv.level;
        int[][] colRoot = components.colRoot();
        int[] labelB = StructuralLevels.filled(n);
        int[][] colB = new int[h + 1][];
        colB[1] = StructuralLevels.filled(n);
        for (int s = 0; s < n; s++) {
            if (lv.placeable(s) && level[s] == 1) {
                colB[1][colRoot[1][s]] = 0;
            }
        }
        for (int l = 1; l < h; l++) {
            colB[l + 1] = StructuralLevels.filled(n);
            Map<Integer, ComponentPart> parts = new HashMap<>();
            for (int s = 0; s < n; s++) {
                if (!lv.placeable(s) || level[s] < l + 1) {
                    continue;
                }
                ComponentPart part = parts.computeIfAbsent(colRoot[l + 1][s], r -> new ComponentPart(r, h));
                part.parent = colRoot[l][s];
                part.size++;
                part.perLevel[level[s]]++;
                if (level[s] == l + 1) {
                    part.anchors++;
                    part.see(lv.index.switchGuid(s));
                }
                if (labelA[s] >= 0) {
                    part.signature.add(((long) level[s] << 32) | labelA[s]);
                }
            }
            Map<Integer, List<ComponentPart>> byParentB = new TreeMap<>();
            for (ComponentPart part : parts.values()) {
                int parentB = colB[l][part.parent];
                if (parentB >= 0 && part.anchors > 0) {
                    byParentB.computeIfAbsent(parentB, k -> new ArrayList<>()).add(part);
                }
            }
            int w = spec.w(l + 1);
            int wl = spec.bigW(l);
            for (Map.Entry<Integer, List<ComponentPart>> e : byParentB.entrySet()) {
                List<List<ComponentPart>> bins = pack(e.getValue(), w, l + 1);
                for (int b = 0; b < bins.size(); b++) {
                    for (ComponentPart part : bins.get(b)) {
                        colB[l + 1][part.root] = e.getKey() + b * wl;
                    }
                }
            }
        }
        for (int s = 0; s < n; s++) {
            if (lv.placeable(s)) {
                labelB[s] = colB[level[s]][colRoot[level[s]][s]];
            }
        }
        return labelB;
    }

    /**
     * Like {@link PodNumbering}'s packing, for the child columns of one column: parts with switches above their
     * level are distinct columns and get their own slot first; a lone switch that lost its up links
     * then joins a column without upper switches if one fits, else a new one, else any column where
     * it does not share a pod with a switch of its level.
     */
    private List<List<ComponentPart>> pack(List<ComponentPart> children, int w, int l) {
        List<ComponentPart> anchored = new ArrayList<>();
        List<ComponentPart> fragments = new ArrayList<>();
        for (ComponentPart p : children) {
            (p.size > p.anchors ? anchored : fragments).add(p);
        }
        Comparator<ComponentPart> bySize = (x, y) -> x.size != y.size ? Integer.compare(y.size, x.size)
                : ComponentPart.compare(x, y);
        anchored.sort(bySize);
        fragments.sort(bySize);
        List<List<ComponentPart>> bins = new ArrayList<>();
        List<Set<Long>> used = new ArrayList<>();
        List<Boolean> hasUpper = new ArrayList<>();
        List<int[]> totals = new ArrayList<>();
        for (ComponentPart p : anchored) {
            int chosen = bins.size() < w ? -1 : firstFit(used, hasUpper, totals, p, l, false);
            put(bins, used, hasUpper, totals, chosen, p, true, bins.size() < w);
        }
        for (ComponentPart p : fragments) {
            int chosen = firstFit(used, hasUpper, totals, p, l, true);
            boolean fresh = chosen < 0 && bins.size() < w;
            if (chosen < 0 && !fresh) {
                chosen = firstFit(used, hasUpper, totals, p, l, false);
            }
            put(bins, used, hasUpper, totals, chosen, p, false, fresh);
        }
        for (List<ComponentPart> bin : bins) {
            bin.sort(ComponentPart::compare);
        }
        bins.sort((x, y) -> ComponentPart.compare(x.get(0), y.get(0)));
        return bins;
    }

    private int firstFit(List<Set<Long>> used, List<Boolean> hasUpper, List<int[]> totals, ComponentPart p, int l,
                         boolean onlyWithoutUpper) {
        for (int i = 0; i < used.size(); i++) {
            if ((!onlyWithoutUpper || !hasUpper.get(i)) && ComponentPart.disjoint(used.get(i), p.signature)
                    && fits(totals.get(i), p, l)) {
                return i;
            }
        }
        return -1;
    }

    /** A level-l column holds {@code switchCount(k) / W_l} switches of each level k >= l. */
    private boolean fits(int[] total, ComponentPart p, int l) {
        for (int k = l; k <= lv.h; k++) {
            if (total[k] + p.perLevel[k] > spec.switchCount(k) / spec.bigW(l)) {
                return false;
            }
        }
        return true;
    }

    private static void put(List<List<ComponentPart>> bins, List<Set<Long>> used, List<Boolean> hasUpper,
                            List<int[]> totals, int chosen, ComponentPart p, boolean upper, boolean fresh) {
        if (chosen >= 0) {
            bins.get(chosen).add(p);
            used.get(chosen).addAll(p.signature);
            hasUpper.set(chosen, hasUpper.get(chosen) || upper);
            ComponentPart.add(totals.get(chosen), p.perLevel);
        } else if (fresh) {
            bins.add(new ArrayList<>(List.of(p)));
            used.add(new HashSet<>(p.signature));
            hasUpper.add(upper);
            totals.add(p.perLevel.clone());
        }
    }
}
