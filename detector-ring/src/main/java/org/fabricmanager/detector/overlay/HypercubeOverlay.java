package org.fabricmanager.detector.overlay;

/**
 * Reliable broadcast in a hypercube along node-disjoint spanning trees (Ramanathan and Shin, 1988),
 * as on slide 16 of Bosilca et al. In a cube of dimension k the source (coordinate 0) starts k trees;
 * tree t starts at the source's neighbour 2^t, fixes the remaining bits in the cyclic order t+1, ...,
 * t-1 and finally flips bit t back for nodes whose bit t is 0. The k paths from the source to any node
 * are node-disjoint, so the broadcast completes while at most k-1 members of the cube are dead.
 *
 * <p>The L live members rarely number a power of two. With k = floor(log2 L) and P = 2^k, cube 0 holds
 * ranks 0..P-1 and cube 1 holds the source plus the last P-1 ranks; together they cover all L ranks
 * (L < 2P). The slides run two successive broadcasts; this overlay starts both at once, which keeps
 * the same time bound without a one-port constraint.
 */
public final class HypercubeOverlay implements BroadcastOverlay {
    static final HypercubeOverlay INSTANCE = new HypercubeOverlay();

    private HypercubeOverlay() {
    }

    /** floor(log2 liveCount), the dimension of each cube. */
    static int dimension(int liveCount) {
        return 31 - Integer.numberOfLeadingZeros(liveCount);
    }

    /** Number of cubes for {@code liveCount} live members: 1 for a power of two, else 2. */
    static int cubes(int liveCount) {
        return Integer.bitCount(liveCount) == 1 ? 1 : 2;
    }

    @Override
    public void originate(LiveRanks ranks, CopySink sink) {
        int live = ranks.liveCount();
        if (live < 2) {
            return;
        }
        int k = dimension(live);
        int cubes = cubes(live);
        for (int cube = 0; cube < cubes; cube++) {
            for (int t = 0; t < k; t++) {
                sink.copy(member(ranks, live, k, cube, 1 << t), cube, t);
            }
        }
    }

    @Override
    public void forward(LiveRanks ranks, int self, int from, int cube, int tree, CopySink sink) {
        int live = ranks.liveCount();
        int k = dimension(live);
        if (live < 2 || tree >= k || cube >= cubes(live)) {
            return;
        }
        int rank = ranks.rankOf(self);
        if (rank < 0) {
            return;
        }
        int y = coordinate(live, k, cube, rank);
        int treeBit = 1 << tree;
        if (y <= 0 || (y & treeBit) == 0) {
            return; // not in this cube, the source, or a leaf reached by flipping the tree bit back
        }
        if (y != treeBit) {
            sink.copy(member(ranks, live, k, cube, y ^ treeBit), cube, tree);
        }
        int lastPosition = 0;
        for (int p = 1; p < k; p++) {
            if ((y & (1 << ((tree + p) % k))) != 0) {
                lastPosition = p;
            }
        }
        for (int p = lastPosition + 1; p < k; p++) {
            sink.copy(member(ranks, live, k, cube, y | (1 << ((tree + p) % k))), cube, tree);
        }
    }

    @Override
    public boolean forwardsFirstCopyOnly() {
        return false;
    }

    /** Coordinate of {@code rank} in {@code cube}, or -1 if the rank is not part of that cube. */
    static int coordinate(int live, int k, int cube, int rank) {
        int p = 1 << k;
        if (cube == 0) {
            return rank < p ? rank : -1;
        }
        if (rank == 0) {
            return 0;
        }
        int first = live - p + 1;
        return rank >= first ? rank - (live - p) : -1;
    }

    private static int member(LiveRanks ranks, int live, int k, int cube, int coordinate) {
        int p = 1 << k;
        int rank = cube == 0 || coordinate == 0 ? coordinate : live - p + coordinate;
        return ranks.memberAt(rank);
    }
}
