package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Places the switches of a {@link StructuralMatch} in the positions of the PGFT: each switch takes the position its
 * pod and column labels name unless a better-connected switch has it; the others are then placed from their placed
 * neighbours, highest levels first, as long as that makes progress. Holds the labels and which position each
 * switch occupies.
 */
final class SlotPlacement {
    private final StructuralLevels lv;
    private final PgftSpec spec;
    private final int[] level;
    /** Per switch: its pod (A) and column (B) label, -1 while it has none. */
    final int[] labelA;
    final int[] labelB;
    final boolean[] placed;
    /** Per level: occupied position (A * W_l + B) -> switch id. */
    final List<Map<Integer, Integer>> slots = new ArrayList<>();

    SlotPlacement(StructuralLevels lv, int[] labelA, int[] labelB) {
        this.lv = lv;
        this.spec = lv.spec;
        this.level = lv.level;
        this.labelA = labelA;
        this.labelB = labelB;
        this.placed = new boolean[lv.n];
        for (int l = 0; l <= lv.h; l++) {
            slots.add(new HashMap<>());
        }
    }

    void place() {
        FabricIndex index = lv.index;
        int n = lv.n;
        // Best-connected switches first: their pod and column are the most certain, so a clash
        // falls on a switch that lost links, which is then placed again from its neighbours.
        int[] degree = new int[n];
        List<Integer> order = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            if (lv.placeable(s)) {
                for (int g = index.groupStart(s); g < index.groupStart(s + 1); g++) {
                    if (lv.validPair(s, index.groupNeighbour(g))) {
                        degree[s] += index.groupSize(g);
                    }
                }
                order.add(s);
            }
        }
        order.sort((x, y) -> degree[x] != degree[y] ? Integer.compare(degree[y], degree[x]) : Integer.compare(x, y));
        List<Integer> deferred = new ArrayList<>();
        for (int s : order) {
            if (labelA[s] >= 0 && labelB[s] >= 0 && occupy(s, labelA[s], labelB[s])) {
                continue;
            }
            labelA[s] = -1;
            labelB[s] = -1;
            deferred.add(s);
        }
        // Highest levels first: a switch that lost its down links hangs from placed parents.
        deferred.sort((x, y) -> level[x] != level[y] ? Integer.compare(level[y], level[x]) : Integer.compare(x, y));
        boolean progress = true;
        while (progress && !deferred.isEmpty()) {
            progress = false;
            for (int i = 0; i < deferred.size(); i++) {
                if (placeFromNeighbours(deferred.get(i))) {
                    deferred.remove(i--);
                    progress = true;
                }
            }
        }
    }

    private boolean occupy(int s, int a, int b) {
        int l = level[s];
        if (slots.get(l).putIfAbsent(a * spec.bigW(l) + b, s) != null) {
            return false;
        }
        labelA[s] = a;
        labelB[s] = b;
        placed[s] = true;
        return true;
    }

    private boolean placeFromNeighbours(int s) {
        int l = level[s];
        List<Integer> up = new ArrayList<>();
        List<Integer> down = new ArrayList<>();
        int[] groupStart = lv.index.groupStartArray();
        int[] neighbours = lv.index.groupNeighbourArray();
        for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
            int t = neighbours[g];
            if (placed[t] && lv.validPair(s, t)) {
                (level[t] > l ? up : down).add(t);
            }
        }
        if (up.isEmpty() && down.isEmpty()) {
            return false;
        }
        int[] candA;
        if (l == lv.h) {
            candA = new int[] {0};
        } else if (!down.isEmpty()) {
            candA = new int[] {labelA[down.get(0)] / spec.m(l)};
        } else {
            int m = spec.m(l + 1);
            candA = new int[m];
            for (int c = 0; c < m; c++) {
                candA[c] = labelA[up.get(0)] * m + c;
            }
        }
        int[] candB;
        if (l == 1) {
            candB = new int[] {0};
        } else if (!up.isEmpty()) {
            candB = new int[] {labelB[up.get(0)] % spec.bigW(l)};
        } else {
            int w = spec.w(l);
            candB = new int[w];
            for (int j = 0; j < w; j++) {
                candB[j] = labelB[down.get(0)] + j * spec.bigW(l - 1);
            }
        }
        for (int a : candA) {
            for (int b : candB) {
                if (consistent(l, a, b, up, down) && occupy(s, a, b)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean consistent(int l, int a, int b, List<Integer> up, List<Integer> down) {
        for (int d : down) {
            if (labelA[d] / spec.m(l) != a || labelB[d] != b % spec.bigW(l - 1)) {
                return false;
            }
        }
        for (int u : up) {
            if (labelA[u] != a / spec.m(l + 1) || labelB[u] % spec.bigW(l) != b) {
                return false;
            }
        }
        return true;
    }
}
