package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.routing.NodeImpact;
import org.fabricmanager.daemon.routing.RoutingJob;
import org.fabricmanager.daemon.routing.RoutingOutcome;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A leaf's death with its 32 nodes is one {@code NODE_UNREACHABLE} event naming the 32 nodes (not 32 events), its
 * return one {@code NODE_REACHABLE}, and the fault reaction that routed around it names the nodes it cut off and
 * counts those whose routes moved.
 */
class NodeImpactEventsTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;32,4;1,4;1,1)");

    static Fabric intact;
    static Fabric degraded;
    static List<String> leafNodes = new ArrayList<>();
    static NodeImpact leafDied;
    static NodeImpact leafBack;

    private final MilestoneLog milestones = new MilestoneLog();
    private final List<Milestone> recorded = new ArrayList<>();
    private final DaemonMetrics metrics = new DaemonMetrics(new SimpleMeterRegistry());

    @BeforeAll
    static void routeALeafsDeathAndReturn() throws Exception {
        intact = PgftGenerator.generate(SPEC);
        FabricIndex index = intact.index();
        int leaf = index.leaves()[2];
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            if (index.nodeLeaf(pos) == leaf) {
                leafNodes.add(intact.nodeByGuid(index.nodeGuid(pos)).orElseThrow().name());
            }
        }
        degraded = intact.withoutSwitches(List.of(index.switchGuid(leaf)));
        try (RoutingService routing = new RoutingService("dmodc", 1)) {
            RoutingOutcome first = routing.route(new RoutingJob(1, intact, null, null)).get(60, TimeUnit.SECONDS);
            RoutingOutcome died = routing.route(new RoutingJob(2, degraded, first.tables(), first.fingerprint(), false, intact))
                    .get(60, TimeUnit.SECONDS);
            RoutingOutcome back = routing.route(new RoutingJob(3, intact, died.tables(), died.fingerprint(), false, degraded))
                    .get(60, TimeUnit.SECONDS);
            leafDied = died.impact().join();
            leafBack = back.impact().join();
        }
        assertThat(leafNodes).hasSize(32);
    }

    @AfterEach
    void close() {
        metrics.close();
    }

    private void listen() {
        milestones.addListener(recorded::add);
    }

    private List<Milestone> of(Milestone.Kind kind) {
        return recorded.stream().filter(m -> m.kind() == kind).toList();
    }

    @Test
    void aLeafsDeathIsOneEventNamingItsNodesAndItsReturnAnother() {
        listen();
        UnreachableNodes unreachable = new UnreachableNodes(milestones);

        unreachable.installed(leafDied);
        assertThat(of(Milestone.Kind.NODE_UNREACHABLE)).hasSize(1);
        Milestone lost = of(Milestone.Kind.NODE_UNREACHABLE).get(0);
        assertThat(lost.details()).containsEntry("count", 32);
        assertThat(names(lost.details())).containsExactlyInAnyOrderElementsOf(leafNodes);
        assertThat(lost.message()).startsWith("32 end nodes no route reaches them: ").contains("and 24 more");
        assertThat(unreachable.count()).isEqualTo(32);

        unreachable.installed(leafDied); // the same nodes again: nothing new to announce
        assertThat(of(Milestone.Kind.NODE_UNREACHABLE)).hasSize(1);

        unreachable.installed(leafBack);
        assertThat(of(Milestone.Kind.NODE_REACHABLE)).hasSize(1);
        assertThat(names(of(Milestone.Kind.NODE_REACHABLE).get(0).details())).containsExactlyInAnyOrderElementsOf(leafNodes);
        assertThat(unreachable.count()).isZero();
        assertThat(recorded).hasSize(2);
    }

    @Test
    void theFaultReactionNamesTheNodesItCutOffAndCountsThoseMoved() {
        listen();
        ReactionTracker reactions = new ReactionTracker(milestones, metrics);
        reactions.event("switch leaf-2 lost");
        reactions.impact(reactions.impactPending(), leafDied);
        reactions.converged(null, 2);

        Milestone r = of(Milestone.Kind.REACTION).get(0);
        assertThat(r.details()).containsEntry("nodesCutOff", 32).containsEntry("nodesAttached", 0);
        assertThat(names(r.details(), "cutOffNodes")).containsExactlyInAnyOrderElementsOf(leafNodes);
        // in two levels a leaf's death moves no other node's routes: Dmodc changes only the dead leaf's entries
        assertThat(r.details()).containsEntry("nodesMoved", 0);
        assertThat(r.message()).contains("32 end nodes cut off (").contains(", 0 end nodes' routes moved");
    }

    @Test
    void aNodeCutOffAndBackWithinOneReactionIsNeither() {
        listen();
        ReactionTracker reactions = new ReactionTracker(milestones, metrics);
        reactions.event("switch leaf-2 lost");
        reactions.impact(reactions.impactPending(), leafDied);
        reactions.event("switch leaf-2 back");
        reactions.impact(reactions.impactPending(), leafBack);
        reactions.converged(null, 3);

        Milestone r = of(Milestone.Kind.REACTION).get(0);
        assertThat(r.details()).containsEntry("nodesCutOff", 0).containsEntry("nodesAttached", 0);
        assertThat(r.message()).doesNotContain("cut off");
    }

    @Test
    void aReactionThatConvergesBeforeItsImpactIsTakenWaitsForItAndTheNextFaultIsAReactionOfItsOwn() {
        listen();
        ReactionTracker reactions = new ReactionTracker(milestones, metrics);
        reactions.event("switch leaf-2 lost");
        Object token = reactions.impactPending();
        reactions.converged(null, 2);
        assertThat(of(Milestone.Kind.REACTION)).as("not before the nodes it touched are known").isEmpty();
        assertThat(reactions.isOpen()).as("closed at its convergence all the same").isFalse();
        assertThat(reactions.completed()).isEqualTo(1);

        reactions.event("port-status: s1-1 port 9 down"); // the next fault opens a reaction of its own
        reactions.impact(token, leafDied);
        assertThat(of(Milestone.Kind.REACTION)).singleElement()
                .satisfies(r -> assertThat(r.details()).containsEntry("nodesCutOff", 32).containsEntry("tableVersion", 2L))
                .satisfies(r -> assertThat(r.message()).contains("switch leaf-2 lost").contains("32 end nodes cut off"));
        assertThat(reactions.isOpen()).isTrue();
        assertThat(reactions.pendingEvents()).isEqualTo(1);
    }

    private static List<Object> names(Map<String, Object> details) {
        return names(details, "nodes");
    }

    @SuppressWarnings("unchecked")
    private static List<Object> names(Map<String, Object> details, String key) {
        return ((List<Map<String, Object>>) details.get(key)).stream().map(m -> m.get("name")).toList();
    }
}
