package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * Where a plane's level-1 switches put the home destinations whose home top is not a candidate ({@link ExtraSpread}):
 * by load, once per leaf and {@code ⌊d/Π⌋}, leaf by leaf. Of the switch's candidates that no stand-in of the last
 * {@code n} leaves took (a shift sends consecutive leaves' destinations through one switch: so they go up different
 * links), the one with the fewest homes and stand-ins on its link up plus the plane's on its link down to the
 * destination's pod; the formula's choice among equals. Why: a switch's level-2 switches keep different numbers of
 * homes where their links down to some pods are lost, and stand-ins spread by count stack on those that kept the
 * most; and the pods' stand-ins for one destination, each by its own switch's loads, would meet on one link down.
 *
 * <p>One per plane, on one worker: first {@link #count} for each of its level-1 switches, then {@link #start} and
 * {@link #choose} switch by switch, in the same order. Loads count leaves (one home destination each in a PGFT), a
 * leaf's home by its first destination.
 */
final class StandIns {
    private final FabricIndex index;
    private final int leaves;
    private final int[] leafFirst;
    private final int[] sorted;
    private final int[] leafPod;
    private final int n;
    private final int stride;
    /** Per level-1 switch of the plane (by its index there), per position: homes, then stand-ins too. */
    private final int[][] up;
    /** Per position and pod ({@code position × stride + pod + 1}): the plane's homes and stand-ins down that link. */
    private final int[] down;
    /** Per position, the leaf number of the last stand-in put there by the switch at hand. */
    private final int[] last;
    private int[] current;
    /** Per leaf number, the position of its first destination's home top for the divider {@code homeDiv}, or -1. */
    private final int[] homeOf;
    private int homeDiv = -1;

    /**
     * Loads of a plane of {@code positions} level-2 switches and {@code switches} level-1 switches; {@code leafPod}:
     * per leaf number, its pod's number plus one (0: none) of {@code pods}; {@code leafFirst} and {@code sorted}
     * give a leaf's first destination ({@link ExtraSpread}).
     */
    StandIns(FabricIndex index, int[] leafFirst, int[] sorted, int[] leafPod, int pods, int positions, int switches) {
        this.index = index;
        this.leaves = index.leafCount();
        this.leafFirst = leafFirst;
        this.sorted = sorted;
        this.leafPod = leafPod;
        this.n = positions;
        this.stride = pods + 1;
        this.up = new int[switches][];
        this.down = new int[positions * stride];
        this.last = new int[positions];
        this.homeOf = new int[leaves];
    }

    /**
     * The homes of the plane's {@code i}-th level-1 switch, whose linked positions are {@code linked}, divider
     * {@code div} and pod {@code ownPod} (plus one): per leaf not of its pod (reached down), its home position when
     * it is a candidate ({@code reach}: per leaf, the plane's closest positions).
     */
    void count(int i, long linked, long[] reach, int div, int ownPod) {
        int[] homes = new int[n];
        int[] home = homePositions(div);
        for (int l = 0; l < leaves; l++) {
            int h = home[l];
            if (h >= 0 && leafPod[l] != ownPod) {
                int hit = (int) ((linked & reach[l]) >>> h) & 1;
                homes[h] += hit;
                down[h * stride + leafPod[l]] += hit;
            }
        }
        up[i] = homes;
    }

    /** Makes the plane's {@code i}-th level-1 switch, counted before, the one whose stand-ins are chosen. */
    void start(int i) {
        current = up[i];
        Arrays.fill(last, Integer.MIN_VALUE / 2);
    }

    /**
     * The position of {@code mask} for the stand-in of leaf {@code l}'s home ({@code preferred}: the formula's),
     * counted as taken.
     */
    int choose(long mask, int l, int preferred) {
        int pod = leafPod[l];
        int best = preferred;
        long free = 0;
        for (long m = mask; m != 0; m &= m - 1) {
            int position = Long.numberOfTrailingZeros(m);
            free |= l - last[position] >= n ? 1L << position : 0;
        }
        if (free != 0) {
            best = (free >>> best & 1) != 0 ? best : Long.numberOfTrailingZeros(free);
            int least = current[best] + down[best * stride + pod];
            for (long m = free; m != 0; m &= m - 1) {
                int position = Long.numberOfTrailingZeros(m);
                int load = current[position] + down[position * stride + pod];
                if (load < least) {
                    best = position;
                    least = load;
                }
            }
        }
        current[best]++;
        down[best * stride + pod]++;
        last[best] = l;
        return best;
    }

    private int[] homePositions(int div) {
        if (homeDiv != div) {
            for (int l = 0; l < leaves; l++) {
                int from = index.leafNodeStart(l);
                int first = from == index.leafNodeStart(l + 1) ? -1 : leafFirst[l] >= 0 ? leafFirst[l] : sorted[from];
                homeOf[l] = first < 0 ? -1 : first / div % n;
            }
            homeDiv = div;
        }
        return homeOf;
    }
}
