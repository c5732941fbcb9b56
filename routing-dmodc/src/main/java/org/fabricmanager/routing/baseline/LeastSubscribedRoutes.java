package org.fabricmanager.routing.baseline;

import java.util.Arrays;
import java.util.function.IntConsumer;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;

/**
 * Output port assignment of the OpenSM memo (section 4.3), shared by {@code minhop} and
 * {@code updn}: on each switch, a port subscription vector counts the destinations already routed
 * through each port; target leaves are taken in leaf order and their nodes in destination-index
 * order, and each node gets the least-subscribed of the leaf's candidate ports (ties go to the
 * lowest port number). A switch's own nodes get the port they are attached to. Switches are
 * independent, so they are spread over the engine's threads.
 */
final class LeastSubscribedRoutes {
    private LeastSubscribedRoutes() {
    }

    static void fill(FabricIndex index, ForwardingTables.Builder builder, WorkerPool pool, CandidatePorts candidates) {
        pool.forEach(index.switchCount(), () -> new IntConsumer() {
            private final int[] subscription = new int[256];
            private final int[] ports = new int[256];
            private final int[] scratch = new int[512];
            private int[] chosen = new int[64];

            @Override
            public void accept(int s) {
                byte[] row = builder.row(s);
                Arrays.fill(subscription, 0);
                int[] leaves = index.leaves();
                int[] leafNodes = index.leafNodeArray();
                for (int k = 0; k < leaves.length; k++) {
                    int from = index.leafNodeStart(k);
                    int to = index.leafNodeStart(k + 1);
                    if (leaves[k] == s) {
                        for (int i = from; i < to; i++) {
                            row[index.nodeIndex(leafNodes[i])] = (byte) index.nodeLeafPort(leafNodes[i]);
                        }
                        continue;
                    }
                    int count = candidates.collect(s, k, ports);
                    if (count == 0) {
                        continue;
                    }
                    if (chosen.length < to - from) {
                        chosen = new int[to - from];
                    }
                    assign(subscription, ports, count, to - from, chosen, scratch);
                    for (int i = from; i < to; i++) {
                        row[index.nodeIndex(leafNodes[i])] = (byte) chosen[i - from];
                    }
                }
            }
        });
    }

    /**
     * Gives {@code n} destinations, one after the other, the least-subscribed of the
     * {@code count} candidate {@code ports} (ties to the lowest port number), updating
     * {@code subscription}; writes the choices to {@code chosen[0..n)}. Same result as scanning
     * the candidates for every destination, in O(count log count + n + count x levels) instead of
     * O(n x count): at each subscription level, every candidate already at that level takes one
     * destination, in port order (the memo's "modified cyclic list").
     *
     * @param scratch at least {@code 2 * count} ints
     */
    static void assign(int[] subscription, int[] ports, int count, int n, int[] chosen, int[] scratch) {
        if (count == 1) {
            int p = ports[0];
            for (int i = 0; i < n; i++) {
                chosen[i] = p;
            }
            subscription[p] += n;
            return;
        }
        // byLoad: candidates by (subscription, port); active: those at the current level, by port.
        int[] byLoad = scratch;
        int activeStart = count;
        for (int c = 0; c < count; c++) {
            int p = ports[c];
            int j = c;
            while (j > 0 && before(subscription, p, byLoad[j - 1])) {
                byLoad[j] = byLoad[j - 1];
                j--;
            }
            byLoad[j] = p;
        }
        int active = 0;
        int next = 0;
        int level = subscription[byLoad[0]];
        int i = 0;
        while (i < n) {
            while (next < count && subscription[byLoad[next]] <= level) {
                int p = byLoad[next++];
                int j = active++;
                while (j > 0 && scratch[activeStart + j - 1] > p) {
                    scratch[activeStart + j] = scratch[activeStart + j - 1];
                    j--;
                }
                scratch[activeStart + j] = p;
            }
            for (int a = 0; a < active && i < n; a++) {
                int p = scratch[activeStart + a];
                chosen[i++] = p;
                subscription[p]++;
            }
            level++;
        }
    }

    private static boolean before(int[] subscription, int p, int q) {
        return subscription[p] < subscription[q] || (subscription[p] == subscription[q] && p < q);
    }
}
