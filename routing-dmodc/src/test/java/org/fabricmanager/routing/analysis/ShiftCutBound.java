package org.fabricmanager.routing.analysis;

import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/**
 * A lower bound on the shift congestion of any routing of a canonical PGFT or of a degradation of
 * it that removed only switches and switch-to-switch links: the cut bound. The nodes below a
 * level-l sub-tree (switches of levels 1..l whose nodes are the {@code M_l} consecutive indices
 * {@code [A*M_l, (A+1)*M_l)}) all send outside it under the shift {@code k = M_l} when
 * {@code N >= 2*M_l}, so one of the links leaving the sub-tree carries at least
 * {@code ceil(M_l / links leaving)} of those routes, whatever the engine. The bound is the maximum
 * over sub-trees of every level below the top.
 */
final class ShiftCutBound {
    private ShiftCutBound() {
    }

    /**
     * The cut bound of {@code index}, a fabric generated from {@code spec} and degraded by removing
     * switches and switch-to-switch links only; 0 when no sub-tree has a link leaving it. Sub-trees
     * with no link leaving them (disconnected) are skipped: no engine routes them.
     *
     * @throws IllegalArgumentException when a node of the canonical fabric is missing or detached
     */
    static long of(PgftSpec spec, FabricIndex index) {
        int n = spec.nodeCount();
        for (int d = 0; d < n; d++) {
            int pos = index.nodeByDestination(d);
            if (pos == FabricIndex.NONE || index.nodeLeaf(pos) == FabricIndex.NONE) {
                throw new IllegalArgumentException("node " + d + " of " + spec + " is missing or detached");
            }
        }
        int switches = index.switchCount();
        int[] level = new int[switches];
        int[] firstNode = new int[switches];
        for (int s = 0; s < switches; s++) {
            long local = index.switchGuid(s) - PgftGenerator.SWITCH_GUID_BASE;
            level[s] = (int) (local >>> 32);
            int idx = (int) (local & 0xffffffffL);
            firstNode[s] = idx / spec.bigW(level[s]) * spec.bigM(level[s]);
        }
        long bound = 0;
        for (int l = 1; l < spec.h(); l++) {
            int size = spec.bigM(l);
            if (n < 2 * size) {
                continue;
            }
            int[] leaving = new int[n / size];
            for (int s = 0; s < switches; s++) {
                if (level[s] > l) {
                    continue;
                }
                int tree = firstNode[s] / size;
                int[] peers = index.peerSwitches(s);
                for (int port = 1; port < peers.length; port++) {
                    int t = peers[port];
                    if (t != FabricIndex.NONE && (level[t] > l || firstNode[t] / size != tree)) {
                        leaving[tree]++;
                    }
                }
            }
            for (int out : leaving) {
                if (out > 0) {
                    bound = Math.max(bound, (size + out - 1) / out);
                }
            }
        }
        return bound;
    }
}
