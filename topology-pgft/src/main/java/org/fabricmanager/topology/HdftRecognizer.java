package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.fabricmanager.topology.HdftRecognition.Cell;
import org.fabricmanager.topology.HdftRecognition.RoleCount;
import org.fabricmanager.topology.HdftRecognition.Slot;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.MissingNode;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.Verdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says whether a fabric is a given 2-D fat tree (HDFT), intact or with parts missing (failed leaves,
 * row or column switches, cables), or not; and infers the HDFT of an intact fabric. Fabrics whose
 * GUIDs follow the canonical numbering of {@link HdftGenerator} are compared entry by entry, by GUID
 * and port; others are placed by structure with {@link HdftLayout} (ports not checked).
 */
public final class HdftRecognizer {
    private static final Logger LOG = LoggerFactory.getLogger(HdftRecognizer.class);

    private HdftRecognizer() {
    }

    /** Checks {@code fabric} against its own {@code hdft} if it has one, else against the HDFT inferred from it. */
    public static HdftRecognition recognize(Fabric fabric) {
        HdftRecognition r;
        if (fabric.hdft().isPresent()) {
            r = check(fabric, fabric.hdft().get(), SpecSource.FABRIC);
        } else {
            r = inferred(fabric);
        }
        LOG.debug("recognition: {}", r.summary());
        return r;
    }

    /** Checks {@code fabric} against {@code expected}. */
    public static HdftRecognition recognize(Fabric fabric, HdftSpec expected) {
        HdftRecognition r = check(fabric, expected, SpecSource.GIVEN);
        LOG.debug("recognition: {}", r.summary());
        return r;
    }

    /** The HDFT of {@code fabric} when it is an intact one, else empty. */
    public static Optional<HdftSpec> infer(Fabric fabric) {
        HdftRecognition r = inferred(fabric);
        return r.verdict() == Verdict.INTACT ? Optional.of(r.spec()) : Optional.empty();
    }

    /** True when every switch GUID is in the HDFT family and every node GUID in the node family. */
    static boolean canonicalGuids(Fabric fabric) {
        if (fabric.switches().isEmpty()) {
            return false;
        }
        for (FabricSwitch s : fabric.switches()) {
            long role = (s.guid() >>> 32) & 0x0FFF_FFFFL;
            if ((s.guid() >>> 60) != 3 || role < HdftGenerator.LEAF_ROLE || role > HdftGenerator.COLUMN_ROLE) {
                return false;
            }
        }
        for (EndNode n : fabric.nodes()) {
            if ((n.guid() >>> 60) != 2 || n.guid() - PgftGenerator.NODE_GUID_BASE > Integer.MAX_VALUE) {
                return false;
            }
        }
        return true;
    }

    private static HdftRecognition check(Fabric fabric, HdftSpec spec, SpecSource source) {
        if (spec.totalSwitchCount() > PgftRecognizer.MAX_SWITCHES || spec.nodeCount() > PgftRecognizer.MAX_NODES) {
            throw new TopologyException(spec + " is too large to check (" + spec.totalSwitchCount() + " switches, "
                    + spec.nodeCount() + " nodes; at most " + PgftRecognizer.MAX_SWITCHES + " and "
                    + PgftRecognizer.MAX_NODES + ")");
        }
        return canonicalGuids(fabric) ? new ByGuid(fabric, spec).run(source) : byStructure(fabric, spec, source);
    }

    private static HdftRecognition inferred(Fabric fabric) {
        int attached = FabricSummary.of(fabric).attachedNodes();
        HdftLayout layout;
        try {
            layout = HdftLayout.of(fabric.index());
        } catch (TopologyException e) {
            return unrecognised(fabric, attached, e.getMessage());
        }
        String irregular = irregularity(layout);
        if (irregular != null) {
            return unrecognised(fabric, attached, irregular);
        }
        FabricIndex index = layout.index();
        int k = index.leafNodeStart(1) - index.leafNodeStart(0);
        HdftSpec spec = new HdftSpec(layout.columns(), layout.rows(), k, layout.rowSwitches(0).length,
                layout.columnSwitches(0).length);
        if (canonicalGuids(fabric)) {
            HdftRecognition r = new ByGuid(fabric, spec).run(SpecSource.INFERRED);
            if (r.verdict() == Verdict.INTACT) {
                return r;
            }
        }
        return byStructure(fabric, spec, SpecSource.INFERRED);
    }

    /** Why {@code layout} is not an intact, uniform HDFT, or null when it is one. */
    private static String irregularity(HdftLayout layout) {
        FabricIndex index = layout.index();
        if (layout.leafCount() == 0) {
            return "no leaf switch (no end node is linked to a switch)";
        }
        if (layout.switchedRows() < layout.rows() || layout.switchedColumns() < layout.columns()) {
            return "some leaves have no row or no column switch";
        }
        if (layout.leafCount() != layout.rows() * layout.columns()) {
            return "the grid of " + layout.columns() + " x " + layout.rows() + " leaves has "
                    + (layout.rows() * layout.columns() - layout.leafCount()) + " empty cells";
        }
        if (index.leafCount() != layout.leafCount()) {
            return "some leaves have no end node";
        }
        int k = index.leafNodeStart(1) - index.leafNodeStart(0);
        for (int l = 0; l < index.leafCount(); l++) {
            if (index.leafNodeStart(l + 1) - index.leafNodeStart(l) != k) {
                return "leaves have different numbers of end nodes";
            }
        }
        if (index.nodeCount() != index.leafNodeArray().length) {
            return "some end nodes have no link";
        }
        int r = layout.rowSwitches(0).length;
        int c = layout.columnSwitches(0).length;
        for (int y = 0; y < layout.rows(); y++) {
            if (layout.rowSwitches(y).length != r || !single(layout, layout.rowSwitches(y), layout.columns())) {
                return "rows have different row switches or cable counts";
            }
        }
        for (int x = 0; x < layout.columns(); x++) {
            if (layout.columnSwitches(x).length != c || !single(layout, layout.columnSwitches(x), layout.rows())) {
                return "columns have different column switches or cable counts";
            }
        }
        if (layout.count(HdftLayout.Role.UNUSED) > 0) {
            return "some switches are not linked to any leaf";
        }
        return null;
    }

    /** Every switch of {@code line} has exactly one cable to each of {@code leaves} leaves and no other. */
    private static boolean single(HdftLayout layout, int[] switches, int leaves) {
        FabricIndex index = layout.index();
        for (int s : switches) {
            int cables = 0;
            for (int p : index.peerSwitches(s)) {
                if (p != FabricIndex.NONE) {
                    cables++;
                }
            }
            if (cables != leaves || index.groupCount(s) != leaves) {
                return false;
            }
        }
        return true;
    }

    private static HdftRecognition unrecognised(Fabric fabric, int attached, String why) {
        return new HdftRecognition(Verdict.UNRECOGNISED, null, SpecSource.NONE, Matching.BY_STRUCTURE,
                List.of(), -1, attached, List.of(), List.of(), List.of(), List.of(), List.of(),
                List.of(new Problem(Kind.IRREGULAR, "not an intact HDFT: " + why, List.of(), List.of())),
                List.of(), List.of());
    }

    /**
     * Places switches by structure and compares the counts with {@code spec}, rows and columns
     * possibly swapped (structure cannot tell them apart).
     */
    private static HdftRecognition byStructure(Fabric fabric, HdftSpec spec, SpecSource source) {
        int attached = FabricSummary.of(fabric).attachedNodes();
        List<Problem> problems = new ArrayList<>();
        HdftLayout layout;
        try {
            layout = HdftLayout.of(fabric.index());
        } catch (TopologyException e) {
            problems.add(new Problem(Kind.UNPLACEABLE, e.getMessage(), List.of(), List.of()));
            return new HdftRecognition(Verdict.MISWIRED, spec, source, Matching.BY_STRUCTURE, List.of(),
                    spec.nodeCount(), attached, List.of(), List.of(), List.of(), List.of(), List.of(), problems,
                    List.of(), List.of());
        }
        boolean straight = layout.switchedColumns() <= spec.columns() && layout.switchedRows() <= spec.rows();
        boolean swapped = layout.switchedColumns() <= spec.rows() && layout.switchedRows() <= spec.columns();
        int rowSwitches = straight ? spec.rowSwitches() : spec.columnSwitches();
        int columnSwitches = straight ? spec.columnSwitches() : spec.rowSwitches();
        if (!straight && !swapped) {
            problems.add(new Problem(Kind.EXTRA_SWITCH, "the fabric has " + layout.switchedColumns() + " columns and "
                    + layout.switchedRows() + " rows of switches, more than " + spec + " has", List.of(), List.of()));
        }
        if (layout.leafCount() > spec.leafCount()) {
            problems.add(new Problem(Kind.EXTRA_SWITCH, "the fabric has " + layout.leafCount() + " leaves, " + spec
                    + " has " + spec.leafCount(), List.of(), List.of()));
        }
        FabricIndex index = layout.index();
        for (int l = 0; l < index.leafCount(); l++) {
            int nodes = index.leafNodeStart(l + 1) - index.leafNodeStart(l);
            if (nodes > spec.nodesPerLeaf()) {
                int s = index.leaves()[l];
                problems.add(new Problem(Kind.EXTRA_NODE, "leaf " + Describe.device(fabric, index.switchGuid(s)) + " has "
                        + nodes + " end nodes, " + spec + " gives each leaf " + spec.nodesPerLeaf(),
                        List.of(index.switchGuid(s)), List.of()));
            }
        }
        for (int y = 0; y < layout.switchedRows(); y++) {
            tooMany(problems, fabric, layout.rowSwitches(y), rowSwitches, "row " + y, spec);
        }
        for (int x = 0; x < layout.switchedColumns(); x++) {
            tooMany(problems, fabric, layout.columnSwitches(x), columnSwitches, "column " + x, spec);
        }
        List<Cell> missing = new ArrayList<>();
        TreeSet<Integer> faultRows = new TreeSet<>();
        TreeSet<Integer> faultColumns = new TreeSet<>();
        for (int y = 0; y < layout.switchedRows(); y++) {
            for (int x = 0; x < layout.switchedColumns(); x++) {
                if (layout.leafAt(x, y) == HdftLayout.NONE) {
                    missing.add(new Cell(x, y));
                    faultRows.add(y);
                    faultColumns.add(x);
                }
            }
        }
        List<RoleCount> roles = List.of(
                new RoleCount("leaves", spec.leafCount(), layout.leafCount()),
                new RoleCount("row", spec.rowSwitchCount(), layout.count(HdftLayout.Role.ROW)),
                new RoleCount("column", spec.columnSwitchCount(), layout.count(HdftLayout.Role.COLUMN)));
        boolean intact = missing.isEmpty() && layout.leafCount() == spec.leafCount()
                && layout.count(HdftLayout.Role.ROW) == spec.rowSwitchCount()
                && layout.count(HdftLayout.Role.COLUMN) == spec.columnSwitchCount()
                && attached == spec.nodeCount() && irregularity(layout) == null;
        Verdict verdict = !problems.isEmpty() ? Verdict.MISWIRED : intact ? Verdict.INTACT : Verdict.DEGRADED;
        return new HdftRecognition(verdict, spec, source, Matching.BY_STRUCTURE, roles, spec.nodeCount(), attached,
                missing, List.of(), List.of(), List.of(), List.of(), problems, List.copyOf(faultRows),
                List.copyOf(faultColumns));
    }

    private static void tooMany(List<Problem> problems, Fabric fabric, int[] switches, int expected, String where,
                                HdftSpec spec) {
        if (switches.length > expected) {
            problems.add(new Problem(Kind.EXTRA_SWITCH, where + " has " + switches.length + " switches ("
                    + Describe.device(fabric, fabric.index().switchGuid(switches[0])) + ", ...), " + spec + " has "
                    + expected, List.of(), List.of()));
        }
    }

    /** Exact comparison with the canonical fabric, by GUID and port. */
    private static final class ByGuid {
        private final Fabric fabric;
        private final HdftSpec spec;
        private final List<Problem> problems = new ArrayList<>();

        ByGuid(Fabric fabric, HdftSpec spec) {
            this.fabric = fabric;
            this.spec = spec;
        }

        /** Role of a canonical switch GUID of the spec (1 leaf, 2 row, 3 column), or 0. */
        private int role(long guid) {
            if ((guid >>> 60) != 3) {
                return 0;
            }
            long role = (guid >>> 32) & 0x0FFF_FFFFL;
            long idx = guid & 0xFFFF_FFFFL;
            long count = role == HdftGenerator.LEAF_ROLE ? spec.leafCount()
                    : role == HdftGenerator.ROW_ROLE ? spec.rowSwitchCount()
                    : role == HdftGenerator.COLUMN_ROLE ? spec.columnSwitchCount() : 0;
            return idx < count ? (int) role : 0;
        }

        private static int position(long guid) {
            return CanonicalGuids.position(guid);
        }

        private int nodeIndex(long guid) {
            return CanonicalGuids.nodeIndex(guid, spec.nodeCount());
        }

        private int radix(int role) {
            return role == HdftGenerator.LEAF_ROLE ? spec.leafRadix()
                    : role == HdftGenerator.ROW_ROLE ? spec.columns() : spec.rows();
        }

        private static String roleName(int role) {
            return role == HdftGenerator.LEAF_ROLE ? "leaf" : role == HdftGenerator.ROW_ROLE ? "row switch"
                    : "column switch";
        }

        HdftRecognition run(SpecSource source) {
            int[] present = new int[4];
            for (FabricSwitch s : fabric.switches()) {
                int role = role(s.guid());
                if (role == 0) {
                    problems.add(Problems.noPosition(Kind.EXTRA_SWITCH, "switch", fabric, s.guid(), spec));
                    continue;
                }
                present[role]++;
                if (s.ports() < radix(role)) {
                    problems.add(new Problem(Kind.TOO_FEW_PORTS, roleName(role) + " " + Describe.device(fabric, s.guid())
                            + " has " + s.ports() + " ports, " + spec + " needs " + radix(role), List.of(s.guid()),
                            List.of()));
                }
            }
            for (EndNode n : fabric.nodes()) {
                if (nodeIndex(n.guid()) < 0) {
                    problems.add(Problems.noPosition(Kind.EXTRA_NODE, "node", fabric, n.guid(), spec));
                }
            }
            List<Link> canonicalLinks = HdftGenerator.generate(spec).links();
            Set<Link> canonical = new HashSet<>();
            for (Link l : canonicalLinks) {
                canonical.add(l.normalized());
            }
            Set<Link> present2 = new HashSet<>();
            for (Link l : fabric.links()) {
                Link norm = l.normalized();
                present2.add(norm);
                if (!canonical.contains(norm)) {
                    classify(l);
                }
            }
            List<Cell> missingLeaves = new ArrayList<>();
            TreeSet<Integer> faultRows = new TreeSet<>();
            TreeSet<Integer> faultColumns = new TreeSet<>();
            for (int y = 0; y < spec.rows(); y++) {
                for (int x = 0; x < spec.columns(); x++) {
                    if (!fabric.isSwitch(HdftGenerator.leafGuid(spec, x, y))) {
                        missingLeaves.add(new Cell(x, y));
                        faultRows.add(y);
                        faultColumns.add(x);
                    }
                }
            }
            List<Slot> missingRows = new ArrayList<>();
            for (int y = 0; y < spec.rows(); y++) {
                for (int j = 0; j < spec.rowSwitches(); j++) {
                    if (!fabric.isSwitch(HdftGenerator.rowSwitchGuid(spec, y, j))) {
                        missingRows.add(new Slot(y, j));
                    }
                }
            }
            List<Slot> missingColumns = new ArrayList<>();
            for (int x = 0; x < spec.columns(); x++) {
                for (int j = 0; j < spec.columnSwitches(); j++) {
                    if (!fabric.isSwitch(HdftGenerator.columnSwitchGuid(spec, x, j))) {
                        missingColumns.add(new Slot(x, j));
                    }
                }
            }
            List<MissingNode> missingNodes = new ArrayList<>();
            for (int d = 0; d < spec.nodeCount(); d++) {
                if (!fabric.isNode(HdftGenerator.nodeGuid(d))) {
                    missingNodes.add(new MissingNode(HdftGenerator.nodeGuid(d), d));
                }
            }
            List<MissingLink> missingLinks = new ArrayList<>();
            for (Link l : canonicalLinks) {
                boolean ends = (fabric.isSwitch(l.a()) || fabric.isNode(l.a()))
                        && (fabric.isSwitch(l.b()) || fabric.isNode(l.b()));
                if (ends && !present2.contains(l.normalized())) {
                    missingLinks.add(new MissingLink(l.a(), l.aPort(), l.b(), l.bPort()));
                }
            }
            int attached = FabricSummary.of(fabric).attachedNodes();
            List<RoleCount> roles = List.of(
                    new RoleCount("leaves", spec.leafCount(), present[HdftGenerator.LEAF_ROLE]),
                    new RoleCount("row", spec.rowSwitchCount(), present[HdftGenerator.ROW_ROLE]),
                    new RoleCount("column", spec.columnSwitchCount(), present[HdftGenerator.COLUMN_ROLE]));
            Verdict verdict = !problems.isEmpty() ? Verdict.MISWIRED
                    : missingLeaves.isEmpty() && missingRows.isEmpty() && missingColumns.isEmpty()
                            && missingNodes.isEmpty() && missingLinks.isEmpty() ? Verdict.INTACT : Verdict.DEGRADED;
            return new HdftRecognition(verdict, spec, source, Matching.BY_GUID, roles, spec.nodeCount(), attached,
                    missingLeaves, missingRows, missingColumns, missingNodes, missingLinks, problems,
                    List.copyOf(faultRows), List.copyOf(faultColumns));
        }

        private void classify(Link link) {
            boolean aSwitch = fabric.isSwitch(link.a());
            boolean bSwitch = fabric.isSwitch(link.b());
            String what = Describe.link(fabric, link);
            if (!aSwitch && !bSwitch) {
                add(Kind.NODE_TO_NODE, what + " joins two end nodes", link);
                return;
            }
            if (aSwitch != bSwitch) {
                long s = aSwitch ? link.a() : link.b();
                int role = role(s);
                int d = nodeIndex(aSwitch ? link.b() : link.a());
                if (role == 0 || d < 0) {
                    add(Kind.EXTRA_LINK, what + " involves a device outside " + spec, link);
                } else if (role != HdftGenerator.LEAF_ROLE) {
                    add(Kind.NODE_ON_NON_LEAF, what + ": end node on a " + roleName(role) + "; it belongs on "
                            + nodePlace(d), link);
                } else if (position(s) == d / spec.nodesPerLeaf()) {
                    add(Kind.WRONG_PORT, what + ": end node on the wrong leaf port; it belongs on " + nodePlace(d), link);
                } else {
                    add(Kind.MISPLACED_NODE, what + ": end node on the wrong leaf; it belongs on " + nodePlace(d), link);
                }
                return;
            }
            int ra = role(link.a());
            int rb = role(link.b());
            if (ra == 0 || rb == 0) {
                add(Kind.EXTRA_LINK, what + " involves a switch outside " + spec, link);
            } else if (ra == HdftGenerator.LEAF_ROLE && rb == HdftGenerator.LEAF_ROLE) {
                add(Kind.LEAF_TO_LEAF, what + " joins two leaves", link);
            } else if (ra != HdftGenerator.LEAF_ROLE && rb != HdftGenerator.LEAF_ROLE) {
                add(Kind.SAME_LEVEL, what + " joins two row or column switches", link);
            } else {
                long leaf = ra == HdftGenerator.LEAF_ROLE ? link.a() : link.b();
                long upper = ra == HdftGenerator.LEAF_ROLE ? link.b() : link.a();
                int role = ra == HdftGenerator.LEAF_ROLE ? rb : ra;
                int x = position(leaf) % spec.columns();
                int y = position(leaf) / spec.columns();
                boolean sameLine = role == HdftGenerator.ROW_ROLE ? position(upper) / spec.rowSwitches() == y
                        : position(upper) / spec.columnSwitches() == x;
                if (sameLine) {
                    add(Kind.WRONG_PORT, what + ": these two switches are linked on other ports (or more often) than "
                            + spec + " says", link);
                } else {
                    add(Kind.WRONG_NEIGHBOUR, what + ": " + Describe.device(fabric, upper) + " serves another "
                            + (role == HdftGenerator.ROW_ROLE ? "row" : "column") + " than leaf "
                            + Describe.device(fabric, leaf) + " at (" + x + ", " + y + ")", link);
                }
            }
        }

        private String nodePlace(int d) {
            int leaf = d / spec.nodesPerLeaf();
            return "leaf lsw-" + (leaf % spec.columns()) + "-" + (leaf / spec.columns()) + " port "
                    + HdftGenerator.leafNodePort(d % spec.nodesPerLeaf());
        }

        private void add(Kind kind, String detail, Link link) {
            problems.add(Problems.ofLink(kind, detail, link));
        }
    }
}
