package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.LevelCount;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.SwitchSlot;
import org.fabricmanager.topology.PgftRecognition.Verdict;

/**
 * Matches a fabric with arbitrary GUIDs to a PGFT by structure. A level-l switch of the canonical
 * PGFT is {@code (A, B)}: {@code A} names its pod (the leaves it reaches using only levels up to l)
 * and {@code B} its column (the switches it reaches using only levels l and above). Both are
 * connected components, so this class computes them with union-find, numbers pods top-down and
 * columns bottom-up (children ordered by smallest GUID), and then checks every cable against
 * "parent of (A, B) is (A / m, B + b * W_l)". On an intact PGFT any such numbering is an
 * isomorphism to the canonical one, so the check is exact; port numbers are not checked.
 *
 * <p>Degraded fabrics split components. Pods and columns that lost their anchor (a pod with no
 * leaf left, a column with no switch of its level) are placed afterwards from their placed
 * neighbours; pods and columns split in two are merged back greedily while they fit. What still
 * cannot be placed is reported as unplaced.
 */
final class StructuralMatch {
    private final Fabric fabric;
    private final FabricIndex index;
    private final PgftSpec spec;
    private final int h;
    private final int n;
    private final int[] level;
    private final boolean[] excluded;
    private final int[] labelA;
    private final int[] labelB;
    private final boolean[] placed;
    private final List<Map<Integer, Integer>> slots = new ArrayList<>();
    private final List<Problem> problems = new ArrayList<>();
    private final SwitchLevels levels;
    /** Per level l: the union-find root of each switch among switches of levels 1..l (pods). */
    private int[][] podRoot;
    /** Per level l: the union-find root of each switch among switches of levels l..h (columns). */
    private int[][] colRoot;

    private StructuralMatch(Fabric fabric, PgftSpec spec) {
        this.fabric = fabric;
        this.index = fabric.index();
        this.spec = spec;
        this.h = spec.h();
        this.n = index.switchCount();
        this.levels = SwitchLevels.of(index, spec);
        this.level = levels.level;
        this.excluded = new boolean[n];
        this.labelA = filled(n);
        this.labelB = filled(n);
        this.placed = new boolean[n];
        for (int l = 0; l <= h; l++) {
            slots.add(new HashMap<>());
        }
    }

    static PgftRecognition run(Fabric fabric, PgftSpec spec, SpecSource source) {
        return new StructuralMatch(fabric, spec).match(source);
    }

    private PgftRecognition match(SpecSource source) {
        checkSwitches();
        checkLinks();
        components();
        numberPods();
        numberColumns();
        place();
        Map<Long, Integer> multiplicity = checkSwitchLinks();
        List<MissingLink> missingLinks = new ArrayList<>();
        int attached = checkNodes(missingLinks);
        missingSwitchLinks(multiplicity, missingLinks);

        List<SwitchSlot> missingSwitches = new ArrayList<>();
        List<LevelCount> counts = new ArrayList<>();
        for (int l = 1; l <= h; l++) {
            int count = spec.switchCount(l);
            Map<Integer, Integer> occupied = slots.get(l);
            for (int pos = 0; pos < count; pos++) {
                if (!occupied.containsKey(pos)) {
                    missingSwitches.add(new SwitchSlot(l, pos));
                }
            }
            counts.add(new LevelCount(l, count, occupied.size()));
        }
        List<Long> unplaced = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            if (placed[s] || excluded[s]) {
                continue;
            }
            if (level[s] == 0) {
                unplaced.add(index.switchGuid(s));
            } else {
                unplaceable(s);
            }
        }
        if (unplaced.size() > missingSwitches.size()) {
            problems.add(new Problem(Kind.EXTRA_SWITCH, unplaced.size() + " switches cannot be placed in " + spec
                    + " and only " + missingSwitches.size() + " positions are free", unplaced, List.of()));
        }
        Verdict verdict = !problems.isEmpty() ? Verdict.MISWIRED
                : missingSwitches.isEmpty() && missingLinks.isEmpty() && unplaced.isEmpty() ? Verdict.INTACT
                : Verdict.DEGRADED;
        return new PgftRecognition(verdict, spec, source, Matching.BY_STRUCTURE, counts, spec.nodeCount(), attached,
                missingSwitches, List.of(), missingLinks, unplaced, problems);
    }

    // ---- levels and link kinds ------------------------------------------------------------

    private void checkSwitches() {
        for (int s = 0; s < n; s++) {
            long guid = index.switchGuid(s);
            if (level[s] > h) {
                excluded[s] = true;
                problems.add(new Problem(Kind.TOO_MANY_LEVELS, "switch " + Describe.device(fabric, guid) + " is "
                        + level[s] + " levels up from the leaves, " + spec + " has " + h, List.of(guid), List.of()));
            } else if (level[s] >= 1 && index.switchPorts(s) < spec.radix(level[s])) {
                problems.add(new Problem(Kind.TOO_FEW_PORTS, "switch " + Describe.device(fabric, guid) + " has "
                        + index.switchPorts(s) + " ports, level " + level[s] + " needs " + spec.radix(level[s]),
                        List.of(guid), List.of()));
            }
        }
    }

    private void checkLinks() {
        for (Link link : fabric.links()) {
            int a = index.switchId(link.a());
            int b = index.switchId(link.b());
            String what = Describe.link(fabric, link);
            if (a == FabricIndex.NONE && b == FabricIndex.NONE) {
                add(Kind.NODE_TO_NODE, what + " joins two end nodes", link);
            } else if (a == FabricIndex.NONE || b == FabricIndex.NONE) {
                int s = a == FabricIndex.NONE ? b : a;
                if (level[s] != 1) {
                    String why = levels.nodesOnNonLeaf[s]
                            ? "cannot be a leaf (" + index.switchPorts(s) + " ports, " + index.groupCount(s)
                              + " switch neighbours; a leaf of " + spec + " has " + spec.radix(1) + " ports and "
                              + spec.w(2) + " parents)"
                            : "is at level " + level[s];
                    add(Kind.NODE_ON_NON_LEAF, what + ": end node on a switch that " + why, link);
                }
            } else if (level[a] >= 1 && level[b] >= 1 && !excluded[a] && !excluded[b]) {
                if (level[a] == level[b]) {
                    add(level[a] == 1 ? Kind.LEAF_TO_LEAF : Kind.SAME_LEVEL, what + " joins two level-" + level[a]
                            + " switches (or skips a level: levels are counted from the leaves)", link);
                } else if (Math.abs(level[a] - level[b]) > 1) {
                    add(Kind.LEVEL_SKIP, what + " joins level " + level[a] + " to level " + level[b], link);
                }
            }
        }
    }

    private boolean placeable(int s) {
        return level[s] >= 1 && !excluded[s];
    }

    private boolean validPair(int s, int t) {
        return placeable(s) && placeable(t) && Math.abs(level[s] - level[t]) == 1;
    }

    // ---- pods (A) ---------------------------------------------------------------------------

    /**
     * A pod component (switches up to some level) or a column component (switches from some level
     * up), as a candidate child pod or column. Its anchors are the switches that place it: leaves
     * for a pod, switches of the column's own level for a column.
     */
    private static final class Part {
        final int root;
        int parent;
        int anchors;
        long smallest = -1L;
        int size;
        final int[] perLevel;
        final Set<Long> signature = new HashSet<>();

        Part(int root, int levels) {
            this.root = root;
            this.perLevel = new int[levels + 1];
        }

        void see(long guid) {
            if (smallest == -1L || Long.compareUnsigned(guid, smallest) < 0) {
                smallest = guid;
            }
        }
    }

    private static int compareParts(Part x, Part y) {
        return Long.compareUnsigned(x.smallest, y.smallest);
    }

    /** Pod and column components, from the cables between adjacent levels. */
    private void components() {
        podRoot = new int[h + 1][];
        colRoot = new int[h + 1][];
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        UnionFind pods = new UnionFind(n);
        for (int l = 1; l <= h; l++) {
            for (int s = 0; s < n; s++) {
                if (level[s] == l && placeable(s)) {
                    for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                        int t = neighbours[g];
                        if (level[t] == l - 1 && validPair(s, t)) {
                            pods.union(s, t);
                        }
                    }
                }
            }
            podRoot[l] = filled(n);
            for (int s = 0; s < n; s++) {
                if (placeable(s) && level[s] <= l) {
                    podRoot[l][s] = pods.find(s);
                }
            }
        }
        UnionFind columns = new UnionFind(n);
        for (int l = h; l >= 1; l--) {
            for (int s = 0; s < n; s++) {
                if (level[s] == l && placeable(s)) {
                    for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                        int t = neighbours[g];
                        if (level[t] == l + 1 && validPair(s, t)) {
                            columns.union(s, t);
                        }
                    }
                }
            }
            colRoot[l] = filled(n);
            for (int s = 0; s < n; s++) {
                if (placeable(s) && level[s] >= l) {
                    colRoot[l][s] = columns.find(s);
                }
            }
        }
    }

    private void numberPods() {
        int[][] podA = new int[h + 1][];
        podA[h] = filled(n);
        for (int s = 0; s < n; s++) {
            if (placeable(s) && level[s] == 1) {
                podA[h][podRoot[h][s]] = 0;
            }
        }
        for (int l = h; l >= 2; l--) {
            podA[l - 1] = filled(n);
            Map<Integer, Part> parts = new HashMap<>();
            for (int s = 0; s < n; s++) {
                if (!placeable(s) || level[s] > l - 1) {
                    continue;
                }
                Part part = parts.computeIfAbsent(podRoot[l - 1][s], r -> new Part(r, h));
                part.parent = podRoot[l][s];
                part.perLevel[level[s]]++;
                part.size++;
                // two switches of one level and one column are never in one pod
                part.signature.add(((long) level[s] << 32) | colRoot[level[s]][s]);
                if (level[s] == 1) {
                    part.anchors++;
                    part.see(index.switchGuid(s));
                }
            }
            Map<Integer, List<Part>> byParentA = new TreeMap<>();
            for (Part part : parts.values()) {
                int parentA = podA[l][part.parent];
                if (parentA >= 0 && part.anchors > 0) {
                    byParentA.computeIfAbsent(parentA, k -> new ArrayList<>()).add(part);
                }
            }
            int m = spec.m(l);
            for (Map.Entry<Integer, List<Part>> e : byParentA.entrySet()) {
                List<List<Part>> bins = packPods(e.getValue(), m, l - 1);
                for (int c = 0; c < bins.size(); c++) {
                    for (Part part : bins.get(c)) {
                        podA[l - 1][part.root] = e.getKey() * m + c;
                    }
                }
            }
        }
        for (int s = 0; s < n; s++) {
            if (placeable(s)) {
                labelA[s] = podA[level[s]][podRoot[level[s]][s]];
            }
        }
    }

    /**
     * Groups the child pods of one pod into at most {@code m} pods of level {@code l}, ordered by
     * smallest leaf GUID. Parts holding a level-l switch are distinct pods: each gets its own slot
     * while there are slots. Fragments (leaves or lower pods cut off from every level-l switch) then
     * fill the room left, preferring pods without level-l switches (fewer implied missing links).
     * Parts that fit nowhere are left out: their switches get placed from their neighbours.
     */
    private List<List<Part>> packPods(List<Part> children, int m, int l) {
        List<Part> anchored = new ArrayList<>();
        List<Part> fragments = new ArrayList<>();
        for (Part p : children) {
            (p.perLevel[l] > 0 ? anchored : fragments).add(p);
        }
        Comparator<Part> bySize = (x, y) -> x.anchors != y.anchors ? Integer.compare(y.anchors, x.anchors)
                : compareParts(x, y);
        anchored.sort(bySize);
        fragments.sort(bySize);
        List<List<Part>> bins = new ArrayList<>();
        List<int[]> totals = new ArrayList<>();
        List<Set<Long>> used = new ArrayList<>();
        for (Part p : anchored) {
            int chosen = bins.size() < m ? -1 : firstPodFit(totals, used, p, l, false);
            put(bins, totals, used, chosen, p, bins.size() < m);
        }
        for (Part p : fragments) {
            int chosen = firstPodFit(totals, used, p, l, true);
            boolean fresh = chosen < 0 && bins.size() < m;
            if (chosen < 0 && !fresh) {
                chosen = firstPodFit(totals, used, p, l, false);
            }
            put(bins, totals, used, chosen, p, fresh);
        }
        for (List<Part> bin : bins) {
            bin.sort(StructuralMatch::compareParts);
        }
        bins.sort((x, y) -> compareParts(x.get(0), y.get(0)));
        return bins;
    }

    private int firstPodFit(List<int[]> totals, List<Set<Long>> used, Part p, int l, boolean onlyWithoutTop) {
        for (int i = 0; i < totals.size(); i++) {
            if ((!onlyWithoutTop || totals.get(i)[l] == 0) && fitsPod(totals.get(i), p, l)
                    && disjoint(used.get(i), p.signature)) {
                return i;
            }
        }
        return -1;
    }

    private static void put(List<List<Part>> bins, List<int[]> totals, List<Set<Long>> used, int chosen, Part p,
                            boolean fresh) {
        if (chosen >= 0) {
            bins.get(chosen).add(p);
            add(totals.get(chosen), p.perLevel);
            used.get(chosen).addAll(p.signature);
        } else if (fresh) {
            bins.add(new ArrayList<>(List.of(p)));
            totals.add(p.perLevel.clone());
            used.add(new HashSet<>(p.signature));
        }
    }

    private boolean fitsPod(int[] total, Part p, int l) {
        for (int k = 1; k <= l; k++) {
            long capacity = (long) spec.bigW(k) * (spec.bigM(l) / spec.bigM(k));
            if (total[k] + p.perLevel[k] > capacity) {
                return false;
            }
        }
        return true;
    }

    private static void add(int[] total, int[] more) {
        for (int i = 0; i < total.length; i++) {
            total[i] += more[i];
        }
    }

    // ---- columns (B) ------------------------------------------------------------------------

    private void numberColumns() {
        int[][] colB = new int[h + 1][];
        colB[1] = filled(n);
        for (int s = 0; s < n; s++) {
            if (placeable(s) && level[s] == 1) {
                colB[1][colRoot[1][s]] = 0;
            }
        }
        for (int l = 1; l < h; l++) {
            colB[l + 1] = filled(n);
            Map<Integer, Part> parts = new HashMap<>();
            for (int s = 0; s < n; s++) {
                if (!placeable(s) || level[s] < l + 1) {
                    continue;
                }
                Part part = parts.computeIfAbsent(colRoot[l + 1][s], r -> new Part(r, h));
                part.parent = colRoot[l][s];
                part.size++;
                part.perLevel[level[s]]++;
                if (level[s] == l + 1) {
                    part.anchors++;
                    part.see(index.switchGuid(s));
                }
                if (labelA[s] >= 0) {
                    part.signature.add(((long) level[s] << 32) | labelA[s]);
                }
            }
            Map<Integer, List<Part>> byParentB = new TreeMap<>();
            for (Part part : parts.values()) {
                int parentB = colB[l][part.parent];
                if (parentB >= 0 && part.anchors > 0) {
                    byParentB.computeIfAbsent(parentB, k -> new ArrayList<>()).add(part);
                }
            }
            int w = spec.w(l + 1);
            int wl = spec.bigW(l);
            for (Map.Entry<Integer, List<Part>> e : byParentB.entrySet()) {
                List<List<Part>> bins = packColumns(e.getValue(), w, l + 1);
                for (int b = 0; b < bins.size(); b++) {
                    for (Part part : bins.get(b)) {
                        colB[l + 1][part.root] = e.getKey() + b * wl;
                    }
                }
            }
        }
        for (int s = 0; s < n; s++) {
            if (placeable(s)) {
                labelB[s] = colB[level[s]][colRoot[level[s]][s]];
            }
        }
    }

    /**
     * Like {@link #packPods}, for the child columns of one column: parts with switches above their
     * level are distinct columns and get their own slot first; a lone switch that lost its up links
     * then joins a column without upper switches if one fits, else a new one, else any column where
     * it does not share a pod with a switch of its level.
     */
    private List<List<Part>> packColumns(List<Part> children, int w, int l) {
        List<Part> anchored = new ArrayList<>();
        List<Part> fragments = new ArrayList<>();
        for (Part p : children) {
            (p.size > p.anchors ? anchored : fragments).add(p);
        }
        Comparator<Part> bySize = (x, y) -> x.size != y.size ? Integer.compare(y.size, x.size)
                : compareParts(x, y);
        anchored.sort(bySize);
        fragments.sort(bySize);
        List<List<Part>> bins = new ArrayList<>();
        List<Set<Long>> used = new ArrayList<>();
        List<Boolean> hasUpper = new ArrayList<>();
        List<int[]> totals = new ArrayList<>();
        for (Part p : anchored) {
            int chosen = bins.size() < w ? -1 : firstColumnFit(used, hasUpper, totals, p, l, false);
            putColumn(bins, used, hasUpper, totals, chosen, p, true, bins.size() < w);
        }
        for (Part p : fragments) {
            int chosen = firstColumnFit(used, hasUpper, totals, p, l, true);
            boolean fresh = chosen < 0 && bins.size() < w;
            if (chosen < 0 && !fresh) {
                chosen = firstColumnFit(used, hasUpper, totals, p, l, false);
            }
            putColumn(bins, used, hasUpper, totals, chosen, p, false, fresh);
        }
        for (List<Part> bin : bins) {
            bin.sort(StructuralMatch::compareParts);
        }
        bins.sort((x, y) -> compareParts(x.get(0), y.get(0)));
        return bins;
    }

    private int firstColumnFit(List<Set<Long>> used, List<Boolean> hasUpper, List<int[]> totals, Part p, int l,
                               boolean onlyWithoutUpper) {
        for (int i = 0; i < used.size(); i++) {
            if ((!onlyWithoutUpper || !hasUpper.get(i)) && disjoint(used.get(i), p.signature)
                    && fitsColumn(totals.get(i), p, l)) {
                return i;
            }
        }
        return -1;
    }

    /** A level-l column holds {@code switchCount(k) / W_l} switches of each level k >= l. */
    private boolean fitsColumn(int[] total, Part p, int l) {
        for (int k = l; k <= h; k++) {
            if (total[k] + p.perLevel[k] > spec.switchCount(k) / spec.bigW(l)) {
                return false;
            }
        }
        return true;
    }

    private static void putColumn(List<List<Part>> bins, List<Set<Long>> used, List<Boolean> hasUpper,
                                  List<int[]> totals, int chosen, Part p, boolean upper, boolean fresh) {
        if (chosen >= 0) {
            bins.get(chosen).add(p);
            used.get(chosen).addAll(p.signature);
            hasUpper.set(chosen, hasUpper.get(chosen) || upper);
            add(totals.get(chosen), p.perLevel);
        } else if (fresh) {
            bins.add(new ArrayList<>(List.of(p)));
            used.add(new HashSet<>(p.signature));
            hasUpper.add(upper);
            totals.add(p.perLevel.clone());
        }
    }

    private static boolean disjoint(Set<Long> a, Set<Long> b) {
        for (Long x : b) {
            if (a.contains(x)) {
                return false;
            }
        }
        return true;
    }

    // ---- placement --------------------------------------------------------------------------

    private void place() {
        // Best-connected switches first: their pod and column are the most certain, so a clash
        // falls on a switch that lost links, which is then placed again from its neighbours.
        int[] degree = new int[n];
        List<Integer> order = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            if (placeable(s)) {
                for (int g = index.groupStart(s); g < index.groupStart(s + 1); g++) {
                    if (validPair(s, index.groupNeighbour(g))) {
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
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
            int t = neighbours[g];
            if (placed[t] && validPair(s, t)) {
                (level[t] > l ? up : down).add(t);
            }
        }
        if (up.isEmpty() && down.isEmpty()) {
            return false;
        }
        int[] candA;
        if (l == h) {
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

    // ---- verification -----------------------------------------------------------------------

    /** A switch the leaves reach but no position fits: names its neighbours, which are what is wrong. */
    private void unplaceable(int s) {
        long guid = index.switchGuid(s);
        List<Long> devices = new ArrayList<>();
        devices.add(guid);
        StringBuilder neighbours = new StringBuilder();
        for (int g = index.groupStart(s); g < index.groupStart(s + 1); g++) {
            int t = index.groupNeighbour(g);
            devices.add(index.switchGuid(t));
            if (neighbours.length() > 0) {
                neighbours.append(", ");
            }
            neighbours.append(Describe.device(fabric, index.switchGuid(t))).append(" (level ").append(level[t]).append(')');
        }
        problems.add(new Problem(Kind.UNPLACEABLE, "level-" + level[s] + " switch " + Describe.device(fabric, guid)
                + " fits no position of " + spec + " given its neighbours " + neighbours, devices, List.of()));
    }

    /** Checks every cable between placed switches; returns the cable count per (lower, upper) pair. */
    private Map<Long, Integer> checkSwitchLinks() {
        Map<Long, Integer> multiplicity = new HashMap<>();
        for (Link link : fabric.links()) {
            int a = index.switchId(link.a());
            int b = index.switchId(link.b());
            if (a == FabricIndex.NONE || b == FabricIndex.NONE || !validPair(a, b) || !placed[a] || !placed[b]) {
                continue;
            }
            int lower = level[a] < level[b] ? a : b;
            int upper = lower == a ? b : a;
            int l = level[lower];
            if (labelA[upper] != labelA[lower] / spec.m(l + 1) || labelB[upper] % spec.bigW(l) != labelB[lower]) {
                add(Kind.WRONG_NEIGHBOUR, Describe.link(fabric, link) + ": in " + spec + " the level-" + (l + 1)
                        + " switch is not a parent of the level-" + l + " switch", link);
                continue;
            }
            int count = multiplicity.merge((long) lower * n + upper, 1, Integer::sum);
            if (count > spec.p(l + 1)) {
                add(Kind.EXTRA_LINK, Describe.link(fabric, link) + ": more than the " + spec.p(l + 1)
                        + " parallel links of " + spec + " between these switches", link);
            }
        }
        return multiplicity;
    }

    private void missingSwitchLinks(Map<Long, Integer> multiplicity, List<MissingLink> missing) {
        for (int s = 0; s < n; s++) {
            int l = level[s];
            if (!placed[s] || l >= h) {
                continue;
            }
            int base = (labelA[s] / spec.m(l + 1)) * spec.bigW(l + 1) + labelB[s];
            for (int b = 0; b < spec.w(l + 1); b++) {
                Integer t = slots.get(l + 1).get(base + b * spec.bigW(l));
                if (t == null) {
                    continue;
                }
                int found = multiplicity.getOrDefault((long) s * n + t, 0);
                for (int j = found; j < spec.p(l + 1); j++) {
                    missing.add(new MissingLink(index.switchGuid(s), 0, index.switchGuid(t), 0));
                }
            }
        }
    }

    /** Node counts per placed leaf; returns the number of nodes attached to a switch. */
    private int checkNodes(List<MissingLink> missing) {
        int m1 = spec.m(1);
        for (int s = 0; s < n; s++) {
            if (!placed[s] || level[s] != 1) {
                continue;
            }
            int[] nodesOnPort = index.peerNodes(s);
            List<Long> extra = new ArrayList<>();
            int count = 0;
            for (int p = 1; p < nodesOnPort.length; p++) {
                if (nodesOnPort[p] != FabricIndex.NONE) {
                    if (++count > m1) {
                        extra.add(index.nodeGuid(nodesOnPort[p]));
                    }
                }
            }
            if (!extra.isEmpty()) {
                List<Long> devices = new ArrayList<>(extra);
                devices.add(0, index.switchGuid(s));
                problems.add(new Problem(Kind.EXTRA_NODE, "leaf " + Describe.device(fabric, index.switchGuid(s)) + " has "
                        + count + " end nodes, " + spec + " has " + m1 + " per leaf", devices, List.of()));
            }
            for (int k = count; k < m1; k++) {
                missing.add(new MissingLink(index.switchGuid(s), 0, 0, 0));
            }
        }
        int attached = 0;
        for (int i = 0; i < index.nodeCount(); i++) {
            if (index.nodeLeaf(i) != FabricIndex.NONE) {
                attached++;
            }
        }
        return attached;
    }

    private void add(Kind kind, String detail, Link link) {
        problems.add(Problems.ofLink(kind, detail, link));
    }

    private static int[] filled(int size) {
        int[] a = new int[size];
        Arrays.fill(a, -1);
        return a;
    }
}
