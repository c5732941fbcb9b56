package org.fabricmanager.routing.dmodc.preprocess;

import org.fabricmanager.topology.FabricIndex;

/**
 * Each switch's up and down neighbour switches (distinct switches, one per port group, in group
 * order), by rank: a neighbour of higher rank is up, of lower rank down; neighbours of equal rank
 * are neither and take no part in Procedure 1. CSR arrays.
 */
public final class Neighbours {
    private final int[] upStart;
    private final int[] up;
    private final int[] downStart;
    private final int[] down;

    private Neighbours(int[] upStart, int[] up, int[] downStart, int[] down) {
        this.upStart = upStart;
        this.up = up;
        this.downStart = downStart;
        this.down = down;
    }

    public static Neighbours of(FabricIndex index, Ranks ranks) {
        return of(index, ranks.array());
    }

    /** The same from a rank array ({@link org.fabricmanager.topology.Ranking#fromLeaves}). */
    static Neighbours of(FabricIndex index, int[] rank) {
        int n = index.switchCount();
        int[] groupStart = index.groupStartArray();
        int[] neighbour = index.groupNeighbourArray();
        int[] upStart = new int[n + 1];
        int[] downStart = new int[n + 1];
        for (int s = 0; s < n; s++) {
            int ups = 0;
            int downs = 0;
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                int t = neighbour[g];
                if (rank[t] > rank[s]) {
                    ups++;
                } else if (rank[t] < rank[s]) {
                    downs++;
                }
            }
            upStart[s + 1] = upStart[s] + ups;
            downStart[s + 1] = downStart[s] + downs;
        }
        int[] up = new int[upStart[n]];
        int[] down = new int[downStart[n]];
        for (int s = 0; s < n; s++) {
            int u = upStart[s];
            int d = downStart[s];
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                int t = neighbour[g];
                if (rank[t] > rank[s]) {
                    up[u++] = t;
                } else if (rank[t] < rank[s]) {
                    down[d++] = t;
                }
            }
        }
        return new Neighbours(upStart, up, downStart, down);
    }

    /** {@code #{s' up of s}}: distinct up-neighbour switches. */
    int upCount(int s) {
        return upStart[s + 1] - upStart[s];
    }

    int upStart(int s) {
        return upStart[s];
    }

    int upEnd(int s) {
        return upStart[s + 1];
    }

    int up(int i) {
        return up[i];
    }

    int downStart(int s) {
        return downStart[s];
    }

    int downEnd(int s) {
        return downStart[s + 1];
    }

    int down(int i) {
        return down[i];
    }
}
