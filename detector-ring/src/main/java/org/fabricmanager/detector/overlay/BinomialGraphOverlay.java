package org.fabricmanager.detector.overlay;

import java.util.Arrays;

/**
 * Reliable broadcast by flooding a binomial graph (BMG) over the L live ranks: rank r is linked to
 * (r + 2^j) mod L and (r - 2^j) mod L for every 2^j < L. The first copy of a broadcast a member sees
 * is forwarded to all its neighbours except the one it came from; later copies are dropped. The
 * graph's node connectivity equals its degree, so the flood reaches every live member while fewer
 * than degree members are dead.
 */
public final class BinomialGraphOverlay implements BroadcastOverlay {
    static final BinomialGraphOverlay INSTANCE = new BinomialGraphOverlay();

    private BinomialGraphOverlay() {
    }

    @Override
    public void originate(LiveRanks ranks, CopySink sink) {
        send(ranks, 0, -1, sink);
    }

    @Override
    public void forward(LiveRanks ranks, int self, int from, int cube, int tree, CopySink sink) {
        int rank = ranks.rankOf(self);
        if (rank < 0) {
            return;
        }
        send(ranks, rank, ranks.rankOf(from), sink);
    }

    @Override
    public boolean forwardsFirstCopyOnly() {
        return true;
    }

    /** The distinct neighbour ranks of {@code rank} among {@code live} ranks, ascending by hop 2^j. */
    static int[] neighbours(int live, int rank) {
        int[] out = new int[64];
        int count = 0;
        for (long hop = 1; hop < live; hop <<= 1) {
            count = addDistinct(out, count, (int) ((rank + hop) % live), rank);
            count = addDistinct(out, count, (int) Math.floorMod(rank - hop, (long) live), rank);
        }
        return Arrays.copyOf(out, count);
    }

    private static void send(LiveRanks ranks, int rank, int excludedRank, CopySink sink) {
        for (int r : neighbours(ranks.liveCount(), rank)) {
            if (r != excludedRank) {
                sink.copy(ranks.memberAt(r), 0, 0);
            }
        }
    }

    private static int addDistinct(int[] array, int count, int value, int self) {
        if (value == self) {
            return count;
        }
        for (int i = 0; i < count; i++) {
            if (array[i] == value) {
                return count;
            }
        }
        array[count] = value;
        return count + 1;
    }
}
