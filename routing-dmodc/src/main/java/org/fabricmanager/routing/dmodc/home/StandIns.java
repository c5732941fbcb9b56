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
 * {@link #choose} switch by switch, in the same order, a switch's leaves in ascending order. Loads count leaves (one
 * home destination each in a PGFT), a leaf's home by its first destination.
 */
final class StandIns {
    private final FabricIndex index;
    private final int leaves;
    private final int[] leafFirst;
    private final int[] sorted;
    private final int[] leafPod;
    private final int n;
    /** Per level-1 switch of the plane (by its index there), per position: homes, then stand-ins too. */
    private final int[][] up;
    /** Per pod and position ({@code (pod + 1) × positions + position}): the plane's homes and stand-ins down there. */
    private final int[] down;
    /** Per position, the leaf number of the last stand-in put there by the switch at hand. */
    private final int[] last;
    /**
     * The switch at hand's positions that took a stand-in within the last {@code n} leaves, and its stand-ins in the
     * order taken, a ring from {@code oldest} to {@code newest}: the leaves come in ascending order, so a position
     * leaves {@code busy} when its last stand-in leaves the ring.
     */
    private long busy;
    private int[] recentLeaf = new int[64];
    private int[] recentPosition = new int[64];
    private int oldest;
    private int newest;
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
        this.up = new int[switches][];
        this.down = new int[positions * (pods + 1)];
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
                down[leafPod[l] * n + h] += hit;
            }
        }
        up[i] = homes;
    }

    /** Makes the plane's {@code i}-th level-1 switch, counted before, the one whose stand-ins are chosen. */
    void start(int i) {
        current = up[i];
        Arrays.fill(last, Integer.MIN_VALUE / 2);
        busy = 0;
        oldest = 0;
        newest = 0;
    }

    /**
     * The position of {@code mask} for the stand-in of leaf {@code l}'s home ({@code preferred}: the formula's),
     * counted as taken.
     */
    int choose(long mask, int l, int preferred) {
        int pod = leafPod[l];
        while (oldest != newest && l - recentLeaf[oldest] >= n) {
            int position = recentPosition[oldest];
            busy &= last[position] == recentLeaf[oldest] ? ~(1L << position) : -1L;
            oldest = (oldest + 1) & (recentLeaf.length - 1);
        }
        long free = mask & ~busy;
        int best = preferred;
        if (free != 0) {
            int at = pod * n;
            best = (free >>> best & 1) != 0 ? best : Long.numberOfTrailingZeros(free);
            int least = current[best] + down[at + best];
            for (long m = free; m != 0; m &= m - 1) {
                int position = Long.numberOfTrailingZeros(m);
                int load = current[position] + down[at + position];
                if (load < least) {
                    best = position;
                    least = load;
                }
            }
        }
        current[best]++;
        down[pod * n + best]++;
        last[best] = l;
        busy |= 1L << best;
        remember(l, best);
        return best;
    }

    /** Adds a stand-in to the recent ones, in the order taken (the ring doubles when full). */
    private void remember(int l, int position) {
        int size = recentLeaf.length;
        if (((newest + 1) & (size - 1)) == oldest) {
            int[] leavesTaken = new int[2 * size];
            int[] positions = new int[2 * size];
            int count = 0;
            for (int i = oldest; i != newest; i = (i + 1) & (size - 1)) {
                leavesTaken[count] = recentLeaf[i];
                positions[count++] = recentPosition[i];
            }
            recentLeaf = leavesTaken;
            recentPosition = positions;
            oldest = 0;
            newest = count;
        }
        recentLeaf[newest] = l;
        recentPosition[newest] = position;
        newest = (newest + 1) & (recentLeaf.length - 1);
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
