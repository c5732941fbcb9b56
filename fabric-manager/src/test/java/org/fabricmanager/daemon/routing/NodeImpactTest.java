package org.fabricmanager.daemon.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The end nodes a routing cuts off, attaches again and moves, as the routing service reports them with each outcome:
 * a dead leaf cuts off exactly its nodes, a failed node link exactly its node, and over random faults the figures equal
 * those read from the tables entry by entry (a node is routed when a switch other than its own leaf has a route to it;
 * a destination moved when one of the switches both versions hold changed its entry).
 */
class NodeImpactTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,2;1,1,1)");

    Fabric fabric;
    RoutingService routing;
    RoutingOutcome intact;

    @BeforeEach
    void routeTheIntactFabric() throws Exception {
        fabric = PgftGenerator.generate(SPEC);
        routing = new RoutingService("dmodc", 2);
        intact = routing.route(new RoutingJob(1, fabric, null, null)).get(60, TimeUnit.SECONDS);
        assertThat(intact.impact().join().isEmpty()).as("the first routing has nothing to compare with").isTrue();
    }

    @AfterEach
    void stop() {
        routing.close();
    }

    private RoutingOutcome reroute(long version, Fabric from, TableSet tables, String fingerprint, Fabric to)
            throws Exception {
        return routing.route(new RoutingJob(version, to, tables, fingerprint, false, from)).get(60, TimeUnit.SECONDS);
    }

    @Test
    void aDeadLeafCutsOffExactlyItsNodesByNameAndTheirReturnAttachesThem() throws Exception {
        FabricIndex index = fabric.index();
        int leaf = index.leaves()[5];
        Set<String> itsNodes = new TreeSet<>();
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            if (index.nodeLeaf(pos) == leaf) {
                itsNodes.add(fabric.nodeByGuid(index.nodeGuid(pos)).orElseThrow().name());
            }
        }
        Fabric degraded = fabric.withoutSwitches(List.of(index.switchGuid(leaf)));
        RoutingOutcome o = reroute(2, fabric, intact.tables(), intact.fingerprint(), degraded);

        assertThat(o.impact().join().cutOff()).extracting(EndNode::name).containsExactlyInAnyOrderElementsOf(itsNodes);
        assertThat(o.impact().join().attached()).isEmpty();

        RoutingOutcome back = reroute(3, degraded, o.tables(), o.fingerprint(), fabric);
        assertThat(back.impact().join().attached()).extracting(EndNode::name).containsExactlyInAnyOrderElementsOf(itsNodes);
        assertThat(back.impact().join().cutOff()).isEmpty();
    }

    @Test
    void aFailedNodeLinkCutsOffItsNodeWithItsDestinationIndex() throws Exception {
        EndNode node = fabric.nodes().get(7);
        Link link = fabric.links().stream().filter(l -> l.a() == node.guid() || l.b() == node.guid()).findFirst()
                .orElseThrow();
        RoutingOutcome o = reroute(2, fabric, intact.tables(), intact.fingerprint(), fabric.withoutLinks(List.of(link)));

        assertThat(o.impact().join().cutOff()).containsExactly(node);
        assertThat(o.impact().join().cutOff().get(0).index()).isEqualTo(node.index());
    }

    @Test
    void figuresEqualTheTablesReadEntryByEntryOverRandomFaults() throws Exception {
        long seed = 20261126L;
        Random random = new Random(seed);
        int cutOffSeen = 0;
        int movedSeen = 0;
        for (int round = 0; round < 12; round++) {
            List<Long> deadSwitches = new ArrayList<>();
            for (int i = random.nextInt(3); i >= 0; i--) {
                deadSwitches.add(fabric.switches().get(random.nextInt(fabric.switches().size())).guid());
            }
            List<Link> downLinks = new ArrayList<>();
            for (int i = random.nextInt(4); i >= 0; i--) {
                downLinks.add(fabric.links().get(random.nextInt(fabric.links().size())));
            }
            Fabric degraded = fabric.withoutSwitches(deadSwitches).withoutLinks(downLinks);
            RoutingOutcome o = reroute(2 + round, fabric, intact.tables(), intact.fingerprint(), degraded);
            String where = "seed " + seed + " round " + round + ": switches " + deadSwitches + " links " + downLinks;

            Set<Long> cutOff = new HashSet<>();
            for (EndNode n : fabric.nodes()) {
                if (routed(fabric, intact.tables().tables(), n) && !routed(degraded, o.tables().tables(), n)) {
                    cutOff.add(n.guid());
                }
            }
            assertThat(o.impact().join().cutOff()).as(where).extracting(EndNode::guid).containsExactlyInAnyOrderElementsOf(cutOff);
            assertThat(o.impact().join().movedCount()).as(where)
                    .isEqualTo(moved(intact.tables().tables(), o.tables().tables(), cutOff).cardinality());
            assertThat(o.impact().join().movedSample()).as(where).hasSize(Math.min(NodeImpact.MOVED_SAMPLE,
                    o.impact().join().movedCount()));
            cutOffSeen += cutOff.size();
            movedSeen += o.impact().join().movedCount();
        }
        assertThat(cutOffSeen).as("seed " + seed + ": the faults cut off nodes in some round").isPositive();
        assertThat(movedSeen).as("seed " + seed + ": the faults moved routes in some round").isPositive();
    }

    /** True when a switch other than the node's own leaf has a route to it. */
    private static boolean routed(Fabric f, ForwardingTables tables, EndNode n) {
        FabricIndex index = f.index();
        int pos = index.nodePosition(n.guid());
        int leaf = pos == FabricIndex.NONE ? FabricIndex.NONE : index.nodeLeaf(pos);
        if (leaf == FabricIndex.NONE || n.index() >= tables.destinationCount()) {
            return false;
        }
        for (int s = 0; s < tables.switchCount(); s++) {
            if (s != leaf && tables.port(s, n.index()) != ForwardingTables.NO_ROUTE) {
                return true;
            }
        }
        return false;
    }

    /** Destinations of nodes routed in both whose entry differs in a switch both tables hold, entry by entry. */
    private BitSet moved(ForwardingTables before, ForwardingTables after, Set<Long> cutOff) {
        BitSet moved = new BitSet();
        for (EndNode n : fabric.nodes()) {
            if (cutOff.contains(n.guid()) || !routed(fabric, before, n)) {
                continue;
            }
            int d = n.index();
            for (int s = 0; s < after.switchCount(); s++) {
                for (int b = 0; b < before.switchCount(); b++) {
                    if (before.switchGuid(b) == after.switchGuid(s) && d < after.destinationCount()
                            && before.port(b, d) != after.port(s, d)) {
                        moved.set(d);
                    }
                }
            }
        }
        return moved;
    }
}
