package org.fabricmanager.daemon.chaos;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/**
 * What must be true of the tables the simulated switches hold, judged from the simulation's own model of the fabric
 * (the intact PGFT, the switches off, the cables down, the cables drained), never from the engine's code. Routes are
 * followed hop by hop through the tables as the switches hold them: from every live switch to every end node whose
 * leaf is live, a route reaches the node, never crosses a down or drained element and never loops; from a leaf (where
 * traffic enters) it also goes up then down only and is as short as the shortest such path on the live, undrained
 * fabric. A node that a switch has no such path to is unrouted (255) there, or its route from the leaves never
 * reaches that switch.
 */
final class ChaosOracle {
    private static final int NO_ROUTE = 0xff;
    private final Fabric intact;
    /** Switch levels of the intact fabric: 1 for leaves (they hold end nodes), one more per hop away from them. */
    private final Map<Long, Integer> level = new HashMap<>();
    /** The cable at each switch port of the intact fabric, and each end node's leaf port. */
    private final Map<PortRef, Link> cableAt = new HashMap<>();
    private final Map<PortRef, Long> nodeAt = new HashMap<>();
    private final Map<Long, PortRef> leafOf = new HashMap<>();

    ChaosOracle(Fabric intact) {
        this.intact = intact;
        Set<Long> nodes = new HashSet<>();
        intact.nodes().forEach(n -> nodes.add(n.guid()));
        ArrayDeque<Long> queue = new ArrayDeque<>();
        for (Link l : intact.links()) {
            if (nodes.contains(l.a()) || nodes.contains(l.b())) {
                boolean nodeIsA = nodes.contains(l.a());
                PortRef leafPort = nodeIsA ? new PortRef(l.b(), l.bPort()) : new PortRef(l.a(), l.aPort());
                long node = nodeIsA ? l.a() : l.b();
                nodeAt.put(leafPort, node);
                leafOf.put(node, leafPort);
                if (level.putIfAbsent(leafPort.guid(), 1) == null) {
                    queue.add(leafPort.guid());
                }
            } else {
                cableAt.put(new PortRef(l.a(), l.aPort()), l);
                cableAt.put(new PortRef(l.b(), l.bPort()), l);
            }
        }
        while (!queue.isEmpty()) {
            long s = queue.poll();
            for (Link l : cablesOf(s)) {
                long peer = l.a() == s ? l.b() : l.a();
                if (level.putIfAbsent(peer, level.get(s) + 1) == null) {
                    queue.add(peer);
                }
            }
        }
    }

    private List<Link> cablesOf(long s) {
        return cablesOf.computeIfAbsent(s, g -> cableAt.entrySet().stream().filter(e -> e.getKey().guid() == g)
                .map(Map.Entry::getValue).sorted(Comparator.comparing(Link::toString)).toList());
    }

    private final Map<Long, List<Link>> cablesOf = new HashMap<>();

    /** The fabric as it is: which switches are on, which cables carry traffic (up, both ends on, not drained). */
    record Live(Set<Long> switchesOn, Set<Link> cablesUsable) {
    }

    /**
     * Checks the tables {@code held} (by switch GUID; every switch on must have one) against {@code live}, with
     * {@code columnOf} the destination index of each end node; throws {@link IllegalStateException} saying what is
     * wrong.
     */
    void check(Live live, Map<Long, byte[]> held, Map<Long, Integer> columnOf) {
        Map<Long, int[]> distance = new HashMap<>();
        for (long s : live.switchesOn()) {
            distance.put(s, upDownDistances(live, s));
        }
        for (EndNode n : intact.nodes()) {
            PortRef leaf = leafOf.get(n.guid());
            if (!live.switchesOn().contains(leaf.guid())) {
                continue;
            }
            Integer column = columnOf.get(n.guid());
            if (column == null) {
                throw new IllegalStateException("end node " + n.name() + " on a live leaf has no destination index");
            }
            for (long s : live.switchesOn()) {
                follow(live, held, s, n, leaf, column, distance.get(s));
            }
        }
    }

    private void follow(Live live, Map<Long, byte[]> held, long from, EndNode n, PortRef leaf, int column, int[] dist) {
        int shortest = dist[leafIndex(leaf.guid())];
        // traffic enters the fabric at a leaf, from an end node: from there a route is a shortest up*/down* path. A
        // switch above the leaves only forwards what came up to it; started there, a route must still reach the node
        // without crossing a down or drained element or looping, but on a degraded fabric a top switch's entry may go
        // down and then up (Dmodc's costs allow it), which no route from a leaf takes
        boolean fromLeaf = level.get(from) == 1;
        long at = from;
        int hops = 0;
        boolean down = false;
        Set<Long> seen = new HashSet<>();
        StringBuilder path = new StringBuilder(name(from));
        while (true) {
            byte[] table = held.get(at);
            int port = table == null || column >= table.length ? NO_ROUTE : table[column] & 0xff;
            if (port == NO_ROUTE) {
                if (shortest != Integer.MAX_VALUE) {
                    throw new IllegalStateException("no route from " + path + " to " + n.name() + " although an "
                            + "up*/down* path of " + shortest + " hops is live");
                }
                return;
            }
            if (at == leaf.guid() && port == leaf.port()) {
                if (!fromLeaf) {
                    return;
                }
                if (shortest == Integer.MAX_VALUE) {
                    throw new IllegalStateException("route " + path + " -> " + n.name() + " exists on no live path");
                }
                if (hops != shortest) {
                    throw new IllegalStateException("route " + path + " -> " + n.name() + " takes " + hops
                            + " hops, the shortest up*/down* path " + shortest);
                }
                return;
            }
            Link cable = cableAt.get(new PortRef(at, port));
            if (cable == null) {
                throw new IllegalStateException("route " + path + " to " + n.name() + " leaves by port " + port
                        + ", which has no cable to a switch");
            }
            if (!live.cablesUsable().contains(cable)) {
                throw new IllegalStateException("route " + path + " to " + n.name() + " leaves by port " + port
                        + " over " + cable + ", which is down, drained or leads to a switch off");
            }
            long next = cable.a() == at ? cable.b() : cable.a();
            boolean up = level.get(next) > level.get(at);
            if (up && down && fromLeaf) {
                throw new IllegalStateException("route " + path + " -> " + name(next) + " to " + n.name()
                        + " goes up after going down");
            }
            down |= !up;
            if (!seen.add(at) || hops > level.size()) {
                throw new IllegalStateException("route " + path + " to " + n.name() + " loops");
            }
            hops++;
            at = next;
            path.append(" -> ").append(name(at));
        }
    }

    private final Map<Long, Integer> leafIndexes = new HashMap<>();

    private int leafIndex(long guid) {
        return leafIndexes.computeIfAbsent(guid, g -> indexOf(g));
    }

    private final List<Long> switchOrder = new ArrayList<>();

    private int indexOf(long guid) {
        if (switchOrder.isEmpty()) {
            intact.switches().forEach(s -> switchOrder.add(s.guid()));
        }
        return switchOrder.indexOf(guid);
    }

    /** Hops of the shortest path going up then down only from {@code from} to every switch ({@link #indexOf}), live. */
    private int[] upDownDistances(Live live, long from) {
        int n = intact.switches().size();
        // state: switch index * 2 + (1 once the path went down)
        int[] dist = new int[2 * n];
        Arrays.fill(dist, Integer.MAX_VALUE);
        ArrayDeque<long[]> queue = new ArrayDeque<>();
        dist[2 * indexOf(from)] = 0;
        queue.add(new long[] {from, 0});
        while (!queue.isEmpty()) {
            long[] q = queue.poll();
            long s = q[0];
            int wentDown = (int) q[1];
            int d = dist[2 * indexOf(s) + wentDown];
            for (Link l : cablesOf(s)) {
                if (!live.cablesUsable().contains(l)) {
                    continue;
                }
                long peer = l.a() == s ? l.b() : l.a();
                boolean up = level.get(peer) > level.get(s);
                if (up && wentDown == 1) {
                    continue;
                }
                int state = 2 * indexOf(peer) + (up ? 0 : 1);
                if (dist[state] == Integer.MAX_VALUE) {
                    dist[state] = d + 1;
                    queue.add(new long[] {peer, up ? 0 : 1});
                }
            }
        }
        int[] best = new int[n];
        for (int i = 0; i < n; i++) {
            best[i] = Math.min(dist[2 * i], dist[2 * i + 1]);
        }
        return best;
    }

    private String name(long guid) {
        return intact.switchByGuid(guid).map(FabricSwitch::name).orElse(Long.toHexString(guid));
    }

    /** The cables of the intact fabric between two switches, in its order. */
    List<Link> cables() {
        return intact.links().stream().filter(cableAt::containsValue).toList();
    }

    /** The switch cable at {@code port} of {@code guid}, or {@code null}. */
    Link cableAt(long guid, int port) {
        return cableAt.get(new PortRef(guid, port));
    }

    /** The end node at {@code port} of {@code guid}, or {@code null}. */
    Long nodeAt(long guid, int port) {
        return nodeAt.get(new PortRef(guid, port));
    }
}
