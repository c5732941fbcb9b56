package org.fabricmanager.routing.dmodc.preprocess;

import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Switch ranks (BFS hop distance from the leaves, {@link Ranking}) and the switches of each rank,
 * the order in which Procedure 1 visits them. Switches no leaf reaches are in no rank: they route
 * nothing.
 */
public final class Ranks {
    /** Dmodc keeps costs in a byte: an up*&#47;down* path is at most twice the top rank long. */
    static final int MAX_RANK = CostTable.MAX_FINITE / 2;

    private final int[] rank;
    private final int top;
    private final int[] levelStart;
    private final int[] bySwitchRank;

    private Ranks(int[] rank, int top, int[] levelStart, int[] bySwitchRank) {
        this.rank = rank;
        this.top = top;
        this.levelStart = levelStart;
        this.bySwitchRank = bySwitchRank;
    }

    public static Ranks of(FabricIndex index) {
        int[] rank = Ranking.fromLeaves(index);
        int top = -1;
        for (int r : rank) {
            if (r != Ranking.UNREACHED && r > top) {
                top = r;
            }
        }
        if (top > MAX_RANK) {
            throw new RoutingException("fabric has switches " + top
                    + " hops above the leaves; Dmodc supports at most " + MAX_RANK + " (not a fat tree?)");
        }
        int[] levelStart = new int[top + 2];
        for (int r : rank) {
            if (r != Ranking.UNREACHED) {
                levelStart[r + 1]++;
            }
        }
        for (int r = 0; r <= top; r++) {
            levelStart[r + 1] += levelStart[r];
        }
        int[] order = new int[levelStart[top + 1]];
        int[] fill = levelStart.clone();
        for (int s = 0; s < rank.length; s++) {
            if (rank[s] != Ranking.UNREACHED) {
                order[fill[rank[s]]++] = s;
            }
        }
        return new Ranks(rank, top, levelStart, order);
    }

    /** Rank of switch {@code s}, or {@link Ranking#UNREACHED}. */
    int rank(int s) {
        return rank[s];
    }

    public int[] array() {
        return rank;
    }

    /** Highest rank, or -1 when the fabric has no leaf. */
    public int top() {
        return top;
    }

    /** Number of switches of rank {@code r}. */
    int levelSize(int r) {
        return levelStart[r + 1] - levelStart[r];
    }

    /** The {@code i}-th switch (ascending id) of rank {@code r}. */
    int levelSwitch(int r, int i) {
        return bySwitchRank[levelStart[r] + i];
    }
}
