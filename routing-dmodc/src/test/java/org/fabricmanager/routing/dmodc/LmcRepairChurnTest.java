package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A repair under an LMC moves, for every LID, only the entries the loss forces, judged from the tables alone as the
 * chaos campaign's loss judge does: an entry of a switch still on may change only when its route, followed hop by hop
 * through the tables in force before the loss, crossed something lost (a cable gone, or a switch gone). Random
 * degraded three-level PGFTs with LMC 1 and 2, every fault kind, both repairers the daemon uses.
 */
class LmcRepairChurnTest {
    private static final DmodcEngine DMODC = new DmodcEngine(2);
    private static final HomeDmodcEngine HOME = new HomeDmodcEngine(2);

    @AfterAll
    static void close() {
        DMODC.close();
        HOME.close();
    }

    @Test
    void repairsMoveOnlyTheEntriesWhoseRoutesCrossedTheLossForEveryLid() {
        long moved = 0;
        long movedBeyondBaseLids = 0;
        int cases = 0;
        for (int seed = 1; seed <= 8; seed++) {
            Random random = new Random(seed * 104729L);
            String spec = "PGFT(3;" + (2 + random.nextInt(3)) + "," + (2 + random.nextInt(4)) + "," + (2 + random.nextInt(4))
                    + ";1," + (2 + random.nextInt(4)) + "," + (1 + random.nextInt(3)) + ";1,1," + (1 + random.nextInt(2)) + ")";
            int lmc = 1 + seed % 2;
            double fraction = seed % 3 == 0 ? 0 : random.nextInt(6) / 100.0;
            Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                    DegradationPlan.random(fraction, 0, seed)).withLmc(lmc);
            for (RoutingEngine engine : List.<RoutingEngine>of(DMODC, HOME)) {
                TableRepairer repairer = engine.repairer().orElseThrow();
                RoutedSnapshot full = engine.routeSnapshot(fabric.index());
                for (RepairFaults.Fault fault : RepairFaults.everyKind(fabric, 3, new Random(seed))) {
                    FabricIndex next = fault.degraded().index();
                    if (next.leafCount() == 0) {
                        continue;
                    }
                    String what = spec + " minus " + fraction + ", LMC " + lmc + ", " + engine.name() + ", " + fault.name();
                    ForwardingTables after = repairer.repair(full, next).result().tables();
                    long[] counts = assertOnlyForcedMoved(what, fabric.index(), full.result().tables(), next, after);
                    moved += counts[0];
                    movedBeyondBaseLids += counts[1];
                    cases++;
                }
            }
        }
        // the scenario happened: repairs moved entries, those of the LIDs beyond the base LIDs among them
        assertThat(cases).isGreaterThan(60);
        assertThat(moved).isPositive();
        assertThat(movedBeyondBaseLids).isPositive();
    }

    /**
     * Every entry of {@code after} that differs from {@code before} for a switch on at both: its route through
     * {@code before} crossed a cable or switch that {@code next} lacks. Returns the entries moved, and those of LIDs
     * other than base LIDs.
     */
    private static long[] assertOnlyForcedMoved(String what, FabricIndex prev, ForwardingTables before, FabricIndex next,
                                                ForwardingTables after) {
        long moved = 0;
        long beyondBase = 0;
        for (int s = 0; s < next.switchCount(); s++) {
            int b = prev.switchId(next.switchGuid(s));
            for (int d = 0; d < next.destinationCount(); d++) {
                int old = before.port(b, d);
                int now = after.port(s, d);
                if (old == now) {
                    continue;
                }
                assertThat(crossesLoss(prev, before, next, b, d))
                        .as("%s: switch %d destination %d moved from port %d to %d, its route crossed nothing lost",
                                what, s, d, old, now).isTrue();
                moved++;
                int pos = next.nodeByDestination(d);
                if (pos != FabricIndex.NONE && next.pathBits(pos) != 0) {
                    beyondBase++;
                }
            }
        }
        return new long[] {moved, beyondBase};
    }

    /** Whether the route from old switch {@code s} to {@code d} through {@code before} crosses a cable or switch gone. */
    private static boolean crossesLoss(FabricIndex prev, ForwardingTables before, FabricIndex next, int s, int d) {
        for (int hop = 0; hop <= prev.switchCount(); hop++) {
            int t = next.switchId(prev.switchGuid(s));
            if (t == FabricIndex.NONE) {
                return true; // the switch went
            }
            int port = before.port(s, d);
            if (port == ForwardingTables.NO_ROUTE) {
                return false;
            }
            int peer = prev.peerSwitches(s)[port];
            if (peer == FabricIndex.NONE) {
                // to an end port: lost when its cable went
                int node = prev.peerNodes(s)[port];
                return node != FabricIndex.NONE && next.peerNodes(t)[port] == FabricIndex.NONE;
            }
            int nextPeer = next.switchId(prev.switchGuid(peer));
            if (nextPeer == FabricIndex.NONE || next.peerSwitches(t)[port] != nextPeer
                    || next.peerPorts(t)[port] != prev.peerPorts(s)[port]) {
                return true; // the cable or the switch it led to went
            }
            s = peer;
        }
        return false; // a loop crosses nothing lost
    }
}
