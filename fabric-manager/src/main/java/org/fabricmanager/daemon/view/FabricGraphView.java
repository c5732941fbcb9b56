package org.fabricmanager.daemon.view;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricGraph;
import org.fabricmanager.daemon.api.SwitchState;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.faults.FaultManager;
import org.fabricmanager.daemon.push.LftPusher;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Guids;

/**
 * Builds {@code GET /api/v1/fabric/graph} for the status page: every switch with its level, group and
 * {@link SwitchState}, the groups with their worst state, and the cables that are down or quarantined.
 * Called on the control thread only. The layout is computed once per routing version; switches that left
 * the routed fabric (a dead spine) keep the place they had in an earlier one, up to as many again as the
 * fabric or the first routed fabric has, so that a failure shows where it happened instead of making the switch
 * vanish.
 */
public final class FabricGraphView {
    private final SwitchRegistry registry;
    private final RoutingManager routing;
    private final LftPusher pusher;
    private final FaultManager faults;
    private final Drains drains;
    private final Supplier<DaemonState> state;
    private FabricLayout layout = FabricLayout.empty();
    private long layoutVersion = -1;

    public FabricGraphView(SwitchRegistry registry, RoutingManager routing, LftPusher pusher, FaultManager faults,
                           Drains drains, Supplier<DaemonState> state) {
        this.drains = drains;
        this.registry = registry;
        this.routing = routing;
        this.pusher = pusher;
        this.faults = faults;
        this.state = state;
    }

    /** The graph as of now. */
    public FabricGraph graph() {
        ActiveRouting a = routing.active();
        if (a != null && a.version() != layoutVersion) {
            FabricLayout next = FabricLayout.of(a.fabric());
            if (layoutVersion < 0 && faults.baseline() != null && faults.baseline() != a.fabric()) {
                // the first graph since start: switches that died before it keep their place in the first fabric
                layout = FabricLayout.of(faults.baseline());
            }
            // bounded by the fabrics' sizes: a fabric whose GUIDs keep changing cannot grow the layout for ever
            int baselineSize = faults.baseline() == null ? 0 : faults.baseline().switches().size();
            layout = next.keeping(layout, Math.max(next.size(), baselineSize));
            layoutVersion = a.version();
        }
        Map<Long, SwitchState> states = new LinkedHashMap<>();
        Map<Long, String> names = new LinkedHashMap<>();
        for (Map.Entry<Long, FabricLayout.Placement> e : layout.placements().entrySet()) {
            states.put(e.getKey(), stateOf(e.getKey()));
            names.put(e.getKey(), e.getValue().name());
        }
        for (ManagedSwitch ms : registry.all()) {
            if (!states.containsKey(ms.guid())) {
                states.put(ms.guid(), stateOf(ms.guid()));
            }
            names.put(ms.guid(), ms.name());
        }
        for (Long guid : faults.failedSwitches().keySet()) {
            states.putIfAbsent(guid, SwitchState.DEAD);
            names.putIfAbsent(guid, faults.failedName(guid));
        }
        return assemble(a == null ? 0 : a.version(), a == null ? routing.engineName() : a.engine(), state.get(),
                layout, states, names, this::cableState);
    }

    /**
     * The graph from a layout, the state of each switch and the state of each cable (pure: the unit tests
     * call it). Switches the layout does not place get level 0, group 0.
     */
    static FabricGraph assemble(long version, String engine, DaemonState daemonState, FabricLayout layout,
                                Map<Long, SwitchState> states, Map<Long, String> names,
                                Function<FabricLayout.Cable, String> cableState) {
        List<FabricGraph.Node> nodes = new ArrayList<>(states.size());
        Map<SwitchState, Integer> counts = zeroCounts();
        Map<Long, GroupTally> groups = new TreeMap<>();
        for (Map.Entry<Long, SwitchState> e : states.entrySet()) {
            long guid = e.getKey();
            FabricLayout.Placement p = layout.placement(guid);
            int level = p == null ? 0 : p.level();
            int group = p == null ? 0 : p.group();
            SwitchState s = e.getValue();
            nodes.add(new FabricGraph.Node(Guids.format(guid), names.getOrDefault(guid, ""), level, group, s));
            counts.merge(s, 1, Integer::sum);
            groups.computeIfAbsent(((long) level << 32) | group, k -> new GroupTally(level, group,
                    p == null ? "not placed" : p.label())).add(s);
        }
        nodes.sort(Comparator.comparingInt(FabricGraph.Node::level).thenComparingInt(FabricGraph.Node::group)
                .thenComparing(FabricGraph.Node::guid));
        List<FabricGraph.Group> groupList = new ArrayList<>(groups.size());
        for (GroupTally t : groups.values()) {
            groupList.add(t.group());
        }
        Map<String, Integer> linkCounts = new LinkedHashMap<>();
        linkCounts.put("up", 0);
        linkCounts.put("failed", 0);
        linkCounts.put("quarantined", 0);
        linkCounts.put("drained", 0);
        List<FabricGraph.Cable> down = new ArrayList<>();
        for (FabricLayout.Cable c : layout.cables()) {
            String s = cableState.apply(c);
            linkCounts.merge(s, 1, Integer::sum);
            if (!s.equals("up")) {
                down.add(new FabricGraph.Cable(Guids.format(c.a()), names.getOrDefault(c.a(), ""), c.aPort(),
                        Guids.format(c.b()), names.getOrDefault(c.b(), ""), c.bPort(), s));
            }
        }
        // quarantined cables first: they need an operator's eye, a dead switch's cables explain themselves
        down.sort(Comparator.comparing((FabricGraph.Cable c) -> !c.state().equals("quarantined"))
                .thenComparing(FabricGraph.Cable::a).thenComparingInt(FabricGraph.Cable::aPort));
        int total = down.size();
        List<FabricGraph.Cable> listed = total > FabricGraph.MAX_DOWN_LINKS
                ? List.copyOf(down.subList(0, FabricGraph.MAX_DOWN_LINKS)) : List.copyOf(down);
        return new FabricGraph(version, engine, daemonState, nodes.size(), counts, layout.topLevel(), nodes, groupList,
                linkCounts, listed, total);
    }

    private static Map<SwitchState, Integer> zeroCounts() {
        Map<SwitchState, Integer> m = new EnumMap<>(SwitchState.class);
        for (SwitchState s : SwitchState.values()) {
            m.put(s, 0);
        }
        return m;
    }

    /** The switches of one (level, group) being counted. */
    private static final class GroupTally {
        private final int level;
        private final int group;
        private final String label;
        private final Map<SwitchState, Integer> counts = zeroCounts();
        private SwitchState worst = SwitchState.IN_SYNC;
        private int switches;

        GroupTally(int level, int group, String label) {
            this.level = level;
            this.group = group;
            this.label = label;
        }

        void add(SwitchState s) {
            switches++;
            counts.merge(s, 1, Integer::sum);
            worst = worst.worse(s);
        }

        FabricGraph.Group group() {
            return new FabricGraph.Group(level, group, label, switches, worst, counts);
        }
    }

    private SwitchState stateOf(long guid) {
        ManagedSwitch ms = registry.get(guid);
        boolean ringDead = faults.failedSwitches().containsKey(guid);
        boolean pendingAdmission = ms != null && !ms.admitted();
        boolean admitted = ms != null && ms.admitted();
        SwitchState s = SwitchState.of(ringDead, pendingAdmission, admitted, admitted && pusher.inSync(guid),
                admitted && pusher.isFailing(guid));
        return drains.isSwitchDrained(guid) ? SwitchState.drained(s) : s;
    }

    /**
     * {@code quarantined} when either end is, {@code drained} when an operator drained it or a switch at its end,
     * {@code failed} when either end is gone or reports the port down.
     */
    private String cableState(FabricLayout.Cable c) {
        if (faults.flaps().isQuarantined(c.a(), c.aPort()) || faults.flaps().isQuarantined(c.b(), c.bPort())) {
            return "quarantined";
        }
        if (drains.isSwitchDrained(c.a()) || drains.isSwitchDrained(c.b()) || drains.isLinkDrained(c.a(), c.aPort())
                || drains.isLinkDrained(c.b(), c.bPort())) {
            return "drained";
        }
        return portUp(c.a(), c.aPort()) && portUp(c.b(), c.bPort()) ? "up" : "failed";
    }

    private boolean portUp(long guid, int port) {
        ManagedSwitch ms = registry.get(guid);
        if (ms == null || !ms.admitted() || port > ms.ports().portCount()) {
            return false;
        }
        PortRecord r = ms.ports().port(port);
        return r != null && r.isUp();
    }

}
