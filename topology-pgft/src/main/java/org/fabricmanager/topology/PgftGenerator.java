package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * Generates the canonical fabric of a PGFT exactly as {@code docs/formats.md} numbers it:
 * GUIDs, names, port numbers and wiring. Outside tools compare its output entry by entry.
 */
public final class PgftGenerator {
    /** GUID base of switches: {@code 0x1000000000000000 + (level << 32) + index}. */
    public static final long SWITCH_GUID_BASE = 0x1000000000000000L;
    /** GUID base of end nodes: {@code 0x2000000000000000 + d}. */
    public static final long NODE_GUID_BASE = 0x2000000000000000L;

    private PgftGenerator() {
    }

    /** GUID of the level-{@code level} switch with index {@code idx}. */
    public static long switchGuid(int level, int idx) {
        return SWITCH_GUID_BASE + ((long) level << 32) + idx;
    }

    /** GUID of node {@code d}. */
    public static long nodeGuid(int d) {
        return NODE_GUID_BASE + d;
    }

    /** The canonical fabric of {@code spec}, with {@code spec} as its expected PGFT. */
    public static Fabric generate(PgftSpec spec) {
        int h = spec.h();
        int nodes = spec.nodeCount();
        List<FabricSwitch> switches = new ArrayList<>(spec.totalSwitchCount());
        for (int l = 1; l <= h; l++) {
            int count = spec.switchCount(l);
            int radix = spec.radix(l);
            for (int idx = 0; idx < count; idx++) {
                switches.add(new FabricSwitch(switchGuid(l, idx), "s" + l + "-" + idx, radix));
            }
        }
        List<EndNode> endNodes = new ArrayList<>(nodes);
        List<Link> links = new ArrayList<>(spec.totalLinkCount());
        int m1 = spec.m(1);
        for (int d = 0; d < nodes; d++) {
            endNodes.add(new EndNode(nodeGuid(d), "n" + d, d));
            links.add(new Link(switchGuid(1, d / m1), 1 + d % m1, nodeGuid(d), 1));
        }
        for (int l = 1; l < h; l++) {
            int wl = spec.bigW(l);
            int wNext = spec.bigW(l + 1);
            int mNext = spec.m(l + 1);
            int pNext = spec.p(l + 1);
            int upBase = 1 + spec.m(l) * spec.p(l);
            int count = spec.switchCount(l);
            for (int idx = 0; idx < count; idx++) {
                int a = idx / wl;
                int b0 = idx % wl;
                int c = a % mNext;
                for (int b = 0; b < spec.w(l + 1); b++) {
                    int parent = (a / mNext) * wNext + b0 + b * wl;
                    for (int j = 0; j < pNext; j++) {
                        links.add(new Link(switchGuid(l, idx), upBase + b * pNext + j,
                                switchGuid(l + 1, parent), 1 + c * pNext + j));
                    }
                }
            }
        }
        return new Fabric(spec, switches, endNodes, links);
    }
}
