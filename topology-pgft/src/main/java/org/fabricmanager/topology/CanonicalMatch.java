package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.LevelCount;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.MissingNode;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.SwitchSlot;

/**
 * Compares a fabric whose GUIDs follow the canonical numbering of {@code docs/formats.md} with the
 * canonical fabric of a spec, entry by entry: levels and positions come from the GUIDs, so every
 * missing item is named by GUID and port and every wrong cable is classified exactly.
 */
final class CanonicalMatch {
    private static final int NO_LEVEL = -1;

    private final Fabric fabric;
    private final PgftSpec spec;
    private final List<Problem> problems = new ArrayList<>();

    private CanonicalMatch(Fabric fabric, PgftSpec spec) {
        this.fabric = fabric;
        this.spec = spec;
    }

    /** True when every switch and node GUID is in the canonical switch and node GUID families. */
    static boolean applies(Fabric fabric) {
        if (fabric.switches().isEmpty()) {
            return false;
        }
        for (FabricSwitch s : fabric.switches()) {
            if ((s.guid() >>> 60) != 1 || ((s.guid() >>> 32) & 0x0FFF_FFFFL) == 0) {
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

    static PgftRecognition run(Fabric fabric, PgftSpec spec, SpecSource source) {
        return new CanonicalMatch(fabric, spec).match(source);
    }

    /** Level of a canonical switch GUID of the spec, or {@link #NO_LEVEL}. */
    private int level(long guid) {
        if ((guid >>> 60) != 1) {
            return NO_LEVEL;
        }
        long l = (guid >>> 32) & 0x0FFF_FFFFL;
        long idx = guid & 0xFFFF_FFFFL;
        if (l < 1 || l > spec.h() || idx >= spec.switchCount((int) l)) {
            return NO_LEVEL;
        }
        return (int) l;
    }

    private static int position(long guid) {
        return CanonicalGuids.position(guid);
    }

    /** Destination index of a canonical node GUID of the spec, or -1. */
    private int nodeIndex(long guid) {
        return CanonicalGuids.nodeIndex(guid, spec.nodeCount());
    }

    private PgftRecognition match(SpecSource source) {
        int h = spec.h();
        int[] present = new int[h + 1];
        for (FabricSwitch s : fabric.switches()) {
            int l = level(s.guid());
            if (l == NO_LEVEL) {
                problems.add(Problems.noPosition(Kind.EXTRA_SWITCH, "switch", fabric, s.guid(), spec));
                continue;
            }
            present[l]++;
            if (s.ports() < spec.radix(l)) {
                problems.add(new Problem(Kind.TOO_FEW_PORTS, "switch " + Describe.device(fabric, s.guid()) + " has "
                        + s.ports() + " ports, level " + l + " needs " + spec.radix(l), List.of(s.guid()), List.of()));
            }
        }
        int attached = 0;
        Set<Long> linkedNodes = new HashSet<>();
        for (Link l : fabric.links()) {
            if (fabric.isNode(l.a()) && fabric.isSwitch(l.b())) {
                linkedNodes.add(l.a());
            } else if (fabric.isNode(l.b()) && fabric.isSwitch(l.a())) {
                linkedNodes.add(l.b());
            }
        }
        for (EndNode n : fabric.nodes()) {
            if (linkedNodes.contains(n.guid())) {
                attached++;
            }
            if (nodeIndex(n.guid()) < 0) {
                problems.add(Problems.noPosition(Kind.EXTRA_NODE, "node", fabric, n.guid(), spec));
            }
        }

        List<SwitchSlot> missingSwitches = new ArrayList<>();
        List<LevelCount> levels = new ArrayList<>();
        for (int l = 1; l <= h; l++) {
            int count = spec.switchCount(l);
            for (int idx = 0; idx < count; idx++) {
                if (!fabric.isSwitch(PgftGenerator.switchGuid(l, idx))) {
                    missingSwitches.add(new SwitchSlot(l, idx));
                }
            }
            levels.add(new LevelCount(l, count, present[l]));
        }
        List<MissingNode> missingNodes = new ArrayList<>();
        for (int d = 0; d < spec.nodeCount(); d++) {
            if (!fabric.isNode(PgftGenerator.nodeGuid(d))) {
                missingNodes.add(new MissingNode(PgftGenerator.nodeGuid(d), d));
            }
        }

        for (Link l : fabric.links()) {
            if (!isCanonical(l)) {
                classify(l);
            }
        }
        List<MissingLink> missingLinks = missingLinks();
        PgftRecognition.Verdict verdict = !problems.isEmpty() ? PgftRecognition.Verdict.MISWIRED
                : missingSwitches.isEmpty() && missingNodes.isEmpty() && missingLinks.isEmpty()
                        ? PgftRecognition.Verdict.INTACT : PgftRecognition.Verdict.DEGRADED;
        return new PgftRecognition(verdict, spec, source, Matching.BY_GUID, levels, spec.nodeCount(), attached,
                missingSwitches, missingNodes, missingLinks, List.of(), problems);
    }

    /** True when {@code link} is one of the canonical fabric's links, by GUIDs and ports. */
    private boolean isCanonical(Link link) {
        boolean aSwitch = fabric.isSwitch(link.a());
        boolean bSwitch = fabric.isSwitch(link.b());
        if (aSwitch == bSwitch && !aSwitch) {
            return false;
        }
        if (aSwitch != bSwitch) {
            long s = aSwitch ? link.a() : link.b();
            int sPort = aSwitch ? link.aPort() : link.bPort();
            int d = nodeIndex(aSwitch ? link.b() : link.a());
            int m1 = spec.m(1);
            return d >= 0 && level(s) == 1 && position(s) == d / m1 && sPort == 1 + d % m1;
        }
        int la = level(link.a());
        int lb = level(link.b());
        if (la == NO_LEVEL || lb == NO_LEVEL || Math.abs(la - lb) != 1) {
            return false;
        }
        boolean aLower = la < lb;
        int l = Math.min(la, lb);
        int lower = position(aLower ? link.a() : link.b());
        int upper = position(aLower ? link.b() : link.a());
        int lowerPort = aLower ? link.aPort() : link.bPort();
        int upperPort = aLower ? link.bPort() : link.aPort();
        int wl = spec.bigW(l);
        int mNext = spec.m(l + 1);
        int pNext = spec.p(l + 1);
        int upBase = 1 + spec.m(l) * spec.p(l);
        if (lowerPort < upBase) {
            return false;
        }
        int b = (lowerPort - upBase) / pNext;
        int j = (lowerPort - upBase) % pNext;
        int a = lower / wl;
        return b < spec.w(l + 1)
                && upper == (a / mNext) * spec.bigW(l + 1) + lower % wl + b * wl
                && upperPort == 1 + (a % mNext) * pNext + j;
    }

    /** Canonical links absent from the fabric although both of their ends are present. */
    private List<MissingLink> missingLinks() {
        FabricIndex index = fabric.index();
        List<MissingLink> missing = new ArrayList<>();
        int m1 = spec.m(1);
        for (int leaf = 0; leaf < spec.switchCount(1); leaf++) {
            int s = index.switchId(PgftGenerator.switchGuid(1, leaf));
            if (s == FabricIndex.NONE) {
                continue;
            }
            for (int port = 1; port <= m1; port++) {
                long node = PgftGenerator.nodeGuid(leaf * m1 + port - 1);
                int pos = index.nodePosition(node);
                if (pos != FabricIndex.NONE && (port > index.switchPorts(s) || index.peerNodes(s)[port] != pos)) {
                    missing.add(new MissingLink(index.switchGuid(s), port, node, 1));
                }
            }
        }
        for (int l = 1; l < spec.h(); l++) {
            int wl = spec.bigW(l);
            int mNext = spec.m(l + 1);
            int pNext = spec.p(l + 1);
            int upBase = 1 + spec.m(l) * spec.p(l);
            for (int idx = 0; idx < spec.switchCount(l); idx++) {
                int s = index.switchId(PgftGenerator.switchGuid(l, idx));
                if (s == FabricIndex.NONE) {
                    continue;
                }
                int a = idx / wl;
                for (int b = 0; b < spec.w(l + 1); b++) {
                    long parentGuid = PgftGenerator.switchGuid(l + 1, (a / mNext) * spec.bigW(l + 1) + idx % wl + b * wl);
                    int t = index.switchId(parentGuid);
                    if (t == FabricIndex.NONE) {
                        continue;
                    }
                    for (int j = 0; j < pNext; j++) {
                        int up = upBase + b * pNext + j;
                        int down = 1 + (a % mNext) * pNext + j;
                        boolean there = up <= index.switchPorts(s) && index.peerSwitches(s)[up] == t
                                && index.peerPorts(s)[up] == down;
                        if (!there) {
                            missing.add(new MissingLink(index.switchGuid(s), up, parentGuid, down));
                        }
                    }
                }
            }
        }
        return missing;
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
            int sPort = aSwitch ? link.aPort() : link.bPort();
            long node = aSwitch ? link.b() : link.a();
            int l = level(s);
            int d = nodeIndex(node);
            if (l == NO_LEVEL || d < 0) {
                add(Kind.EXTRA_LINK, what + " involves a device outside " + spec, link);
            } else if (l != 1) {
                add(Kind.NODE_ON_NON_LEAF, what + ": end node on a level-" + l + " switch; it belongs on "
                        + expectedNodePlace(d), link);
            } else if (position(s) == d / spec.m(1)) {
                add(Kind.WRONG_PORT, what + ": end node on leaf port " + sPort + ", expected " + expectedNodePlace(d), link);
            } else {
                add(Kind.MISPLACED_NODE, what + ": end node on the wrong leaf; it belongs on " + expectedNodePlace(d), link);
            }
            return;
        }
        int la = level(link.a());
        int lb = level(link.b());
        if (la == NO_LEVEL || lb == NO_LEVEL) {
            add(Kind.EXTRA_LINK, what + " involves a switch outside " + spec, link);
        } else if (la == lb) {
            add(la == 1 ? Kind.LEAF_TO_LEAF : Kind.SAME_LEVEL, what + " joins two level-" + la + " switches", link);
        } else if (Math.abs(la - lb) > 1) {
            add(Kind.LEVEL_SKIP, what + " joins level " + la + " to level " + lb, link);
        } else {
            long lower = la < lb ? link.a() : link.b();
            long upper = la < lb ? link.b() : link.a();
            String ports = expectedPorts(Math.min(la, lb), position(lower), position(upper));
            if (ports == null) {
                add(Kind.WRONG_NEIGHBOUR, what + ": " + Describe.device(fabric, upper) + " is not a parent of "
                        + Describe.device(fabric, lower), link);
            } else {
                add(Kind.WRONG_PORT, what + ": these two switches are linked on " + ports, link);
            }
        }
    }

    private String expectedNodePlace(int d) {
        int m1 = spec.m(1);
        return "leaf s1-" + (d / m1) + " port " + (1 + d % m1);
    }

    /** The canonical ports of the links between two switches, or null when they are not linked. */
    private String expectedPorts(int l, int lower, int upper) {
        int wl = spec.bigW(l);
        int a = lower / wl;
        int b0 = lower % wl;
        int mNext = spec.m(l + 1);
        int pNext = spec.p(l + 1);
        for (int b = 0; b < spec.w(l + 1); b++) {
            if ((a / mNext) * spec.bigW(l + 1) + b0 + b * wl == upper) {
                int up = 1 + spec.m(l) * spec.p(l) + b * pNext;
                int down = 1 + (a % mNext) * pNext;
                return range(up, pNext) + " (lower) and " + range(down, pNext) + " (upper)";
            }
        }
        return null;
    }

    private static String range(int first, int count) {
        return count == 1 ? "port " + first : "ports " + first + ".." + (first + count - 1);
    }

    private void add(Kind kind, String detail, Link link) {
        problems.add(Problems.ofLink(kind, detail, link));
    }
}
