package org.fabricmanager.routing.vtftr;

import java.util.List;
import org.fabricmanager.routing.PortClass;
import org.fabricmanager.routing.VcRules;
import org.fabricmanager.routing.VcTransition;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.HdftLayout;

/**
 * VTFTR's virtual-channel rule: on every leaf, a packet that arrived from a column switch and leaves
 * towards a row switch moves to the fault-tolerant channel 1, and keeps it to its destination (no
 * other transition). Before that turn a route only turns from rows to columns, after it again only
 * from rows to columns, so each channel's dependency graph is acyclic and so is the whole.
 */
final class VtftrChannels {
    /** Channel 0 for fault-free routing, channel 1 after the column-to-row turn. */
    static final int COUNT = 2;
    static final VcTransition COLUMN_TO_ROW = new VcTransition(PortClass.COLUMN, PortClass.ROW, 1);

    private VtftrChannels() {
    }

    static VcRules of(HdftLayout layout) {
        FabricIndex index = layout.index();
        int n = index.switchCount();
        int[] ports = new int[n];
        for (int s = 0; s < n; s++) {
            ports[s] = index.switchPorts(s);
        }
        VcRules.Builder rules = VcRules.builder(ports, COUNT);
        List<VcTransition> leafRules = List.of(COLUMN_TO_ROW);
        for (int s = 0; s < n; s++) {
            int[] peers = index.peerSwitches(s);
            int[] nodes = index.peerNodes(s);
            for (int p = 1; p <= ports[s]; p++) {
                PortClass c = PortClass.OTHER;
                if (nodes[p] != FabricIndex.NONE) {
                    c = PortClass.NODE;
                } else if (peers[p] != FabricIndex.NONE) {
                    c = switch (layout.role(peers[p])) {
                        case LEAF -> PortClass.LEAF;
                        case ROW -> PortClass.ROW;
                        case COLUMN -> PortClass.COLUMN;
                        case UNUSED -> PortClass.OTHER;
                    };
                }
                rules.portClass(s, p, c);
            }
            if (layout.role(s) == HdftLayout.Role.LEAF) {
                rules.transitions(s, leafRules);
            }
        }
        return rules.build();
    }
}
