package org.fabricmanager.topology;

/**
 * The pods and columns of a fabric matched to a PGFT, as connected components: per level l, the union-find root of
 * each switch among the switches of levels 1..l ({@code podRoot}, its pod) and among those of levels l..h
 * ({@code colRoot}, its column); -1 for a switch outside them.
 */
record LevelComponents(int[][] podRoot, int[][] colRoot) {
    /** Pod and column components, from the cables between adjacent levels. */
    static LevelComponents of(StructuralLevels lv) {
        int h = lv.h;
        int n = lv.n;
        int[] level = lv.level;
        int[][] podRoot = new int[h + 1][];
        int[][] colRoot = new int[h + 1][];
        int[] groupStart = lv.index.groupStartArray();
        int[] neighbours = lv.index.groupNeighbourArray();
        UnionFind pods = new UnionFind(n);
        for (int l = 1; l <= h; l++) {
            for (int s = 0; s < n; s++) {
                if (level[s] == l && lv.placeable(s)) {
                    for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                        int t = neighbours[g];
                        if (level[t] == l - 1 && lv.validPair(s, t)) {
                            pods.union(s, t);
                        }
                    }
                }
            }
            podRoot[l] = StructuralLevels.filled(n);
            for (int s = 0; s < n; s++) {
                if (lv.placeable(s) && level[s] <= l) {
                    podRoot[l][s] = pods.find(s);
                }
            }
        }
        UnionFind columns = new UnionFind(n);
        for (int l = h; l >= 1; l--) {
            for (int s = 0; s < n; s++) {
                if (level[s] == l && lv.placeable(s)) {
                    for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                        int t = neighbours[g];
                        if (level[t] == l + 1 && lv.validPair(s, t)) {
                            columns.union(s, t);
                        }
                    }
                }
            }
            colRoot[l] = StructuralLevels.filled(n);
            for (int s = 0; s < n; s++) {
                if (lv.placeable(s) && level[s] >= l) {
                    colRoot[l][s] = columns.find(s);
                }
            }
        }
        return new LevelComponents(podRoot, colRoot);
    }
}
