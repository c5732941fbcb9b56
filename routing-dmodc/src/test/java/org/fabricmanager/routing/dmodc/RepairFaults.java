package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;

/**
 * One fault of each kind on a generated PGFT, the element picked by a seed: a switch at each level, and a
 * cable at each level (a node's cable, then a cable from each switch level to the next one up).
 */
final class RepairFaults {
    private RepairFaults() {
    }

    /** A named fault and the fabric without the failed element. */
    record Fault(String name, Fabric degraded) {
    }

    /**
     * Every kind of fault of {@code fabric}, an {@code h}-level PGFT, each element drawn with {@code random}, or
     * the first of its kind (lowest GUID, first link listed) when {@code random} is {@code null}.
     */
    static List<Fault> everyKind(Fabric fabric, int h, Random random) {
        List<Fault> out = new ArrayList<>();
        for (int level = 1; level <= h; level++) {
            List<Long> candidates = new ArrayList<>();
            for (FabricSwitch s : fabric.switches()) {
                if (levelOf(s.guid()) == level) {
                    candidates.add(s.guid());
                }
            }
            if (!candidates.isEmpty()) {
                long guid = random == null ? candidates.stream().min(Long::compare).orElseThrow()
                        : candidates.get(random.nextInt(candidates.size()));
                out.add(new Fault("level-" + level + " switch " + Long.toHexString(guid),
                        fabric.withoutSwitches(List.of(guid))));
            }
        }
        for (int level = 0; level < h; level++) {
            List<Link> candidates = new ArrayList<>();
            for (Link l : fabric.links()) {
                int a = fabric.isSwitch(l.a()) ? levelOf(l.a()) : 0;
                int b = fabric.isSwitch(l.b()) ? levelOf(l.b()) : 0;
                if (Math.min(a, b) == level && Math.max(a, b) == level + 1) {
                    candidates.add(l);
                }
            }
            if (!candidates.isEmpty()) {
                Link link = candidates.get(random == null ? 0 : random.nextInt(candidates.size()));
                out.add(new Fault("cable " + level + "-" + (level + 1) + " " + link, fabric.withoutLinks(List.of(link))));
            }
        }
        return out;
    }

    /** The level of a generated switch, from its GUID. */
    static int levelOf(long guid) {
        for (int level = 1; level <= 8; level++) {
            if (guid >>> 32 == PgftGenerator.switchGuid(level, 0) >>> 32) {
                return level;
            }
        }
        return -1;
    }
}
