package org.fabricmanager.routing.baseline;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * The total order Up*&#47;Down* routing directs links by: a link is "up" towards the switch with the
 * higher position. Switches are ordered by height, then by id (so by GUID) to break ties, which
 * makes every link up in exactly one direction and the up-links acyclic; that is what makes
 * up*&#47;down* routes deadlock-free. Height is either the BFS rank from the leaf switches (leaves
 * lowest) or minus the BFS distance from a set of root switches (roots highest).
 */
public final class UpDownOrder {
    private final int[] position;

    private UpDownOrder(int[] position) {
        this.position = position;
    }

    /** Heights from the leaf switches: leaves at the bottom, switches no leaf reaches on top. */
    public static UpDownOrder fromLeaves(FabricIndex index) {
        int[] rank = Ranking.fromLeaves(index);
        return byHeight(rank);
    }

    /** Heights from roots: roots on top, switches no root reaches at the bottom. */
    public static UpDownOrder fromRoots(FabricIndex index, int[] roots) {
        int[] distance = Ranking.fromSources(index, roots);
        int[] height = new int[distance.length];
        for (int s = 0; s < height.length; s++) {
            height[s] = distance[s] == Ranking.UNREACHED ? Integer.MIN_VALUE : -distance[s];
        }
        return byHeight(height);
    }

    private static UpDownOrder byHeight(int[] height) {
        int n = height.length;
        long[] keys = new long[n];
        for (int s = 0; s < n; s++) {
            // signed height in the high 32 bits, id (non-negative) in the low bits
            keys[s] = ((long) height[s] << 32) | s;
        }
        Arrays.sort(keys);
        int[] position = new int[n];
        for (int i = 0; i < n; i++) {
            position[(int) keys[i]] = i;
        }
        return new UpDownOrder(position);
    }

    /** Position of switch {@code s}; higher is up. */
    public int position(int s) {
        return position[s];
    }

    /** True when going from {@code from} to its neighbour {@code to} is an up move. */
    public boolean isUp(int from, int to) {
        return position[to] > position[from];
    }

    /** Switch ids from the highest position down. */
    int[] descending() {
        int[] order = new int[position.length];
        for (int s = 0; s < position.length; s++) {
            order[position.length - 1 - position[s]] = s;
        }
        return order;
    }

    int[] positions() {
        return position;
    }
}
