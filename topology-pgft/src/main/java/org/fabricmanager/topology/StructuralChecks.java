package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.Problem;

/**
 * The checks of a {@link StructuralMatch}, collecting its problems: before placement, the switches' levels and
 * ports and the kind of every cable; after it, every cable between placed switches against the PGFT's parent
 * rule, the links and end nodes missing, and the switches no position fits.
 */
final class StructuralChecks {
    private final StructuralLevels lv;
    private final Fabric fabric;
    private final FabricIndex index;
    private final PgftSpec spec;
    private final int[] level;
    final List<Problem> problems = new ArrayList<>();

    StructuralChecks(StructuralLevels lv) {
        this.lv = lv;
        this.fabric = lv.fabric;
        this.index = lv.index;
        this.spec = lv.spec;
        this.level = lv.level;
    }

    // ---- levels and link kinds ------------------------------------------------------------

    /** Reports switches above the top level (and excludes them) or with too few ports for their level. */
    void checkSwitches() {
        for (int s = 0; s < lv.n; s++) {
            long guid = index.switchGuid(s);
            if (level[s] > lv.h) {
                lv.excluded[s] = true;
                problems.add(new Problem(Kind.TOO_MANY_LEVELS, "switch " + Describe.device(fabric, guid) + " is "
                        + level[s] + " levels up from the leaves, " + spec + " has " + lv.h, List.of(guid), List.of()));
            } else if (level[s] >= 1 && index.switchPorts(s) < spec.radix(level[s])) {
                problems.add(new Problem(Kind.TOO_FEW_PORTS, "switch " + Describe.device(fabric, guid) + " has "
                        + index.switchPorts(s) + " ports, level " + level[s] + " needs " + spec.radix(level[s]),
                        List.of(guid), List.of()));
            }
        }
    }

    void checkLinks() {
        for (Link link : fabric.links()) {
            int a = index.switchId(link.a());
            int b = index.switchId(link.b());
            String what = Describe.link(fabric, link);
            if (a == FabricIndex.NONE && b == FabricIndex.NONE) {
                add(Kind.NODE_TO_NODE, what + " joins two end nodes", link);
            } else if (a == FabricIndex.NONE || b == FabricIndex.NONE) {
                int s = a == FabricIndex.NONE ? b : a;
                if (level[s] != 1) {
                    String why = lv.levels.nodesOnNonLeaf[s]
                            ? "cannot be a leaf (" + index.switchPorts(s) + " ports, " + index.groupCount(s)
                              + " switch neighbours; a leaf of " + spec + " has " + spec.radix(1) + " ports and "
                              + spec.w(2) + " parents)"
                            : "is at level " + level[s];
                    add(Kind.NODE_ON_NON_LEAF, what + ": end node on a switch that " + why, link);
                }
            } else if (level[a] >= 1 && level[b] >= 1 && !lv.excluded[a] && !lv.excluded[b]) {
                if (level[a] == level[b]) {
                    add(level[a] == 1 ? Kind.LEAF_TO_LEAF : Kind.SAME_LEVEL, what + " joins two level-" + level[a]
                            + " switches (or skips a level: levels are counted from the leaves)", link);
                } else if (Math.abs(level[a] - level[b]) > 1) {
                    add(Kind.LEVEL_SKIP, what + " joins level " + level[a] + " to level " + level[b], link);
                }
            }
        }
    }

    // ---- verification -----------------------------------------------------------------------

    /** A switch the leaves reach but no position fits: names its neighbours, which are what is wrong. */
    void unplaceable(int s) {
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
    Map<Long, Integer> checkSwitchLinks(SlotPlacement placement) {
        int[] labelA = placement.labelA;
        int[] labelB = placement.labelB;
        boolean[] placed = placement.placed;
        Map<Long, Integer> multiplicity = new HashMap<>();
        for (Link link : fabric.links()) {
            int a = index.switchId(link.a());
            int b = index.switchId(link.b());
            if (a == FabricIndex.NONE || b == FabricIndex.NONE || !lv.validPair(a, b) || !placed[a] || !placed[b]) {
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
            int count = multiplicity.merge((long) lower * lv.n + upper, 1, Integer::sum);
            if (count > spec.p(l + 1)) {
                add(Kind.EXTRA_LINK, Describe.link(fabric, link) + ": more than the " + spec.p(l + 1)
                        + " parallel links of " + spec + " between these switches", link);
            }
        }
        return multiplicity;
    }

    void missingSwitchLinks(SlotPlacement placement, Map<Long, Integer> multiplicity, List<MissingLink> missing) {
        int[] labelA = placement.labelA;
        int[] labelB = placement.labelB;
        for (int s = 0; s < lv.n; s++) {
            int l = level[s];
            if (!placement.placed[s] || l >= lv.h) {
                continue;
            }
            int base = (labelA[s] / spec.m(l + 1)) * spec.bigW(l + 1) + labelB[s];
            for (int b = 0; b < spec.w(l + 1); b++) {
                Integer t = placement.slots.get(l + 1).get(base + b * spec.bigW(l));
                if (t == null) {
                    continue;
                }
                int found = multiplicity.getOrDefault((long) s * lv.n + t, 0);
                for (int j = found; j < spec.p(l + 1); j++) {
                    missing.add(new MissingLink(index.switchGuid(s), 0, index.switchGuid(t), 0));
                }
            }
        }
    }

    /** Node counts per placed leaf; returns the number of nodes attached to a switch. */
    int checkNodes(boolean[] placed, List<MissingLink> missing) {
        int m1 = spec.m(1);
        for (int s = 0; s < lv.n; s++) {
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
}
