package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * Generates the canonical fabric of an {@link HdftSpec}, numbered as {@code docs/topology.md}
 * documents it. Switch GUIDs live in their own family ({@code 0x3...}), apart from the PGFT's
 * ({@code 0x1...}), so that neither recognizer mistakes one shape for the other:
 * <ul>
 *   <li>leaf {@code (x, y)}: GUID {@code 0x3000000100000000 + (y*X + x)}, name {@code lsw-x-y};
 *       ports {@code 1..k} to its nodes, {@code k+1..k+r} to the row switches of its row,
 *       {@code k+r+1..k+r+c} to the column switches of its column;</li>
 *   <li>row switch {@code j} of row {@code y}: GUID {@code 0x3000000200000000 + (y*r + j)}, name
 *       {@code rsw-y-j}; port {@code 1 + x} to leaf {@code (x, y)};</li>
 *   <li>column switch {@code j} of column {@code x}: GUID {@code 0x3000000300000000 + (x*c + j)},
 *       name {@code csw-x-j}; port {@code 1 + y} to leaf {@code (x, y)};</li>
 *   <li>node {@code i} of leaf {@code (x, y)}: destination index {@code d = (y*X + x)*k + i}, GUID
 *       {@code 0x2000000000000000 + d} (as in a PGFT), name {@code n<d>}, on leaf port {@code 1 + i}.</li>
 * </ul>
 */
public final class HdftGenerator {
    /** Base of every HDFT switch GUID; bits 32..59 hold the role. */
    public static final long SWITCH_GUID_BASE = 0x3000000000000000L;
    /** Role of leaf switches in the GUID. */
    public static final int LEAF_ROLE = 1;
    /** Role of row switches in the GUID. */
    public static final int ROW_ROLE = 2;
    /** Role of column switches in the GUID. */
    public static final int COLUMN_ROLE = 3;

    private HdftGenerator() {
    }

    /** GUID of leaf {@code (x, y)}. */
    public static long leafGuid(HdftSpec spec, int x, int y) {
        return SWITCH_GUID_BASE + ((long) LEAF_ROLE << 32) + spec.leafIndex(x, y);
    }

    /** GUID of row switch {@code j} of row {@code y}. */
    public static long rowSwitchGuid(HdftSpec spec, int y, int j) {
        return SWITCH_GUID_BASE + ((long) ROW_ROLE << 32) + ((long) y * spec.rowSwitches() + j);
    }

    /** GUID of column switch {@code j} of column {@code x}. */
    public static long columnSwitchGuid(HdftSpec spec, int x, int j) {
        return SWITCH_GUID_BASE + ((long) COLUMN_ROLE << 32) + ((long) x * spec.columnSwitches() + j);
    }

    /** GUID of the node with destination index {@code d} (the PGFT's node family). */
    public static long nodeGuid(int d) {
        return PgftGenerator.nodeGuid(d);
    }

    /** The leaf's port to its node {@code i}. */
    public static int leafNodePort(int i) {
        return 1 + i;
    }

    /** The leaf's port to row switch {@code j} of its row. */
    public static int leafRowPort(HdftSpec spec, int j) {
        return 1 + spec.nodesPerLeaf() + j;
    }

    /** The leaf's port to column switch {@code j} of its column. */
    public static int leafColumnPort(HdftSpec spec, int j) {
        return 1 + spec.nodesPerLeaf() + spec.rowSwitches() + j;
    }

    /** The canonical fabric of {@code spec}, with {@code spec} as its expected HDFT. */
    public static Fabric generate(HdftSpec spec) {
        int xs = spec.columns();
        int ys = spec.rows();
        int k = spec.nodesPerLeaf();
        List<FabricSwitch> switches = new ArrayList<>(spec.totalSwitchCount());
        for (int y = 0; y < ys; y++) {
            for (int x = 0; x < xs; x++) {
                switches.add(new FabricSwitch(leafGuid(spec, x, y), "lsw-" + x + "-" + y, spec.leafRadix()));
            }
        }
        for (int y = 0; y < ys; y++) {
            for (int j = 0; j < spec.rowSwitches(); j++) {
                switches.add(new FabricSwitch(rowSwitchGuid(spec, y, j), "rsw-" + y + "-" + j, xs));
            }
        }
        for (int x = 0; x < xs; x++) {
            for (int j = 0; j < spec.columnSwitches(); j++) {
                switches.add(new FabricSwitch(columnSwitchGuid(spec, x, j), "csw-" + x + "-" + j, ys));
            }
        }
        List<EndNode> nodes = new ArrayList<>(spec.nodeCount());
        List<Link> links = new ArrayList<>(spec.totalLinkCount());
        for (int y = 0; y < ys; y++) {
            for (int x = 0; x < xs; x++) {
                long leaf = leafGuid(spec, x, y);
                for (int i = 0; i < k; i++) {
                    int d = spec.nodeIndex(x, y, i);
                    nodes.add(new EndNode(nodeGuid(d), "n" + d, d));
                    links.add(new Link(leaf, leafNodePort(i), nodeGuid(d), 1));
                }
            }
        }
        for (int y = 0; y < ys; y++) {
            for (int x = 0; x < xs; x++) {
                long leaf = leafGuid(spec, x, y);
                for (int j = 0; j < spec.rowSwitches(); j++) {
                    links.add(new Link(leaf, leafRowPort(spec, j), rowSwitchGuid(spec, y, j), 1 + x));
                }
                for (int j = 0; j < spec.columnSwitches(); j++) {
                    links.add(new Link(leaf, leafColumnPort(spec, j), columnSwitchGuid(spec, x, j), 1 + y));
                }
            }
        }
        return new Fabric(null, spec, switches, nodes, links);
    }
}
