package org.fabricmanager.topology;

import java.util.Arrays;

/**
 * Ranks switches by breadth-first hop distance from the set of leaf switches over switch-to-switch
 * links, as Dmodc does: leaves have rank 0; a neighbour of higher rank is "up", of lower rank
 * "down". Switches that no leaf reaches get {@link #UNREACHED}.
 */
public final class Ranking {
    /** Rank of a switch no leaf reaches. */
    public static final int UNREACHED = Integer.MAX_VALUE;

    private Ranking() {
    }

    /** Rank per switch id. */
    public static int[] fromLeaves(FabricIndex index) {
        return fromSources(index, index.leaves());
    }

    /** Rank per switch id, by hop distance from {@code sources}. */
    public static int[] fromSources(FabricIndex index, int[] sources) {
        int n = index.switchCount();
        int[] rank = new int[n];
        Arrays.fill(rank, UNREACHED);
        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        for (int s : sources) {
            if (rank[s] != 0) {
                rank[s] = 0;
                queue[tail++] = s;
            }
        }
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        while (head < tail) {
            int s = queue[head++];
            int next = rank[s] + 1;
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                int t = neighbours[g];
                if (rank[t] == UNREACHED) {
                    rank[t] = next;
                    queue[tail++] = t;
                }
            }
        }
        return rank;
    }
}
