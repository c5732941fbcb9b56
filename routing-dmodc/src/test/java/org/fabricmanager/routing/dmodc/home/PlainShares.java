package org.fabricmanager.routing.dmodc.home;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.topology.FabricIndex;

/**
 * A pod's shares of extras for {@link PlainHome}: {@link ExtraShares}' rule written plainly, sharing no code with it.
 * Leaf by leaf: the leaf's expected extras in {@code 2n} batches, each to the linked switch whose leaf link and
 * links up it raises least ({@code L⁶ + (S/u)⁶}, loads in units of {@code 1/n} pair); the batches in a cycle by
 * smooth weighted round robin, walked from the leaf's number; each extra to the next candidate in it that took none
 * of the leaf's extras within {@code n} destinations, else the next candidate.
 */
final class PlainShares {
    private final int[] homes;
    private final int n;
    private final long remote;
    private final long[] load;
    private final int[] up;
    private final List<Integer> cycle = new ArrayList<>();
    private final Map<Integer, Integer> last = new HashMap<>();
    private int next;

    PlainShares(FabricIndex index, DmodcRouting routing, int[] homes, long remote) {
        this.homes = homes;
        this.n = homes.length;
        this.remote = remote;
        this.load = new long[n];
        this.up = new int[n];
        for (int i = 0; i < n; i++) {
            if (homes[i] < 0) {
                continue;
            }
            for (int g = index.groupStart(homes[i]); g < index.groupStart(homes[i]) + index.groupCount(homes[i]);
                    g++) {
                int rank = routing.rank(index.groupNeighbour(g));
                if (rank > routing.rank(homes[i])) {
                    up[i] += index.groupSize(g);
                } else if (rank < routing.rank(homes[i])) {
                    load[i] += remote;
                }
            }
        }
    }

    /** Leaf number {@code k}, {@code linked[i]} 1 where it is linked to position {@code i}'s switch. */
    void startLeaf(int[] linked, int k) {
        last.clear();
        cycle.clear();
        List<Integer> linkedPositions = new ArrayList<>();
        List<Integer> usable = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (linked[i] == 1) {
                linkedPositions.add(i);
                if (up[i] > 0) {
                    usable.add(i);
                }
            }
        }
        int batches = 2 * n;
        if (usable.isEmpty()) {
            return;
        }
        long units = (n - linkedPositions.size()) * remote;
        long[] taken = new long[n];
        int[] count = new int[n];
        for (int j = 0; j < batches; j++) {
            long size = Math.max(n, units * (j + 1) / batches - units * j / batches);
            int best = -1;
            double least = 0;
            for (int i : usable) {
                double rise = cost(remote + taken[i] + size, load[i] + taken[i] + size, up[i])
                        - cost(remote + taken[i], load[i] + taken[i], up[i]);
                if (best < 0 || rise < least) {
                    best = i;
                    least = rise;
                }
            }
            taken[best] += size;
            count[best]++;
        }
        long[] credit = new long[n];
        for (int t = 0; t < batches; t++) {
            int best = -1;
            for (int i : usable) {
                credit[i] += count[i];
                if (best < 0 || credit[i] > credit[best]) {
                    best = i;
                }
            }
            credit[best] -= batches;
            cycle.add(best);
        }
        next = k % batches;
    }

    /** The cycle's choice among the candidates {@code c} for extra {@code d}, or -1. */
    int choose(List<Integer> c, int d) {
        for (boolean window : new boolean[] {true, false}) {
            for (int t = 0; t < cycle.size(); t++) {
                int at = (next + t) % cycle.size();
                int i = cycle.get(at);
                if (c.contains(i) && (!window || !last.containsKey(i) || Math.abs(d - last.get(i)) >= n)) {
                    next = (at + 1) % cycle.size();
                    return i;
                }
            }
        }
        return -1;
    }

    void take(int i, int d) {
        last.put(i, d);
        load[i] += n;
    }

    static double cost(long leaf, long own, int ports) {
        double a = leaf;
        double b = (double) own / ports;
        return a * a * (a * a) * (a * a) + b * b * (b * b) * (b * b);
    }
}
