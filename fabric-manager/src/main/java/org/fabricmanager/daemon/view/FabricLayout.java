package org.fabricmanager.daemon.view;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.Ranking;

/**
 * Where the status page places each switch of a routed fabric: its level (1 = leaves, by hop distance from
 * them; 0 when no leaf reaches it) and its group within the level. Below the top level of a fabric of three
 * levels or more, a group is a pod: switches joined by cables that do not go through the top level. At the
 * top level, and in fabrics of one or two levels where every pod would be one switch, a group is a block of
 * consecutive switches in GUID order (as many blocks as pods, at most {@value #MAX_BLOCKS}), so that the
 * page draws a few dozen cells per level instead of hundreds of switches. At the top level of a fabric with
 * pods, the blocks follow its planes ({@link #byPlane}). Once placed, a switch keeps its place from routing to
 * routing ({@link #keeping}), so that a failure does not move the others. Also keeps the switch-to-switch
 * cables, so that cables of switches that are gone can still be shown as failed.
 */
final class FabricLayout {
    /** Most blocks a level is cut into when it has no pods. */
    static final int MAX_BLOCKS = 16;

    /** A switch's place: level, group within the level, whether the group is a pod, and its name. */
    record Placement(int level, int group, boolean pod, String name) {
        String label() {
            return pod ? "pod " + (group + 1) : "L" + level + " block " + (group + 1);
        }
    }

    /** A switch-to-switch cable. */
    record Cable(long a, int aPort, long b, int bPort) {
    }

    private final Map<Long, Placement> placements;
    private final List<Cable> cables;
    private final int topLevel;

    private FabricLayout(Map<Long, Placement> placements, List<Cable> cables, int topLevel) {
        this.placements = placements;
        this.cables = cables;
        this.topLevel = topLevel;
    }

    static FabricLayout empty() {
        return new FabricLayout(Map.of(), List.of(), 0);
    }

    /** The layout of {@code fabric}. */
    static FabricLayout of(Fabric fabric) {
        FabricIndex index = fabric.index();
        int n = index.switchCount();
        int[] rank = Ranking.fromLeaves(index);
        int[] level = new int[n];
        int top = 0;
        for (int s = 0; s < n; s++) {
            level[s] = rank[s] == Ranking.UNREACHED ? 0 : rank[s] + 1;
            top = Math.max(top, level[s]);
        }
        int[] group = new int[n];
        boolean[] pod = new boolean[n];
        int pods = top >= 3 ? pods(index, level, top, group, pod) : 0;
        int blocks = Math.max(1, Math.min(MAX_BLOCKS, pods));
        int[] order = pods > 0 ? byPlane(index, level, top, group) : null;
        for (int l = 0; l <= top; l++) {
            if (l > 0 && l < top && pods > 0) {
                continue; // pods already numbered
            }
            int count = 0;
            for (int s = 0; s < n; s++) {
                if (level[s] == l) {
                    count++;
                }
            }
            int perBlock = Math.max(1, (count + (pods > 0 ? blocks : MAX_BLOCKS) - 1) / (pods > 0 ? blocks : MAX_BLOCKS));
            int i = 0;
            for (int k = 0; k < n; k++) { // switch ids are in GUID order; the top level of pods goes by plane
                int s = order != null && l == top ? order[k] : k;
                if (level[s] == l) {
                    group[s] = i++ / perBlock;
                }
            }
        }
        Map<Long, Placement> placements = new HashMap<>(n * 2);
        List<FabricSwitch> switches = fabric.switches();
        Map<Long, String> names = new HashMap<>(n * 2);
        for (FabricSwitch s : switches) {
            names.put(s.guid(), s.name());
        }
        for (int s = 0; s < n; s++) {
            long guid = index.switchGuid(s);
            placements.put(guid, new Placement(level[s], group[s], pod[s], names.getOrDefault(guid, "")));
        }
        List<Cable> cables = new ArrayList<>();
        for (Link l : fabric.links()) {
            if (fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())) {
                cables.add(new Cable(l.a(), l.aPort(), l.b(), l.bPort()));
            }
        }
        return new FabricLayout(Collections.unmodifiableMap(placements), Collections.unmodifiableList(cables), top);
    }

    /**
     * The switch ids with the top level ordered by plane: a top switch's plane is the lowest position, within
     * its pod, of the switches below it that it is cabled to (the k-th switch of every pod's level below the top
     * reaches the same top switches in a PGFT). Blocks cut in this order hold the top switches of one plane, so
     * that the cables of a pod's k-th switch go to one block instead of across the whole level. Uses the pod
     * numbers in {@code group}.
     */
    private static int[] byPlane(FabricIndex index, int[] level, int top, int[] group) {
        int n = index.switchCount();
        int[] position = new int[n];
        Map<Integer, Integer> nextInPod = new HashMap<>();
        for (int s = 0; s < n; s++) {
            if (level[s] == top - 1) {
                position[s] = nextInPod.merge(group[s], 1, Integer::sum) - 1;
            }
        }
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        long[] key = new long[n];
        for (int s = 0; s < n; s++) {
            int plane = Integer.MAX_VALUE;
            if (level[s] == top) {
                for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                    int t = neighbours[g];
                    if (level[t] == top - 1) {
                        plane = Math.min(plane, position[t]);
                    }
                }
            }
            key[s] = ((long) (level[s] == top ? plane : 0) << 32) | s;
        }
        Arrays.sort(key);
        int[] order = new int[n];
        for (int k = 0; k < n; k++) {
            order[k] = (int) key[k];
        }
        return order;
    }

    /**
     * Numbers the pods below the top level (components of the cables between switches of levels 1 to
     * top-1) in the order of their first switch; returns how many, 0 when every pod would be one switch.
     */
    private static int pods(FabricIndex index, int[] level, int top, int[] group, boolean[] pod) {
        int n = index.switchCount();
        int[] parent = new int[n];
        for (int s = 0; s < n; s++) {
            parent[s] = s;
        }
        int[] groupStart = index.groupStartArray();
        int[] neighbours = index.groupNeighbourArray();
        for (int s = 0; s < n; s++) {
            if (level[s] == 0 || level[s] == top) {
                continue;
            }
            for (int g = groupStart[s]; g < groupStart[s + 1]; g++) {
                int t = neighbours[g];
                if (level[t] != 0 && level[t] != top) {
                    parent[find(parent, s)] = find(parent, t);
                }
            }
        }
        int[] number = new int[n];
        Arrays.fill(number, -1);
        int pods = 0;
        int below = 0;
        for (int s = 0; s < n; s++) {
            if (level[s] == 0 || level[s] == top) {
                continue;
            }
            below++;
            int root = find(parent, s);
            if (number[root] < 0) {
                number[root] = pods++;
            }
            group[s] = number[root];
            pod[s] = true;
        }
        if (pods == below) {
            Arrays.fill(pod, false);
            return 0;
        }
        return pods;
    }

    private static int find(int[] parent, int s) {
        while (parent[s] != s) {
            parent[s] = parent[parent[s]];
            s = parent[s];
        }
        return s;
    }

    /**
     * This layout, keeping from {@code previous} the place of every switch whose level did not change, and of
     * the switches it no longer has (at most {@code limit}: the place of a switch that died stays known), and the cables none of whose ends this layout cables elsewhere.
     */
    FabricLayout keeping(FabricLayout previous, int limit) {
        Map<Long, Placement> merged = new HashMap<>(placements);
        int kept = 0;
        for (Map.Entry<Long, Placement> e : previous.placements.entrySet()) {
            Placement now = merged.get(e.getKey());
            if (now == null ? kept++ < limit : now.level() == e.getValue().level()) {
                // a switch keeps its place while its level holds: a failure elsewhere must not move the blocks
                merged.put(e.getKey(), e.getValue());
            }
        }
        Set<End> cabled = new HashSet<>();
        for (Cable c : cables) {
            cabled.add(end(c.a(), c.aPort()));
            cabled.add(end(c.b(), c.bPort()));
        }
        List<Cable> all = new ArrayList<>(cables);
        for (Cable c : previous.cables) {
            if (merged.containsKey(c.a()) && merged.containsKey(c.b()) && !cabled.contains(end(c.a(), c.aPort()))
                    && !cabled.contains(end(c.b(), c.bPort()))) {
                all.add(c);
            }
        }
        return new FabricLayout(Collections.unmodifiableMap(merged), Collections.unmodifiableList(all),
                Math.max(topLevel, previous.topLevel));
    }

    /** One end of a cable. */
    private record End(long guid, int port) {
    }

    private static End end(long guid, int port) {
        return new End(guid, port);
    }

    /** The place of a switch, or {@code null} when the layout does not know it. */
    Placement placement(long guid) {
        return placements.get(guid);
    }

    Map<Long, Placement> placements() {
        return placements;
    }

    List<Cable> cables() {
        return cables;
    }

    int topLevel() {
        return topLevel;
    }

    int size() {
        return placements.size();
    }
}
