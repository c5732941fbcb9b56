package org.fabricmanager.daemon.routing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/**
 * The faults a re-route rehearsal applies to the fabric in force, one of each kind a real fault re-routes
 * differently: a leaf's uplink, a link between two upper switches, and an upper switch (preferably one with no leaf
 * below it: a top switch). Deterministic (the first of each kind in the fabric's order); kinds the fabric does not
 * have are left out (a two-level fabric has no link between upper switches).
 */
final class RehearsalFaults {
    private RehearsalFaults() {
    }

    static List<Fabric> of(Fabric fabric) {
        FabricIndex index = fabric.index();
        Set<Long> leaves = new HashSet<>();
        for (int leaf : index.leaves()) {
            leaves.add(index.switchGuid(leaf));
        }
        Link uplink = null;
        Link upper = null;
        Set<Long> aboveLeaves = new HashSet<>();
        for (Link l : fabric.links()) {
            if (!fabric.isSwitch(l.a()) || !fabric.isSwitch(l.b())) {
                continue;
            }
            boolean aLeaf = leaves.contains(l.a());
            boolean bLeaf = leaves.contains(l.b());
            if (aLeaf != bLeaf) {
                aboveLeaves.add(aLeaf ? l.b() : l.a());
                if (uplink == null) {
                    uplink = l;
                }
            } else if (!aLeaf && upper == null) {
                upper = l;
            }
        }
        Long top = null;
        Long anyUpper = null;
        for (FabricSwitch s : fabric.switches()) {
            if (leaves.contains(s.guid())) {
                continue;
            }
            if (anyUpper == null) {
                anyUpper = s.guid();
            }
            if (top == null && !aboveLeaves.contains(s.guid())) {
                top = s.guid();
            }
        }
        // derived as discovery derives a fault's fabric (withChanges, whose index is derived from this one's): that
        // code is then compiled too, not first run by the first switch's death, on the control thread, several times
        // slower than warm (docs/performance.md, "Choices in the code, measured")
        List<Fabric> out = new ArrayList<>(3);
        if (uplink != null) {
            out.add(fabric.withChanges(Set.of(), Set.of(), List.of(uplink), List.of()));
        }
        if (upper != null) {
            out.add(fabric.withChanges(Set.of(), Set.of(), List.of(upper), List.of()));
        }
        Long gone = top != null ? top : anyUpper;
        if (gone != null) {
            out.add(fabric.withChanges(Set.of(gone), Set.of(), List.of(), List.of()));
        }
        return out;
    }
}
