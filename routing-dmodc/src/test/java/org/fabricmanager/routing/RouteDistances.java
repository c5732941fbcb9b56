package org.fabricmanager.routing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Reference computations for the routing tests, done the slow, obvious way: BFS switch distances,
 * shortest up*&#47;down* distances by BFS over (switch, phase) states, up/down relations and the
 * destinations attached to leaves. The fabrics themselves come from {@link org.fabricmanager.testing.TestFabrics}.
 */
public final class RouteDistances {
    private RouteDistances() {
    }

    /** Hop distances between all switches (Integer.MAX_VALUE when disconnected). */
    public static int[][] switchDistances(FabricIndex index) {
        int n = index.switchCount();
        int[][] dist = new int[n][];
        for (int s = 0; s < n; s++) {
            dist[s] = Ranking.fromSources(index, new int[] {s});
        }
        return dist;
    }

    /**
     * Shortest up*&#47;down* distance from switch {@code from} to every switch, with "up" meaning
     * towards a neighbour for which {@code up.test(current, next)} holds and "down" towards one for
     * which it holds the other way; links neither up nor down are not usable.
     */
    public static int[] upDownDistances(FabricIndex index, int from, UpRelation up) {
        int n = index.switchCount();
        int[][] dist = new int[2][n];
        for (int[] row : dist) {
            Arrays.fill(row, Integer.MAX_VALUE);
        }
        ArrayDeque<int[]> queue = new ArrayDeque<>();
        dist[0][from] = 0;
        queue.add(new int[] {from, 0});
        while (!queue.isEmpty()) {
            int[] state = queue.poll();
            int s = state[0];
            int phase = state[1];
            for (int g = index.groupStart(s); g < index.groupStart(s + 1); g++) {
                int t = index.groupNeighbour(g);
                int nextPhase;
                if (up.isUp(s, t)) {
                    if (phase == 1) {
                        continue;
                    }
                    nextPhase = 0;
                } else if (up.isUp(t, s)) {
                    nextPhase = 1;
                } else {
                    continue;
                }
                if (dist[nextPhase][t] == Integer.MAX_VALUE) {
                    dist[nextPhase][t] = dist[phase][s] + 1;
                    queue.add(new int[] {t, nextPhase});
                }
            }
        }
        int[] best = new int[n];
        for (int s = 0; s < n; s++) {
            best[s] = Math.min(dist[0][s], dist[1][s]);
        }
        return best;
    }

    /**
     * {@link #upDownDistances} from every leaf, indexed by switch id (null rows for non-leaves).
     */
    public static int[][] leafUpDownDistances(FabricIndex index, UpRelation up) {
        int[][] legal = new int[index.switchCount()][];
        for (int leaf : index.leaves()) {
            legal[leaf] = upDownDistances(index, leaf, up);
        }
        return legal;
    }

    /** Ordered pairs of distinct leaves with no up*&#47;down* path in {@code legal}. */
    public static long unreachableLeafPairs(FabricIndex index, int[][] legal) {
        long unreachable = 0;
        for (int a : index.leaves()) {
            for (int b : index.leaves()) {
                if (a != b && legal[a][b] == Integer.MAX_VALUE) {
                    unreachable++;
                }
            }
        }
        return unreachable;
    }

    /** Whether a move between neighbours is up. */
    @FunctionalInterface
    public interface UpRelation {
        boolean isUp(int from, int to);
    }

    /** Up as Dmodc defines it: towards a higher BFS rank from the leaves. */
    public static UpRelation rankFromLeaves(FabricIndex index) {
        int[] rank = Ranking.fromLeaves(index);
        return (a, b) -> rank[b] != Ranking.UNREACHED && rank[a] != Ranking.UNREACHED && rank[b] > rank[a];
    }

    /** Checks that switch ids along a path only go up, then only down. */
    public static boolean isUpDown(List<Integer> switches, UpRelation up) {
        boolean down = false;
        for (int i = 0; i + 1 < switches.size(); i++) {
            int a = switches.get(i);
            int b = switches.get(i + 1);
            if (up.isUp(a, b)) {
                if (down) {
                    return false;
                }
            } else if (up.isUp(b, a)) {
                down = true;
            } else {
                return false;
            }
        }
        return true;
    }

    /** Destination indices of the nodes attached to a leaf, ascending. */
    public static int[] attached(FabricIndex index) {
        List<Integer> list = new ArrayList<>();
        for (int d = 0; d < index.destinationCount(); d++) {
            int pos = index.nodeByDestination(d);
            if (pos != FabricIndex.NONE && index.nodeLeaf(pos) != FabricIndex.NONE) {
                list.add(d);
            }
        }
        return list.stream().mapToInt(Integer::intValue).toArray();
    }
}
