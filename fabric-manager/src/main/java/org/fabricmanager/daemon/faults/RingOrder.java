package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Orders the switches of a ring so that consecutive members sit on different levels and, within a
 * level, far apart in topological order (different leaves and pods): consecutive failures are the
 * detector's worst case, and a leaf or pod losing power takes out neighbours in topological order.
 * Levels are interleaved round-robin; each level is walked with a stride of about the square root of
 * its size.
 */
public final class RingOrder {
    private RingOrder() {
    }

    /** The GUIDs of {@code fabric}'s switches in ring order. */
    public static List<Long> of(Fabric fabric) {
        FabricIndex index = fabric.index();
        int n = index.switchCount();
        int[] rank = Ranking.fromLeaves(index);
        List<List<Long>> levels = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            int r = rank[s] == Ranking.UNREACHED ? 0 : rank[s];
            while (levels.size() <= r) {
                levels.add(new ArrayList<>());
            }
            levels.get(r).add(index.switchGuid(s));
        }
        List<List<Long>> spread = new ArrayList<>(levels.size());
        for (List<Long> level : levels) {
            spread.add(strided(level));
        }
        List<Long> out = new ArrayList<>(n);
        for (int i = 0; out.size() < n; i++) {
            for (List<Long> level : spread) {
                if (i < level.size()) {
                    out.add(level.get(i));
                }
            }
        }
        return out;
    }

    private static List<Long> strided(List<Long> level) {
        int m = level.size();
        int stride = Math.max(1, (int) Math.ceil(Math.sqrt(m)));
        List<Long> out = new ArrayList<>(m);
        for (int start = 0; start < stride; start++) {
            for (int j = start; j < m; j += stride) {
                out.add(level.get(j));
            }
        }
        return out;
    }
}
