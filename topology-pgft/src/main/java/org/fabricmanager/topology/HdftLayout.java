package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The rows and columns of a 2-D fat tree (HDFT), found from the structure of a fabric alone, any
 * GUIDs: the grid position of every leaf and the row and column switches of every row and column.
 * The VTFTR engine routes with it; recognition uses it for fabrics without canonical GUIDs.
 *
 * <p>How it is found. Switch links of an HDFT join leaves to row or column switches only, so the
 * switch graph is bipartite; in each connected part the side holding switches with end nodes is
 * the leaf side (a leaf that lost its nodes is still found there). The other switches are grouped
 * by the set of leaves they reach: switches reaching the same set serve one row or one column, and
 * groups sharing at least two leaves, and most of the smaller group's, are one line too (a row
 * and a column share at most one leaf), which keeps together switches of one line that lost
 * different cables. A leaf in exactly two groups has them as its row and its column, of opposite
 * kinds, so the groups are two-coloured through such leaves; groups of one colour that share a leaf
 * are then one line. In each connected part the colour holding the switch with the lowest GUID is
 * "rows" (with the canonical numbering of {@link HdftGenerator}, row switches come first). Rows
 * and columns are numbered by the lowest GUID of their switches. A leaf left with no row (or no
 * column) switch at all gets a row (column) of its own, with no switches, after the others.
 *
 * <p>Failed leaves simply leave their grid cell empty ({@link #leafAt} gives {@link #NONE}); a row
 * or column whose leaves have all failed disappears with them, its switches being
 * {@link Role#UNUSED}. Failed row or column switches leave their group smaller.
 */
public final class HdftLayout {
    /** Marker for "no switch" and "no row or column". */
    public static final int NONE = FabricIndex.NONE;

    /** What a switch is in the layout. */
    public enum Role {
        /** A leaf switch on the grid. */
        LEAF,
        /** A row switch: linked to leaves of one row. */
        ROW,
        /** A column switch: linked to leaves of one column. */
        COLUMN,
        /** A switch no leaf reaches (e.g. the row switches of a row whose leaves all failed). */
        UNUSED
    }

    private final FabricIndex index;
    private final Role[] role;
    private final int[] line;
    private final int[] leafRow;
    private final int[] leafColumn;
    private final int rows;
    private final int columns;
    private final int switchedRows;
    private final int switchedColumns;
    private final int[] grid;
    private final int[][] rowSwitches;
    private final int[][] columnSwitches;

    private HdftLayout(Builder b) {
        this.index = b.index;
        this.role = b.role;
        this.line = b.line;
        this.leafRow = b.leafRow;
        this.leafColumn = b.leafColumn;
        this.rows = b.rows;
        this.columns = b.columns;
        this.switchedRows = b.switchedRows;
        this.switchedColumns = b.switchedColumns;
        this.grid = b.grid;
        this.rowSwitches = b.rowSwitches;
        this.columnSwitches = b.columnSwitches;
    }

    /**
     * Finds the layout of {@code index}.
     *
     * @throws TopologyException naming the switches involved when the fabric is not a (degraded) 2-D
     *                           fat tree: an odd cycle of switch links (e.g. two linked leaves),
     *                           nodes on a row or column switch, a leaf in three groups, or rows and
     *                           columns that cannot be told apart
     */
    public static HdftLayout of(FabricIndex index) {
        return new HdftLayout(new Builder(index).build());
    }

    public FabricIndex index() {
        return index;
    }

    /** Rows of the grid, those of their own (no row switch) included. */
    public int rows() {
        return rows;
    }

    /** Columns of the grid, those of their own (no column switch) included. */
    public int columns() {
        return columns;
    }

    /** Rows {@code 0..switchedRows()-1} have row switches; the rows after them are leaves' own. */
    public int switchedRows() {
        return switchedRows;
    }

    /** Columns {@code 0..switchedColumns()-1} have column switches; the columns after them are leaves' own. */
    public int switchedColumns() {
        return switchedColumns;
    }

    /** The leaf at column {@code x}, row {@code y}, or {@link #NONE} when the cell is empty. */
    public int leafAt(int x, int y) {
        return grid[y * columns + x];
    }

    /** The role of switch {@code s}. */
    public Role role(int s) {
        return role[s];
    }

    /** The row of leaf {@code s}, or {@link #NONE} for a switch that is not a leaf. */
    public int leafRow(int s) {
        return leafRow[s];
    }

    /** The column of leaf {@code s}, or {@link #NONE} for a switch that is not a leaf. */
    public int leafColumn(int s) {
        return leafColumn[s];
    }

    /** For a row switch its row, for a column switch its column, else {@link #NONE}. */
    public int lineOf(int s) {
        return line[s];
    }

    /** The row switches of row {@code y}, ascending id (shared array: do not modify). */
    public int[] rowSwitches(int y) {
        return rowSwitches[y];
    }

    /** The column switches of column {@code x}, ascending id (shared array: do not modify). */
    public int[] columnSwitches(int x) {
        return columnSwitches[x];
    }

    /** Leaves on the grid. */
    public int leafCount() {
        int n = 0;
        for (int s : grid) {
            if (s != NONE) {
                n++;
            }
        }
        return n;
    }

    /** Switches with role {@code r}. */
    public int count(Role r) {
        int n = 0;
        for (Role x : role) {
            if (x == r) {
                n++;
            }
        }
        return n;
    }

    /** A set of leaf ids (sorted), compared by content. */
    private static final class LeafSet {
        final int[] leaves;
        final int hash;

        LeafSet(int[] leaves) {
            this.leaves = leaves;
            this.hash = Arrays.hashCode(leaves);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LeafSet l && Arrays.equals(l.leaves, leaves);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** One group of row or column switches. */
    private static final class Group {
        final LeafSet set;
        final List<Integer> members = new ArrayList<>();
        int id;
        int colour = -1;
        int number = NONE;

        Group(LeafSet set) {
            this.set = set;
        }

        int minMember() {
            int m = Integer.MAX_VALUE;
            for (int s : members) {
                m = Math.min(m, s);
            }
            return m;
        }
    }

    private static final class Builder {
        final FabricIndex index;
        final int n;
        final Role[] role;
        final int[] line;
        final int[] leafRow;
        final int[] leafColumn;
        int rows;
        int columns;
        int switchedRows;
        int switchedColumns;
        int[] grid;
        int[][] rowSwitches;
        int[][] columnSwitches;
        /** Per leaf id: the (at most two) groups it belongs to. */
        Map<Integer, List<Group>> rootsByLeaf;

        Builder(FabricIndex index) {
            this.index = index;
            this.n = index.switchCount();
            this.role = new Role[n];
            this.line = filled(n);
            this.leafRow = filled(n);
            this.leafColumn = filled(n);
        }

        Builder build() {
            findLeaves();
            List<Group> lines = colour(groups());
            place(lines);
            return this;
        }

        private String name(int s) {
            return Describe.device(index.fabric(), index.switchGuid(s));
        }

        /** Two-colours each connected part of the switch graph; the side with end nodes holds the leaves. */
        private void findLeaves() {
            int[] side = filled(n);
            int[] queue = new int[n];
            List<Integer> part = new ArrayList<>();
            for (int start = 0; start < n; start++) {
                if (side[start] != NONE) {
                    continue;
                }
                part.clear();
                side[start] = 0;
                int head = 0;
                int tail = 0;
                queue[tail++] = start;
                while (head < tail) {
                    int s = queue[head++];
                    part.add(s);
                    int[] peers = index.peerSwitches(s);
                    for (int p = 1; p < peers.length; p++) {
                        int t = peers[p];
                        if (t == NONE) {
                            continue;
                        }
                        if (t == s) {
                            throw new TopologyException("not a 2-D fat tree: switch " + name(s) + " is linked to itself"
                                    + " (port " + p + ")");
                        }
                        if (side[t] == NONE) {
                            side[t] = 1 - side[s];
                            queue[tail++] = t;
                        } else if (side[t] == side[s]) {
                            throw new TopologyException("not a 2-D fat tree: the switch links have an odd cycle through "
                                    + name(s) + " and " + name(t) + " (links join leaves to row and column switches"
                                    + " only; e.g. two leaves, or a row and a column switch, are linked)");
                        }
                    }
                }
                int leafSide = NONE;
                int example = NONE;
                for (int s : part) {
                    if (index.isLeaf(s)) {
                        if (leafSide == NONE) {
                            leafSide = side[s];
                            example = s;
                        } else if (side[s] != leafSide) {
                            throw new TopologyException("not a 2-D fat tree: end nodes on both " + name(example)
                                    + " and " + name(s) + ", which are linked through an odd number of switches"
                                    + " (end nodes belong on leaves only)");
                        }
                    }
                }
                for (int s : part) {
                    role[s] = leafSide == NONE ? Role.UNUSED : side[s] == leafSide ? Role.LEAF : null;
                }
            }
        }

        /**
         * Groups of row or column switches: switches reaching the same leaves, then groups sharing
         * at least two leaves and most of the smaller group's (a row and a column share at most
         * one), so that switches that lost different cables of one line stay together.
         */
        private List<Group> groups() {
            Map<LeafSet, Group> bySet = new HashMap<>();
            List<Group> exact = new ArrayList<>();
            int[] groupStart = index.groupStartArray();
            int[] neighbours = index.groupNeighbourArray();
            for (int s = 0; s < n; s++) {
                if (role[s] != null) {
                    continue;
                }
                // groups are sorted by neighbour id and distinct, and every neighbour is a leaf
                LeafSet set = new LeafSet(Arrays.copyOfRange(neighbours, groupStart[s], groupStart[s + 1]));
                Group g = bySet.get(set);
                if (g == null) {
                    g = new Group(set);
                    bySet.put(set, g);
                    exact.add(g);
                }
                g.members.add(s);
            }
            Map<Integer, List<Integer>> exactByLeaf = new HashMap<>();
            for (int i = 0; i < exact.size(); i++) {
                for (int leaf : exact.get(i).set.leaves) {
                    exactByLeaf.computeIfAbsent(leaf, k -> new ArrayList<>(2)).add(i);
                }
            }
            Map<Long, Integer> shared = new HashMap<>();
            for (List<Integer> at : exactByLeaf.values()) {
                for (int a = 0; a < at.size(); a++) {
                    for (int b = a + 1; b < at.size(); b++) {
                        shared.merge(((long) at.get(a) << 32) | at.get(b), 1, Integer::sum);
                    }
                }
            }
            UnionFind lines = new UnionFind(exact.size());
            for (Map.Entry<Long, Integer> e : shared.entrySet()) {
                int a = (int) (e.getKey() >>> 32);
                int b = (int) (e.getKey() & 0xFFFF_FFFFL);
                int smaller = Math.min(exact.get(a).set.leaves.length, exact.get(b).set.leaves.length);
                // most of the smaller set: fat-tree switches of other shapes share some leaves, not most
                if (e.getValue() >= 2 && 2 * e.getValue() > smaller) {
                    lines.union(a, b);
                }
            }
            Map<Integer, List<Group>> classes = new HashMap<>();
            for (int i = 0; i < exact.size(); i++) {
                classes.computeIfAbsent(lines.find(i), k -> new ArrayList<>()).add(exact.get(i));
            }
            List<Group> merged = new ArrayList<>();
            for (List<Group> parts : classes.values()) {
                merged.add(merge(parts));
            }
            merged.sort(Comparator.comparingInt((Group g) -> -g.set.leaves.length).thenComparingInt(Group::minMember));
            Map<Integer, List<Group>> rootsByLeaf = new HashMap<>();
            List<Group> roots = new ArrayList<>();
            for (Group g : merged) {
                if (g.set.leaves.length == 1 && rootsByLeaf.getOrDefault(g.set.leaves[0], List.of()).size() >= 2) {
                    // linked to one leaf that already has its row and column: a switch that lost all
                    // its other cables, of no use for routing and of unknown kind
                    for (int s : g.members) {
                        role[s] = Role.UNUSED;
                    }
                    continue;
                }
                roots.add(g);
                for (int leaf : g.set.leaves) {
                    rootsByLeaf.computeIfAbsent(leaf, k -> new ArrayList<>(2)).add(g);
                }
            }
            this.rootsByLeaf = rootsByLeaf;
            return roots;
        }

        /** One group of the switches of {@code parts}, reaching the union of their leaves. */
        private static Group merge(List<Group> parts) {
            if (parts.size() == 1) {
                parts.get(0).members.sort(Integer::compare);
                return parts.get(0);
            }
            TreeSet<Integer> leaves = new TreeSet<>();
            for (Group p : parts) {
                for (int leaf : p.set.leaves) {
                    leaves.add(leaf);
                }
            }
            int[] union = new int[leaves.size()];
            int i = 0;
            for (int leaf : leaves) {
                union[i++] = leaf;
            }
            Group g = new Group(new LeafSet(union));
            for (Group p : parts) {
                g.members.addAll(p.members);
            }
            g.members.sort(Integer::compare);
            return g;
        }

        /**
         * Two-colours the groups into rows and columns, then merges the groups of one colour that
         * share a leaf (one line whose switches lost different cables). A leaf in exactly two
         * groups says they are its row and its column, of opposite colours; a leaf in more groups
         * says nothing by itself, its groups being coloured through other leaves.
         */
        private List<Group> colour(List<Group> roots) {
            Map<Group, List<Group>> adjacent = new HashMap<>();
            for (List<Group> pair : rootsByLeaf.values()) {
                if (pair.size() == 2) {
                    adjacent.computeIfAbsent(pair.get(0), k -> new ArrayList<>()).add(pair.get(1));
                    adjacent.computeIfAbsent(pair.get(1), k -> new ArrayList<>()).add(pair.get(0));
                }
            }
            List<Group> sorted = new ArrayList<>(roots);
            sorted.sort(Comparator.comparingInt(Group::minMember));
            List<Group> part = new ArrayList<>();
            for (Group start : sorted) {
                if (start.colour >= 0) {
                    continue;
                }
                if (!adjacent.containsKey(start)) {
                    for (int leaf : start.set.leaves) {
                        if (rootsByLeaf.get(leaf).size() > 2) {
                            throw new TopologyException("not a 2-D fat tree: leaf " + name(leaf) + " is linked to"
                                    + " switches of " + rootsByLeaf.get(leaf).size() + " groups that cannot be told apart"
                                    + " as its row and its column (" + names(rootsByLeaf.get(leaf)) + ")");
                        }
                    }
                }
                // the part's lowest switch is in 'start' (sorted order), which makes its colour "rows" (0)
                part.clear();
                start.colour = 0;
                part.add(start);
                for (int i = 0; i < part.size(); i++) {
                    Group g = part.get(i);
                    for (Group h : adjacent.getOrDefault(g, List.of())) {
                        if (h.colour < 0) {
                            h.colour = 1 - g.colour;
                            part.add(h);
                        } else if (h.colour == g.colour) {
                            throw new TopologyException("not a 2-D fat tree: rows and columns cannot be told apart:"
                                    + " the groups of " + name(g.members.get(0)) + " and " + name(h.members.get(0))
                                    + " share a leaf but are both linked to a third group's leaves (odd cycle)");
                        }
                    }
                }
            }
            for (int i = 0; i < roots.size(); i++) {
                roots.get(i).id = i;
            }
            UnionFind lines = new UnionFind(roots.size());
            for (List<Group> at : rootsByLeaf.values()) {
                Group[] first = new Group[2];
                for (Group g : at) {
                    if (first[g.colour] == null) {
                        first[g.colour] = g;
                    } else {
                        lines.union(first[g.colour].id, g.id);
                    }
                }
            }
            Map<Integer, List<Group>> classes = new HashMap<>();
            for (Group g : roots) {
                classes.computeIfAbsent(lines.find(g.id), k -> new ArrayList<>()).add(g);
            }
            List<Group> merged = new ArrayList<>();
            Map<Integer, List<Group>> byLeaf = new HashMap<>();
            for (List<Group> parts : classes.values()) {
                Group g = merge(parts);
                g.colour = parts.get(0).colour;
                merged.add(g);
                for (int leaf : g.set.leaves) {
                    byLeaf.computeIfAbsent(leaf, k -> new ArrayList<>(2)).add(g);
                }
            }
            rootsByLeaf = byLeaf;
            return merged;
        }

        private String names(List<Group> groups) {
            StringBuilder sb = new StringBuilder();
            for (Group g : groups) {
                sb.append(sb.length() == 0 ? "" : ", ").append(name(g.members.get(0)));
            }
            return sb.toString();
        }

        /** Numbers rows and columns and places every leaf. */
        private void place(List<Group> roots) {
            List<Group> rowGroups = new ArrayList<>();
            List<Group> columnGroups = new ArrayList<>();
            for (Group g : roots) {
                (g.colour == 0 ? rowGroups : columnGroups).add(g);
            }
            rowGroups.sort(Comparator.comparingInt(Group::minMember));
            columnGroups.sort(Comparator.comparingInt(Group::minMember));
            switchedRows = rowGroups.size();
            switchedColumns = columnGroups.size();
            for (int i = 0; i < rowGroups.size(); i++) {
                rowGroups.get(i).number = i;
            }
            for (int i = 0; i < columnGroups.size(); i++) {
                columnGroups.get(i).number = i;
            }
            int ownRows = 0;
            int ownColumns = 0;
            for (int s = 0; s < n; s++) {
                if (role[s] != Role.LEAF) {
                    continue;
                }
                for (Group g : rootsByLeaf.getOrDefault(s, List.of())) {
                    if (g.colour == 0) {
                        leafRow[s] = g.number;
                    } else {
                        leafColumn[s] = g.number;
                    }
                }
                if (leafRow[s] == NONE) {
                    leafRow[s] = switchedRows + ownRows++;
                }
                if (leafColumn[s] == NONE) {
                    leafColumn[s] = switchedColumns + ownColumns++;
                }
            }
            rows = switchedRows + ownRows;
            columns = switchedColumns + ownColumns;
            grid = filled(Math.multiplyExact(rows, columns));
            for (int s = 0; s < n; s++) {
                if (role[s] != Role.LEAF) {
                    continue;
                }
                int cell = leafRow[s] * columns + leafColumn[s];
                if (grid[cell] != NONE) {
                    throw new TopologyException("not a 2-D fat tree: leaves " + name(grid[cell]) + " and " + name(s)
                            + " are both in row " + leafRow[s] + " and column " + leafColumn[s]
                            + " (a row and a column share at most one leaf)");
                }
                grid[cell] = s;
            }
            rowSwitches = new int[rows][];
            columnSwitches = new int[columns][];
            Arrays.fill(rowSwitches, new int[0]);
            Arrays.fill(columnSwitches, new int[0]);
            for (Group g : rowGroups) {
                rowSwitches[g.number] = members(g, Role.ROW);
            }
            for (Group g : columnGroups) {
                columnSwitches[g.number] = members(g, Role.COLUMN);
            }
        }

        private int[] members(Group g, Role r) {
            int[] out = new int[g.members.size()];
            for (int i = 0; i < out.length; i++) {
                int s = g.members.get(i);
                out[i] = s;
                role[s] = r;
                line[s] = g.number;
            }
            return out;
        }

        private static int[] filled(int size) {
            int[] a = new int[size];
            Arrays.fill(a, NONE);
            return a;
        }
    }
}
