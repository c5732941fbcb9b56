package org.fabricmanager.detector.overlay;

import java.util.ArrayDeque;

/**
 * Runs one broadcast through an overlay at graph level (every hop takes one step, crashed members
 * swallow copies) and reports who was reached, how many copies were sent and the deepest hop.
 */
record Coverage(boolean[] reached, long messages, int maxHops) {

    static Coverage of(BroadcastOverlay overlay, int n, int source, int[] sourceDead, boolean[] crashed) {
        LiveRanks ranks = new LiveRanks(n, source, sourceDead);
        boolean[] reached = new boolean[n];
        boolean[] forwarded = new boolean[n];
        reached[source] = true;
        forwarded[source] = true;
        ArrayDeque<int[]> queue = new ArrayDeque<>(); // {target, from, cube, tree, hops}
        long[] messages = {0};
        overlay.originate(ranks, (target, cube, tree) -> {
            messages[0]++;
            queue.add(new int[] {target, source, cube, tree, 1});
        });
        int maxHops = 0;
        while (!queue.isEmpty()) {
            int[] c = queue.poll();
            int member = c[0];
            if (crashed[member]) {
                continue;
            }
            if (!reached[member]) {
                reached[member] = true;
                maxHops = Math.max(maxHops, c[4]);
            }
            if (overlay.forwardsFirstCopyOnly()) {
                if (forwarded[member]) {
                    continue;
                }
                forwarded[member] = true;
            }
            int hops = c[4] + 1;
            overlay.forward(ranks, member, c[1], c[2], c[3], (target, cube, tree) -> {
                messages[0]++;
                queue.add(new int[] {target, member, cube, tree, hops});
            });
        }
        return new Coverage(reached, messages[0], maxHops);
    }

    /** Whether every member that is neither crashed nor in the source's dead set was reached. */
    boolean reachedAllLive(boolean[] crashed, int[] sourceDead) {
        boolean[] excluded = crashed.clone();
        for (int d : sourceDead) {
            excluded[d] = true;
        }
        for (int i = 0; i < reached.length; i++) {
            if (!excluded[i] && !reached[i]) {
                return false;
            }
        }
        return true;
    }
}
