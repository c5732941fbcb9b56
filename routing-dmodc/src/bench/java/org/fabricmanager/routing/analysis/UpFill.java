package org.fabricmanager.routing.analysis;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * An experiment, not an engine: {@code dmodc-home}'s tables with each level-1 switch's up choices evened by the
 * sources they carry. A destination a level-1 switch sends up its home top (the level-2 switch Dmodc takes for it
 * on the intact tree, {@code home}) stays there, so that it still comes down one link from every pod; every other
 * destination it sends up (a home top's stand-in, or an extra a leaf sent it) goes to the least loaded of its
 * candidates, the level-2 switches that reach the destination's leaf in two hops down, heavy ones (sent by most of
 * the leaves below) first, each in destination order. Load: the pod's sources whose route to the destination
 * crosses the switch. Every entry stays a shortest up*&#47;down* choice. Plain loops: for the 4,096-node sweep.
 */
final class UpFill {
    private UpFill() {
    }

    /**
     * {@code tables} (routing {@code index}) with the level-1 switches' up choices evened; {@code home}: Dmodc's
     * tables of the intact tree. With {@code -Dfm.fill.lightOnly=true} only the light destinations move; with
     * {@code -Dfm.fill.downCap=C} a destination goes up only to a level-2 switch whose link down towards it already
     * carries it or fewer than {@code C} destinations (such a link cannot carry more than {@code C} routes of a
     * permutation), the switches taken together, heavy destinations of all first.
     */
    static ForwardingTables fill(FabricIndex index, ForwardingTables tables, ForwardingTables home) {
        int switches = index.switchCount();
        int[] ranks = Ranking.fromSources(index, index.leaves());
        RoutedFabric routed = RoutedFabric.of(index, tables);
        DirectedLinks links = routed.links();
        byte[][] rows = new byte[switches][];
        for (int s = 0; s < switches; s++) {
            rows[s] = tables.copyRow(s);
        }
        int cap = Integer.getInteger("fm.fill.downCap", 0);
        boolean lightOnly = Boolean.getBoolean("fm.fill.lightOnly");
        int destinations = tables.destinationCount();
        long[] load = new long[links.count()];
        // all-to-all routes per link down from level 2, without the moves' (a cap keeps them below downLoad)
        long downLimit = Long.getLong("fm.fill.downLoad", Long.MAX_VALUE);
        long[] downLoad = new CongestionAnalyzer(routed, 2).allToAllLoads();
        // per link down from level 2, the destinations it carries (kept only with a cap)
        java.util.Map<Integer, java.util.Set<Integer>> down = new java.util.HashMap<>();
        java.util.List<int[]> heavyMoves = new java.util.ArrayList<>();
        java.util.List<int[]> lightMoves = new java.util.ArrayList<>();
        for (int u = 0; u < switches; u++) {
            if (ranks[u] != 1 || upPorts(index, ranks, u).length == 0) {
                continue;
            }
            int[] below = neighbours(index, ranks, u, 0);
            int homeRow = home.rowOf(index.switchGuid(u));
            int[] weight = new int[destinations];
            int heaviest = 0;
            for (int i = 0; i < routed.attachedCount(); i++) {
                int d = routed.attachedDestination(i);
                for (int leaf : below) {
                    int port = tables.port(leaf, d);
                    if (port != ForwardingTables.NO_ROUTE && routed.leafOf(d) != leaf
                            && index.peerSwitches(leaf)[port] == u) {
                        weight[d] += routed.attachedOn(leaf);
                    }
                }
                heaviest = Math.max(heaviest, weight[d]);
            }
            for (int i = 0; i < routed.attachedCount(); i++) {
                int d = routed.attachedDestination(i);
                int port = tables.port(u, d);
                if (weight[d] == 0 || port == ForwardingTables.NO_ROUTE || ranks[index.peerSwitches(u)[port]] != 2) {
                    continue;
                }
                boolean heavy = 2 * weight[d] > heaviest;
                if (homeRow >= 0 && home.port(homeRow, d) == port || lightOnly && heavy) {
                    load[links.id(u, port)] += weight[d];
                    if (cap > 0) {
                        down.computeIfAbsent(downLink(index, links, tables, index.peerSwitches(u)[port], d),
                                k -> new java.util.HashSet<>()).add(d);
                    }
                } else {
                    (heavy ? heavyMoves : lightMoves).add(new int[] {u, d, weight[d]});
                    downLoad[downLink(index, links, tables, index.peerSwitches(u)[port], d)] -= weight[d];
                }
            }
        }
        for (java.util.List<int[]> moves : java.util.List.of(heavyMoves, lightMoves)) {
            for (int[] move : moves) {
                int u = move[0];
                int d = move[1];
                int[] upPorts = upPorts(index, ranks, u);
                int target = routed.leafOf(d);
                int best = -1;
                int start = (int) Math.floorMod((long) d / 16, upPorts.length);
                for (int j = 0; j < upPorts.length; j++) {
                    int port = upPorts[(start + j) % upPorts.length];
                    int t = index.peerSwitches(u)[port];
                    if (!reachesDown(index, tables, t, d, target)) {
                        continue;
                    }
                    if (downLoad[downLink(index, links, tables, t, d)] + move[2] > downLimit) {
                        continue;
                    }
                    if (cap > 0) {
                        java.util.Set<Integer> carried = down.get(downLink(index, links, tables, t, d));
                        if (carried != null && carried.size() >= cap && !carried.contains(d)) {
                            continue;
                        }
                    }
                    if (best < 0 || load[links.id(u, port)] < load[links.id(u, best)]) {
                        best = port;
                    }
                }
                int port = best >= 0 ? best : tables.port(u, d);
                rows[u][d] = (byte) port;
                load[links.id(u, port)] += move[2];
                downLoad[downLink(index, links, tables, index.peerSwitches(u)[port], d)] += move[2];
                if (cap > 0) {
                    down.computeIfAbsent(downLink(index, links, tables, index.peerSwitches(u)[port], d),
                            k -> new java.util.HashSet<>()).add(d);
                }
            }
        }
        long[] guids = new long[switches];
        for (int s = 0; s < switches; s++) {
            guids[s] = index.switchGuid(s);
        }
        return ForwardingTables.ofRows(guids, rows, destinations);
    }

    /**
     * {@code tables} with whole pods' destinations moved between level-1 switches, so that each switch's sources
     * going up are in proportion to its links up: from a switch above its share, the destinations it sends up
     * another way than their home top (heavy ones), in destination order, each to the pod's switch furthest below
     * its share that reaches it, by every leaf that sent it there and is linked to that switch.
     */
    static ForwardingTables podMoves(FabricIndex index, ForwardingTables tables, ForwardingTables home) {
        int switches = index.switchCount();
        int[] ranks = Ranking.fromSources(index, index.leaves());
        RoutedFabric routed = RoutedFabric.of(index, tables);
        byte[][] rows = new byte[switches][];
        for (int s = 0; s < switches; s++) {
            rows[s] = tables.copyRow(s);
        }
        int destinations = tables.destinationCount();
        int[] pod = new int[switches];
        java.util.Arrays.fill(pod, -1);
        java.util.Map<Integer, java.util.List<Integer>> members = new java.util.TreeMap<>();
        for (int u = 0; u < switches; u++) {
            if (ranks[u] == 1) {
                int[] below = neighbours(index, ranks, u, 0);
                int key = below.length == 0 ? -1 - u : index.leafNumber(below[0]) / 16;
                members.computeIfAbsent(key, k -> new java.util.ArrayList<>()).add(u);
            }
        }
        long[] up = new long[switches];
        int[][] weight = new int[switches][];
        int[] ups = new int[switches];
        for (java.util.List<Integer> group : members.values()) {
            for (int u : group) {
                ups[u] = upPorts(index, ranks, u).length;
                weight[u] = new int[destinations];
                for (int leaf : neighbours(index, ranks, u, 0)) {
                    for (int i = 0; i < routed.attachedCount(); i++) {
                        int d = routed.attachedDestination(i);
                        int port = rows[leaf][d] & 0xff;
                        if (port != ForwardingTables.NO_ROUTE && routed.leafOf(d) != leaf
                                && index.peerSwitches(leaf)[port] == u && goesUp(index, ranks, rows, u, d)) {
                            weight[u][d] += routed.attachedOn(leaf);
                        }
                    }
                }
                up[u] = java.util.Arrays.stream(weight[u]).asLongStream().sum();
            }
            long total = group.stream().mapToLong(u -> up[u]).sum();
            long capacity = group.stream().mapToLong(u -> ups[u]).sum();
            if (capacity == 0) {
                continue;
            }
            double share = Double.parseDouble(System.getProperty("fm.fill.podShare", "1"));
            for (int u : group) {
                int homeRow = home.rowOf(index.switchGuid(u));
                int heaviest = java.util.Arrays.stream(weight[u]).max().orElse(0);
                // moves the excess over the switch's share of the pod's sources by the fraction podShare
                double goal = up[u] - share * (up[u] - (double) total * ups[u] / capacity);
                for (int i = 0; i < routed.attachedCount() && up[u] > goal; i++) {
                    int d = routed.attachedDestination(i);
                    int w = weight[u][d];
                    if (2 * w <= heaviest || homeRow >= 0 && home.port(homeRow, d) == (rows[u][d] & 0xff)) {
                        continue;
                    }
                    int target = routed.leafOf(d);
                    int best = -1;
                    long bestDeficit = 0;
                    for (int v : group) {
                        long deficit = total * ups[v] - up[v] * capacity;
                        if (v != u && deficit > bestDeficit && reaches(index, ranks, tables, v, d, target)) {
                            best = v;
                            bestDeficit = deficit;
                        }
                    }
                    if (best < 0) {
                        break;
                    }
                    for (int leaf : neighbours(index, ranks, u, 0)) {
                        int port = rows[leaf][d] & 0xff;
                        int to = portTo(index, leaf, best);
                        if (port != ForwardingTables.NO_ROUTE && index.peerSwitches(leaf)[port] == u && to > 0
                                && routed.leafOf(d) != leaf) {
                            rows[leaf][d] = (byte) to;
                            weight[u][d] -= routed.attachedOn(leaf);
                            weight[best][d] += routed.attachedOn(leaf);
                            up[u] -= routed.attachedOn(leaf);
                            up[best] += routed.attachedOn(leaf);
                        }
                    }
                }
            }
        }
        long[] guids = new long[switches];
        for (int s = 0; s < switches; s++) {
            guids[s] = index.switchGuid(s);
        }
        return ForwardingTables.ofRows(guids, rows, destinations);
    }

    private static boolean goesUp(FabricIndex index, int[] ranks, byte[][] rows, int u, int d) {
        int port = rows[u][d] & 0xff;
        return port != ForwardingTables.NO_ROUTE && ranks[index.peerSwitches(u)[port]] > ranks[u];
    }

    /** Whether level-1 switch {@code v} has a link up to a level-2 switch that reaches {@code target} down. */
    private static boolean reaches(FabricIndex index, int[] ranks, ForwardingTables tables, int v, int d, int target) {
        for (int port : upPorts(index, ranks, v)) {
            if (reachesDown(index, tables, index.peerSwitches(v)[port], d, target)) {
                return true;
            }
        }
        return false;
    }

    private static int portTo(FabricIndex index, int s, int v) {
        int[] peers = index.peerSwitches(s);
        for (int p = 1; p < peers.length; p++) {
            if (peers[p] == v) {
                return p;
            }
        }
        return -1;
    }

    /** The link level-2 switch {@code t} sends {@code d} down. */
    private static int downLink(FabricIndex index, DirectedLinks links, ForwardingTables tables, int t, int d) {
        return links.id(t, tables.port(t, d));
    }

    /** Whether level-2 switch {@code t}'s route to {@code d} reaches leaf {@code target} in two hops down. */
    private static boolean reachesDown(FabricIndex index, ForwardingTables tables, int t, int d, int target) {
        int port = tables.port(t, d);
        if (port == ForwardingTables.NO_ROUTE) {
            return false;
        }
        int v = index.peerSwitches(t)[port];
        int next = v < 0 ? ForwardingTables.NO_ROUTE : tables.port(v, d);
        return next != ForwardingTables.NO_ROUTE && index.peerSwitches(v)[next] == target;
    }

    private static int[] neighbours(FabricIndex index, int[] ranks, int u, int rank) {
        return Arrays.stream(ports(index, u)).map(p -> index.peerSwitches(u)[p])
                .filter(v -> v >= 0 && ranks[v] == rank).distinct().toArray();
    }

    private static int[] upPorts(FabricIndex index, int[] ranks, int u) {
        return Arrays.stream(ports(index, u)).filter(p -> {
            int v = index.peerSwitches(u)[p];
            return v >= 0 && ranks[v] > ranks[u];
        }).toArray();
    }

    private static int[] ports(FabricIndex index, int u) {
        int[] ports = new int[0];
        for (int g = index.groupStart(u); g < index.groupStart(u) + index.groupCount(u); g++) {
            for (int i = 0; i < index.groupSize(g); i++) {
                ports = Arrays.copyOf(ports, ports.length + 1);
                ports[ports.length - 1] = index.groupPort(g, i);
            }
        }
        return ports;
    }
}
