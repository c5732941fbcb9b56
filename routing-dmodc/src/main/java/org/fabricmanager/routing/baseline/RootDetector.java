package org.fabricmanager.routing.baseline;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * Finds the roots of a fat-tree without being told, by the hop-histogram heuristic of the OpenSM
 * memo (section 4.1): for every switch, a histogram of how many attached nodes are at each hop
 * distance (a node on leaf {@code l} is {@code dist(s, l) + 1} hops from {@code s}), filled by one
 * BFS per leaf. A root of a fat-tree sees (almost) all nodes at the same distance.
 *
 * <p>Criterion, as OpenSM's {@code updn_find_root_nodes_by_min_hop}: exactly one bar above 90% of
 * the nodes and no other bar above 5%. OpenSM's test alone also accepts the switches one level
 * below the top when the top level has 20 or more children per switch (their own subtree is then
 * under 5% of the nodes), so of the switches that pass it, only those whose dominant distance is
 * the smallest are kept: the top level is closer to the bulk of the nodes than the level below.
 */
public final class RootDetector {
    private static final double DOMINANT_SHARE = 0.9;
    private static final double NOISE_SHARE = 0.05;

    private RootDetector() {
    }

    /**
     * Per switch, the number of attached nodes at each hop distance (index = hops); nodes a switch
     * cannot reach are in no bar.
     */
    public static int[][] hopHistograms(FabricIndex index) {
        int n = index.switchCount();
        int[][] histogram = new int[n][];
        int[] distance = new int[n];
        int[] queue = new int[n];
        Arrays.fill(distance, -1);
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        int maxDistance = 0;
        for (int k = 0; k < index.leafCount(); k++) {
            int head = 0;
            int tail = 0;
            int leaf = index.leaves()[k];
            distance[leaf] = 0;
            queue[tail++] = leaf;
            while (head < tail) {
                int s = queue[head++];
                for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                    int t = neighbours[g];
                    if (distance[t] < 0) {
                        distance[t] = distance[s] + 1;
                        queue[tail++] = t;
                    }
                }
            }
            int attached = index.leafNodeStart(k + 1) - index.leafNodeStart(k);
            for (int i = 0; i < tail; i++) {
                int s = queue[i];
                int hops = distance[s] + 1;
                if (histogram[s] == null || histogram[s].length <= hops) {
                    histogram[s] = histogram[s] == null ? new int[hops + 2] : Arrays.copyOf(histogram[s], hops + 2);
                }
                histogram[s][hops] += attached;
                maxDistance = Math.max(maxDistance, hops);
                distance[s] = -1;
            }
        }
        for (int s = 0; s < n; s++) {
            int[] h = histogram[s] == null ? new int[0] : histogram[s];
            histogram[s] = Arrays.copyOf(h, maxDistance + 1);
        }
        return histogram;
    }

    /** The root switch ids (ascending); empty when no switch passes the test. */
    public static int[] detect(FabricIndex index) {
        int[][] histogram = hopHistograms(index);
        long total = 0;
        for (int k = 0; k < index.leafCount(); k++) {
            total += index.leafNodeStart(k + 1) - index.leafNodeStart(k);
        }
        double dominantThreshold = total * DOMINANT_SHARE;
        double noiseThreshold = total * NOISE_SHARE;
        int[] dominant = new int[index.switchCount()];
        int best = Integer.MAX_VALUE;
        for (int s = 0; s < histogram.length; s++) {
            dominant[s] = -1;
            int overDominant = 0;
            int overNoise = 0;
            int bar = -1;
            for (int hops = 0; hops < histogram[s].length; hops++) {
                if (histogram[s][hops] > dominantThreshold) {
                    overDominant++;
                    bar = hops;
                }
                if (histogram[s][hops] > noiseThreshold) {
                    overNoise++;
                }
            }
            if (overDominant == 1 && overNoise == 1) {
                dominant[s] = bar;
                best = Math.min(best, bar);
            }
        }
        int count = 0;
        int[] roots = new int[histogram.length];
        for (int s = 0; s < histogram.length; s++) {
            if (dominant[s] >= 0 && dominant[s] == best) {
                roots[count++] = s;
            }
        }
        return Arrays.copyOf(roots, count);
    }
}
