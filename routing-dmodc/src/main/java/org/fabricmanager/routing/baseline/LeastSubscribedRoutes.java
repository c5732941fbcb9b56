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

            @Override
            public void accept(int s) {
                route(index, builder.row(s), s, candidates, subscription, ports);
            }
        });
    }

    private static void route(FabricIndex index, byte[] row, int s, CandidatePorts candidates, int[] subscription,
                              int[] ports) {
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
            for (int i = from; i < to; i++) {
                int best = ports[0];
                for (int c = 1; c < count; c++) {
                    int p = ports[c];
                    if (subscription[p] < subscription[best] || (subscription[p] == subscription[best] && p < best)) {
                        best = p;
                    }
                }
                row[index.nodeIndex(leafNodes[i])] = (byte) best;
                subscription[best]++;
            }
        }
    }
}
