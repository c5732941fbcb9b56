package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.repair.ReturnOverlay;
import org.fabricmanager.routing.dmodc.repair.TableMix;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ReturnOverlay#overlay}, which walks back from the returned links' ends, against a plain reference that
 * follows the full routing's route of every entry hop by hop: the same tables and the same count taken, on the
 * returns of random fault sequences (the returned ports as a return finds them), under an LMC, and for random sets of
 * returned ports. {@link ReturnOverlay#returnedPorts}, which stops reading a row once its links are seen used,
 * against reading every entry, on chained repairs and on tables that leave some links unused.
 */
class ReturnOverlayTest {
    private static final DmodcEngine DMODC = new DmodcEngine(2);
    private static final HomeDmodcEngine HOME = new HomeDmodcEngine(2);
    private static final RoutingPool POOL = new RoutingPool(2, "test");

    @AfterAll
    static void close() {
        DMODC.close();
        HOME.close();
        POOL.close();
    }

    @Test
    void takesWhatFollowingEveryRouteTakesOnTheReturnsOfRandomSequences() {
        long taken = 0;
        int returns = 0;
        for (String spec : TestFabrics.MEDIUM_SPECS) {
            for (long seed = 1; seed <= 3; seed++) {
                Fabric whole = TestFabrics.canonical(spec);
                ForwardingTables before = DMODC.compute(whole.index()).result().tables();
                for (ReturnSequences.Step step : ReturnSequences.of(whole, 4, new Random(seed))) {
                    FabricIndex next = step.fabric().index();
                    if (step.isReturn()) {
                        long[] returned = ReturnOverlay.returnedPorts(next, before, POOL);
                        assertThat(returned).as("%s seed %d %s: returned ports", spec, seed, step.what())
                                .isEqualTo(returnedPorts(next, before));
                        if (returned != null) {
                            taken += assertSameAsReference(spec + " seed " + seed + " " + step.what(), next, returned);
                            returns++;
                        }
                    }
                    // chained as route --previous chains them: a repair can leave links unused
                    before = DMODC.repair(before, next).result().tables();
                }
            }
        }
        assertThat(returns).as("returns with returned ports").isGreaterThan(30);
        assertThat(taken).as("entries taken back over all returns").isGreaterThan(1000);
    }

    @Test
    void takesWhatFollowingEveryRouteTakesForRandomReturnedPortsUnderAnLmc() {
        long taken = 0;
        for (long seed = 1; seed <= 12; seed++) {
            String spec = TestFabrics.MEDIUM_SPECS.get((int) (seed % TestFabrics.MEDIUM_SPECS.size()));
            Fabric fabric = Degrader.degrade(TestFabrics.canonical(spec), DegradationPlan.random(0.05, 0, seed));
            if (seed % 3 == 0) {
                fabric = fabric.withLmc(1 + (int) (seed % 2));
            }
            FabricIndex next = fabric.index();
            Random random = new Random(seed);
            long[] returned = new long[next.switchCount() * 4];
            for (int s = 0; s < next.switchCount(); s++) {
                int[] peers = next.peerSwitches(s);
                for (int p = 0; p < peers.length; p++) {
                    if (peers[p] != FabricIndex.NONE && random.nextInt(20) == 0) {
                        returned[s * 4 + (p >>> 6)] |= 1L << p;
                    }
                }
            }
            taken += assertSameAsReference(spec + " seed " + seed, next, returned);
            ForwardingTables sparse = withoutSomePorts(DMODC.compute(next).result().tables(), next, random);
            assertThat(ReturnOverlay.returnedPorts(next, sparse, POOL)).as(spec + " seed " + seed + ": returned ports")
                    .isNotNull().isEqualTo(returnedPorts(next, sparse));
        }
        assertThat(taken).as("entries taken back over all fabrics").isGreaterThan(1000);
    }

    /**
     * Overlays Dmodc's routing of {@code next}, half of its entries unrouted (so that most crossing entries are taken),
     * with {@code dmodc-home}'s, and checks the result against the reference; returns the entries taken.
     */
    private static long assertSameAsReference(String what, FabricIndex next, long[] returned) {
        DmodcRouting full = HOME.routeSnapshot(next);
        ForwardingTables repaired = halfUnrouted(DMODC.compute(next).result().tables(), what.hashCode());
        ForwardingTables fullTables = full.result().tables();
        TableMix.Result got = ReturnOverlay.overlay(next, full.costs(), repaired, fullTables, returned, POOL);
        ForwardingTables.Builder expected = ForwardingTables.builder(guids(repaired), repaired.destinationCount());
        for (int s = 0; s < repaired.switchCount(); s++) {
            System.arraycopy(repaired.copyRow(s), 0, expected.row(s), 0, repaired.destinationCount());
        }
        long taken = reference(next, full.costs(), repaired, fullTables, returned, expected);
        assertThat(got.tables().sameAs(expected.build())).as(what + ": tables").isTrue();
        assertThat(got.taken()).as(what + ": taken").isEqualTo(taken);
        return taken;
    }

    /**
     * Every node's own destination at every switch other than its leaf that reaches the leaf: its route in
     * {@code full} followed hop by hop; when a hop's port is returned, the entry takes {@code full}'s port.
     */
    private static long reference(FabricIndex next, CostTable costs, ForwardingTables repaired, ForwardingTables full,
                                  long[] returned, ForwardingTables.Builder into) {
        long taken = 0;
        int[] nodes = next.leafNodeArray();
        for (int l = 0; l < next.leafCount(); l++) {
            int leafSwitch = next.leaves()[l];
            for (int i = next.leafNodeStart(l); i < next.leafNodeStart(l + 1); i++) {
                int d = next.nodeIndex(nodes[i]);
                for (int s = 0; s < next.switchCount() && d < next.destinationCount(); s++) {
                    if (s != leafSwitch && costs.cost(s, l) != CostTable.INFINITE
                            && crosses(next, full, returned, s, d, leafSwitch)
                            && full.port(s, d) != repaired.port(s, d)) {
                        into.set(s, d, full.port(s, d));
                        taken++;
                    }
                }
            }
        }
        return taken;
    }

    private static boolean crosses(FabricIndex next, ForwardingTables full, long[] returned, int s, int d,
                                   int leafSwitch) {
        for (int x = s, hops = 0; x != leafSwitch && hops <= next.switchCount(); hops++) {
            int port = full.port(x, d);
            int[] peers = next.peerSwitches(x);
            if (port == ForwardingTables.NO_ROUTE || port >= peers.length || peers[port] == FabricIndex.NONE) {
                return false;
            }
            if ((returned[x * 4 + (port >>> 6)] & (1L << port)) != 0) {
                return true;
            }
            x = peers[port];
        }
        return false;
    }

    /**
     * Per switch of {@code next}, the ports to a switch such that no entry of {@code tables} at either end uses the
     * link, read entry by entry; {@code null} when none.
     */
    private static long[] returnedPorts(FabricIndex next, ForwardingTables tables) {
        long[] returned = new long[next.switchCount() * 4];
        boolean any = false;
        for (int s = 0; s < next.switchCount(); s++) {
            int[] peers = next.peerSwitches(s);
            for (int p = 1; p < peers.length; p++) {
                int t = peers[p];
                if (t != FabricIndex.NONE && !uses(tables, next, s, p) && !uses(tables, next, t, next.peerPorts(s)[p])) {
                    returned[s * 4 + (p >>> 6)] |= 1L << p;
                    any = true;
                }
            }
        }
        return any ? returned : null;
    }

    private static boolean uses(ForwardingTables tables, FabricIndex next, int s, int port) {
        for (int row = 0; row < tables.switchCount(); row++) {
            if (tables.switchGuid(row) == next.switchGuid(s)) {
                for (int d = 0; d < tables.destinationCount(); d++) {
                    if (tables.port(row, d) == port) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** {@code tables} with every entry over about one switch port in ten of {@code next} unrouted. */
    private static ForwardingTables withoutSomePorts(ForwardingTables tables, FabricIndex next, Random random) {
        ForwardingTables.Builder b = ForwardingTables.builder(guids(tables), tables.destinationCount());
        for (int s = 0; s < tables.switchCount(); s++) {
            boolean[] dropped = new boolean[256];
            for (int p = 0; p < next.peerSwitches(s).length; p++) {
                dropped[p] = random.nextInt(10) == 0;
            }
            for (int d = 0; d < tables.destinationCount(); d++) {
                int port = tables.port(s, d);
                b.set(s, d, dropped[port] ? ForwardingTables.NO_ROUTE : port);
            }
        }
        return b.build();
    }

    /** {@code tables} with a random half of their entries {@link ForwardingTables#NO_ROUTE}. */
    private static ForwardingTables halfUnrouted(ForwardingTables tables, long seed) {
        Random random = new Random(seed);
        ForwardingTables.Builder b = ForwardingTables.builder(guids(tables), tables.destinationCount());
        for (int s = 0; s < tables.switchCount(); s++) {
            for (int d = 0; d < tables.destinationCount(); d++) {
                b.set(s, d, random.nextBoolean() ? tables.port(s, d) : ForwardingTables.NO_ROUTE);
            }
        }
        return b.build();
    }

    private static long[] guids(ForwardingTables tables) {
        long[] guids = new long[tables.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = tables.switchGuid(s);
        }
        return guids;
    }
}
