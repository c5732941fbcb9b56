package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The figures an operator checks first about a fabric: levels (from the leaves up), switches, links
 * and radix per level, nodes, and what is disconnected.
 *
 * @param levels             per level (1 = leaves): switches, links to the level below, largest radix
 * @param nodes              end nodes
 * @param attachedNodes      end nodes with a link to a switch
 * @param switchLinks        switch-to-switch links
 * @param nodeLinks          node-to-switch links
 * @param unreachedSwitches  switches that no leaf reaches over switch links
 */
public record FabricSummary(List<Level> levels, int nodes, int attachedNodes, int switchLinks, int nodeLinks,
                            int unreachedSwitches) {

    /** One switch level: its switch count, links down to the level below and the largest port count. */
    public record Level(int level, int switches, int linksDown, int maxRadix) {
    }

    /** Computes the summary of {@code fabric}; levels are BFS ranks from the leaves, plus one. */
    public static FabricSummary of(Fabric fabric) {
        FabricIndex index = fabric.index();
        int[] rank = Ranking.fromLeaves(index);
        int top = -1;
        int unreached = 0;
        for (int r : rank) {
            if (r == Ranking.UNREACHED) {
                unreached++;
            } else {
                top = Math.max(top, r);
            }
        }
        int[] switches = new int[top + 1];
        int[] linksDown = new int[top + 1];
        int[] radix = new int[top + 1];
        int switchLinks = 0;
        int nodeLinks = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            if (rank[s] == Ranking.UNREACHED) {
                continue;
            }
            switches[rank[s]]++;
            radix[rank[s]] = Math.max(radix[rank[s]], index.switchPorts(s));
            int[] peers = index.peerSwitches(s);
            int[] nodesOnPort = index.peerNodes(s);
            for (int p = 1; p < peers.length; p++) {
                if (nodesOnPort[p] != FabricIndex.NONE) {
                    nodeLinks++;
                    linksDown[rank[s]]++;
                } else if (peers[p] != FabricIndex.NONE && rank[peers[p]] < rank[s]) {
                    linksDown[rank[s]]++;
                }
            }
        }
        for (Link l : fabric.links()) {
            if (fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())) {
                switchLinks++;
            }
        }
        int attached = 0;
        for (int i = 0; i < index.nodeCount(); i++) {
            if (index.nodeLeaf(i) != FabricIndex.NONE) {
                attached++;
            }
        }
        List<Level> levels = new ArrayList<>();
        for (int r = 0; r <= top; r++) {
            levels.add(new Level(r + 1, switches[r], linksDown[r], radix[r]));
        }
        return new FabricSummary(Collections.unmodifiableList(levels), index.nodeCount(), attached, switchLinks,
                nodeLinks, unreached);
    }

    /** All switches that some leaf reaches. */
    public int rankedSwitches() {
        int total = 0;
        for (Level l : levels) {
            total += l.switches();
        }
        return total;
    }
}
