package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Orders the switches of a ring so that consecutive members sit on different levels, are not cabled
 * to each other, and within a level are far apart in topological order (different leaves and pods):
 * consecutive failures are the detector's worst case (each one more costs a 2δ re-arm), and a leaf or
 * pod losing power takes out switches that are neighbours in topological order or by cable. Levels are
 * interleaved round-robin; each level is walked with a stride of about the square root of its size,
 * and the next member of a level is the first of its next {@value #WINDOW} in that walk that has no
 * link to the member before it (the first one when all have).
 */
public final class RingOrder {
    /** How far ahead in a level's walk a member without a link to its predecessor is looked for. */
    static final int WINDOW = 32;

    private RingOrder() {
    }

    /** The GUIDs of {@code fabric}'s switches in ring order. */
    public static List<Long> of(Fabric fabric) {
        FabricIndex index = fabric.index();
        int n = index.switchCount();
        int[] rank = Ranking.fromLeaves(index);
        List<List<Integer>> levels = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            int r = rank[s] == Ranking.UNREACHED ? 0 : rank[s];
            while (levels.size() <= r) {
                levels.add(new ArrayList<>());
            }
            levels.get(r).add(s);
        }
        List<LevelWalk> walks = new ArrayList<>(levels.size());
        for (List<Integer> level : levels) {
            walks.add(new LevelWalk(strided(level)));
        }
        List<Long> out = new ArrayList<>(n);
        int previous = -1;
        while (out.size() < n) {
            for (LevelWalk walk : walks) {
                if (!walk.done()) {
                    previous = walk.take(index, previous);
                    out.add(index.switchGuid(previous));
                }
            }
        }
        return out;
    }

    private static int[] strided(List<Integer> level) {
        int m = level.size();
        int stride = Math.max(1, (int) Math.ceil(Math.sqrt(m)));
        int[] out = new int[m];
        int k = 0;
        for (int start = 0; start < stride; start++) {
            for (int j = start; j < m; j += stride) {
                out[k++] = level.get(j);
            }
        }
        return out;
    }

    private static boolean linked(FabricIndex index, int a, int b) {
        int end = index.groupStart(a) + index.groupCount(a);
        for (int g = index.groupStart(a); g < end; g++) {
            if (index.groupNeighbour(g) == b) {
                return true;
            }
        }
        return false;
    }

    /** One level's stride walk, consumed with a look-ahead of {@link #WINDOW}. */
    private static final class LevelWalk {
        private final int[] order;
        private final boolean[] taken;
        private int head;

        LevelWalk(int[] order) {
            this.order = order;
            this.taken = new boolean[order.length];
        }

        boolean done() {
            return head == order.length;
        }

        /** Takes the first member of the window without a link to {@code previous} (-1: none yet). */
        int take(FabricIndex index, int previous) {
            int pick = head;
            if (previous >= 0) {
                for (int i = head, seen = 0; i < order.length && seen < WINDOW; i++) {
                    if (!taken[i]) {
                        seen++;
                        if (!linked(index, previous, order[i])) {
                            pick = i;
                            break;
                        }
                    }
                }
            }
            taken[pick] = true;
            while (head < order.length && taken[head]) {
                head++;
            }
            return order[pick];
        }
    }
}
