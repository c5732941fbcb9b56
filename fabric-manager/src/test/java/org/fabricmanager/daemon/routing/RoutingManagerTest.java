package org.fabricmanager.daemon.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.store.RoutingState;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.testing.HeldRefinementEngine;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoutingManagerTest {
    private static final Fabric FABRIC = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,2;1,1)"));

    @TempDir
    Path state;
    @TempDir
    Path scratch;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final MilestoneLog milestones = new MilestoneLog();
    private final List<String> outcomes = new ArrayList<>();
    private final List<RoutingService> services = new ArrayList<>();

    private RoutingManager manager(RoutingEngine engine) {
        return manager(engine, Runnable::run);
    }

    /** A manager whose writes of the stored routing run on {@code storeExecutor}. */
    private RoutingManager manager(RoutingEngine engine, java.util.concurrent.Executor storeExecutor) {
        return manager(new RoutingService(engine), storeExecutor);
    }

    private RoutingManager manager(RoutingService service, java.util.concurrent.Executor storeExecutor) {
        services.add(service);
        RoutingManager m = new RoutingManager(service, new RoutingStateStore(state), storeExecutor, loop, milestones,
                new SimpleMeterRegistry());
        m.listener(new RoutingManager.Listener() {
            @Override
            public void computed(ActiveRouting routing, double engineMs) {
                outcomes.add("computed v" + routing.version());
            }

            @Override
            public void failed(long version, Throwable cause) {
                outcomes.add("failed v" + version + ": " + cause.getMessage());
            }

            @Override
            public void unchanged() {
                outcomes.add("unchanged");
            }

            @Override
            public void prepared() {
                outcomes.add("prepared");
            }
        });
        m.load();
        return m;
    }

    @AfterEach
    void close() {
        services.forEach(RoutingService::close);
    }

    /** The version {@code routing.state} holds alone, without the changes of {@code routing.delta}. */
    private java.util.Optional<Long> whole() throws java.io.IOException {
        Path file = state.resolve(RoutingStateStore.FILE);
        if (!Files.exists(file)) {
            return java.util.Optional.empty();
        }
        Files.copy(file, scratch.resolve(RoutingStateStore.FILE), StandardCopyOption.REPLACE_EXISTING);
        return new RoutingStateStore(scratch).load().map(RoutingState::version);
    }

    @Test
    void aConvergedRoutingIsWrittenWholeOnceItStayedInForceForAQuietSecond() throws Exception {
        RoutingStateStore files = new RoutingStateStore(state);
        RoutingManager m = manager(new DmodcEngine(1));
        m.consider(FABRIC);
        loop.awaitAndRun(30);
        m.storeWhenQuiet(); // v1's tables converged
        loop.advance(RoutingManager.STORE_QUIET_MS - 1);
        assertThat(files.load()).as("the first routing: not within the quiet second (computed again the same)")
                .isEmpty();
        loop.advance(1);
        assertThat(whole()).contains(1L);
        // a burst of faults: v2, then v3 within v2's quiet second
        for (int seed = 3; seed <= 4; seed++) {
            assertThat(m.consider(Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, seed)))).isEqualTo(
                    RoutingManager.Decision.STARTED);
            loop.awaitAndRun(30);
            assertThat(files.load()).map(RoutingState::version).as("at once, as its changes").contains(seed - 1L);
            assertThat(whole()).as("not whole within the quiet second").contains(1L);
            if (seed == 3) {
                m.storeWhenQuiet();
                loop.advance(RoutingManager.STORE_QUIET_MS - 1);
            }
        }
        loop.advance(RoutingManager.STORE_QUIET_MS);
        assertThat(whole()).as("v2 never whole, v3 not before its own convergence").contains(1L);
        m.storeWhenQuiet();
        loop.advance(RoutingManager.STORE_QUIET_MS);
        assertThat(whole()).contains(3L);
    }

    @Test
    void aWholeWriteStillRunningGivesWayToANewerRouting() throws Exception {
        RoutingStateStore files = new RoutingStateStore(state);
        List<Runnable> writes = new ArrayList<>();
        RoutingManager m = manager(new DmodcEngine(1), writes::add);
        m.consider(FABRIC);
        loop.awaitAndRun(30);
        m.storeUnsaved();
        writes.remove(0).run(); // v1 whole
        m.consider(Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, 3)));
        loop.awaitAndRun(30);
        m.storeUnsaved();
        m.consider(Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, 4)));
        loop.awaitAndRun(30);
        assertThat(writes).hasSize(3); // v2's changes, v2 whole, v3's changes: handed to the store thread
        writes.remove(0).run();
        writes.remove(0).run(); // the store thread gets to v2's whole tables only now
        assertThat(whole()).as("v2's whole write abandoned, the file left as it was").contains(1L);
        writes.remove(0).run();
        assertThat(files.load()).map(RoutingState::version).as("v3, as its changes since v1").contains(3L);
        m.storeUnsaved();
        writes.remove(0).run();
        assertThat(whole()).contains(3L);
    }

    @Test
    void computesOnceAndLeavesAnUnchangedFabricAlone() throws Exception {
        RoutingManager m = manager(new DmodcEngine(1));
        assertThat(m.consider(FABRIC)).isEqualTo(RoutingManager.Decision.STARTED);
        assertThat(m.running()).isTrue();
        assertThatThrownBy(() -> m.consider(FABRIC)).as("one computation at a time")
                .isInstanceOf(IllegalStateException.class);
        loop.awaitAndRun(30);
        assertThat(outcomes).containsExactly("computed v1");
        assertThat(m.running()).isFalse();
        assertThat(m.active().version()).isEqualTo(1);
        assertThat(m.active().reused()).isFalse();
        assertThat(m.consider(FABRIC)).as("the fingerprint is taken off the control thread").isEqualTo(
                RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        assertThat(outcomes).containsExactly("computed v1", "unchanged");
        assertThat(m.computations()).isEqualTo(1);
        Fabric degraded = Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, 3));
        assertThat(m.consider(degraded)).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        assertThat(outcomes).as("v2 is the next computed version: the unchanged check used none").containsExactly(
                "computed v1", "unchanged", "computed v2");
        assertThat(m.computations()).isEqualTo(2);
    }

    @Test
    void aRestartReusesTheStoredRoutingOfTheSameFabricWithoutComputing() throws Exception {
        RoutingManager first = manager(new DmodcEngine(1));
        first.consider(FABRIC);
        loop.awaitAndRun(30);
        ActiveRouting computed = first.active();
        assertThat(loop.isScheduled(RoutingManager.STORE)).as("written once the push is done, not during it").isTrue();
        first.storeUnsaved(); // the tables converged
        assertThat(loop.isScheduled(RoutingManager.STORE)).isFalse();

        RoutingManager restarted = manager(new DmodcEngine(1));
        assertThat(restarted.stored()).isNotNull();
        // what lets discovery end as soon as the stored routing's fabric is back (DiscoveryStoredFabricTest)
        assertThat(restarted.storedSwitchCount()).isEqualTo(FABRIC.switches().size());
        assertThat(restarted.fitsStored(FABRIC)).isTrue();
        assertThat(restarted.fitsStored(Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, 5)))).isFalse();
        assertThat(restarted.consider(FABRIC)).isEqualTo(RoutingManager.Decision.REUSED);
        assertThat(restarted.storedSwitchCount()).as("reused: nothing stored waits any more").isEqualTo(-1);
        assertThat(restarted.fitsStored(FABRIC)).isFalse();
        assertThat(restarted.computations()).isZero();
        assertThat(restarted.active().version()).isEqualTo(computed.version());
        assertThat(restarted.active().reused()).isTrue();
        for (int s = 0; s < FABRIC.switches().size(); s++) {
            for (int d = 0; d < computed.tables().length(); d++) {
                assertThat(restarted.active().tables().tables().port(s, d)).isEqualTo(computed.tables().tables().port(s, d));
            }
        }
        assertThat(milestones.since(0)).extracting(Milestone::kind).contains(Milestone.Kind.ROUTING_REUSED);

        // a different fabric after a restart is computed, with the next version
        RoutingManager again = manager(new DmodcEngine(1));
        assertThat(again.consider(Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, 5)))).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        assertThat(again.active().version()).isEqualTo(computed.version() + 1);
    }

    @Test
    void aRunKilledBeforeStoringItsLastRoutingsLeavesTheirNumbersToNoOtherTables() throws Exception {
        RoutingManager first = manager(new DmodcEngine(1));
        first.consider(FABRIC);
        loop.awaitAndRun(30);
        first.storeUnsaved();
        long stored = first.active().version();

        // the killed run had installed v+1 and v+2 on the switches without storing them: they reconnect holding v+2
        RoutingManager restarted = manager(new DmodcEngine(1));
        restarted.versionHeld(stored + 2);
        restarted.versionHeld(stored);
        Fabric degraded = Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, 5));
        assertThat(restarted.consider(degraded)).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        assertThat(restarted.active().version()).as("above every version a switch holds").isEqualTo(stored + 3);
        assertThat(restarted.consider(degraded)).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        assertThat(outcomes).last().isEqualTo("unchanged");
        restarted.versionHeld(stored + 5);
        restarted.forceNext();
        restarted.consider(degraded);
        loop.awaitAndRun(30);
        assertThat(restarted.active().version()).as("a number given back stays above what switches hold")
                .isEqualTo(stored + 6);
        restarted.versionHeld(Long.MAX_VALUE);
        restarted.forceNext();
        restarted.consider(degraded);
        loop.awaitAndRun(30);
        assertThat(restarted.active().version()).as("a switch's absurd claim moves no number").isEqualTo(stored + 7);
    }

    @Test
    void aStoredRoutingWhoseFingerprintMatchesButWhoseSwitchesOrPortsDoNotIsComputedAgain() throws Exception {
        RoutingManager first = manager(new DmodcEngine(1));
        first.consider(FABRIC);
        loop.awaitAndRun(30);
        first.storeUnsaved();
        RoutingState good = new RoutingStateStore(state).load().orElseThrow();
        org.fabricmanager.routing.ForwardingTables t = good.tables();
        long[] foreign = new long[t.switchCount()];
        byte[][] rows = new byte[t.switchCount()][];
        byte[][] badPort = new byte[t.switchCount()][];
        for (int s = 0; s < t.switchCount(); s++) {
            foreign[s] = 0x7700000000000000L + s;
            rows[s] = t.copyRow(s);
            badPort[s] = t.copyRow(s);
        }
        badPort[0][0] = (byte) 200;
        long[] own = new long[t.switchCount()];
        for (int s = 0; s < own.length; s++) {
            own[s] = t.switchGuid(s);
        }
        for (org.fabricmanager.routing.ForwardingTables hostile : List.of(
                org.fabricmanager.routing.ForwardingTables.ofRows(foreign, rows, t.destinationCount()),
                org.fabricmanager.routing.ForwardingTables.ofRows(own, badPort, t.destinationCount()))) {
            new RoutingStateStore(state).save(new RoutingState(good.fingerprint(), good.version(), good.engine(), hostile));
            RoutingManager restarted = manager(new DmodcEngine(1));
            assertThat(restarted.consider(FABRIC)).as("the fingerprint matches, the tables do not fit the fabric")
                    .isEqualTo(RoutingManager.Decision.STARTED);
            loop.awaitAndRun(30);
            assertThat(restarted.computations()).isEqualTo(1);
            assertThat(restarted.active().tables().tables().port(0, 0)).isNotEqualTo(200);
            assertThat(restarted.active().tables().tables().switchGuid(0)).isEqualTo(own[0]);
        }
    }

    @Test
    void aRebalanceIsWrittenAsSoonAsItIsInstalled() throws Exception {
        RoutingStateStore files = new RoutingStateStore(state);
        RoutingManager m = manager(new DmodcEngine(1));
        m.consider(FABRIC);
        loop.awaitAndRun(30);
        m.storeUnsaved();
        m.routeInFullNext(); // as the rebalancer asks
        m.forceNext();
        assertThat(m.consider(FABRIC)).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        // a takeover or a restart right after would otherwise start from v1 and move back what the rebalance changed
        assertThat(files.load()).map(RoutingState::version).as("written with no convergence or quiet second").contains(2L);
        assertThat(whole()).as("as its changes").contains(1L);
    }

    @Test
    void aForcedRerouteComputesTheSameFabricAgain() throws Exception {
        RoutingManager m = manager(new DmodcEngine(1));
        m.consider(FABRIC);
        loop.awaitAndRun(30);
        m.forceNext();
        assertThat(m.consider(FABRIC)).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        assertThat(m.active().version()).isEqualTo(2);
    }

    @Test
    void aFailedComputationKeepsTheRoutingInForce() throws Exception {
        RoutingEngine refusing = new RoutingEngine() {
            int calls;

            @Override
            public String name() {
                return "dmodc";
            }

            @Override
            public RoutingResult route(FabricIndex fabric) {
                if (calls++ > 0) {
                    throw new RoutingException("no route today");
                }
                return new DmodcEngine(1).route(fabric);
            }
        };
        RoutingManager m = manager(refusing);
        m.consider(FABRIC);
        loop.awaitAndRun(30);
        m.consider(Degrader.degrade(FABRIC, DegradationPlan.random(0.1, 0, 7)));
        loop.awaitAndRun(30);
        assertThat(outcomes).containsExactly("computed v1", "failed v2: no route today");
        assertThat(m.active().version()).isEqualTo(1);
        assertThat(m.running()).isFalse();
        assertThat(milestones.since(0)).extracting(Milestone::kind).contains(Milestone.Kind.ROUTING_FAILED);
    }

    /**
     * A refinement that the fabric overtakes is given up ({@link RoutingManager#abandonRefinement}): it ends as
     * unchanged, the repair stays in force and refinable, and the next refinement of the same repair installs the
     * refined tables. {@code dmodc-home} is held at the start of its refinement until abandoned, so that the
     * abandonment reaches the engine's own loops (a small fabric's refinement would otherwise be over first).
     */
    @Test
    void anAbandonedRefinementLeavesTheRepairInForceAndRefinableAndTheNextOneRefinesIt() throws Exception {
        HeldRefinementEngine engine = new HeldRefinementEngine();
        RoutingManager m = manager(new RoutingService(engine, true), Runnable::run);
        Fabric intact = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
        m.refinesRepairs(true);
        Fabric degraded = Degrader.degrade(intact, DegradationPlan.random(0.1, 0, 7));
        m.consider(degraded);
        loop.awaitAndRun(60);
        Fabric fault = Degrader.degrade(degraded, DegradationPlan.random(0.1, 0, 8));
        m.consider(fault);
        loop.awaitAndRun(60);
        ActiveRouting repair = m.active();
        assertThat(repair.repaired()).isTrue();
        assertThat(m.refinable()).as("a repair of dmodc-home's routing, which a refinement changes").isTrue();

        m.refineNext();
        m.consider(fault);
        assertThat(engine.held().await(60, TimeUnit.SECONDS)).as("the refinement started").isTrue();
        m.abandonRefinement();
        loop.awaitAndRun(60);
        assertThat(outcomes).containsExactly("computed v1", "computed v2", "unchanged");
        assertThat(engine.abandoned()).as("the engine's refinement ended by the abandonment").isTrue();
        assertThat(m.active()).isSameAs(repair);
        assertThat(m.refinable()).as("the repair still waits for its refinement").isTrue();

        engine.release();
        m.refineNext();
        m.consider(fault);
        loop.awaitAndRun(60);
        assertThat(outcomes).last().isEqualTo("computed v3");
        assertThat(m.refinable()).isFalse();
        try (HomeDmodcEngine fresh = new HomeDmodcEngine(1)) {
            TableRepairer r = fresh.repairer().orElseThrow();
            RoutedSnapshot base = fresh.routeSnapshot(degraded.index());
            RoutedSnapshot expected = r.refine(base.result().tables(), r.repair(base, fault.index())).orElseThrow();
            assertThat(m.active().tables().tables().sameAs(expected.result().tables())).isTrue();
        }
    }

    /** Dmodc, counting the computations it was asked for (from scratch or re-routed). */
    private static final class CountingEngine implements RoutingEngine {
        final DmodcEngine dmodc = new DmodcEngine(1);
        int computations;

        @Override
        public String name() {
            return dmodc.name();
        }

        @Override
        public RoutingResult route(FabricIndex fabric) {
            computations++;
            return dmodc.route(fabric);
        }

        @Override
        public org.fabricmanager.routing.RoutedSnapshot routeSnapshot(FabricIndex fabric) {
            computations++;
            return dmodc.routeSnapshot(fabric);
        }

        @Override
        public org.fabricmanager.routing.RoutedSnapshot reroute(FabricIndex next,
                                                                  org.fabricmanager.routing.RoutedSnapshot previous) {
            computations++;
            return dmodc.reroute(next, previous);
        }

        @Override
        public boolean reroutesIncrementally() {
            return dmodc.reroutesIncrementally();
        }

        @Override
        public void close() {
            dmodc.close();
        }
    }

    /**
     * Routes a small three-level PGFT with {@code m}, rehearses its faults, and checks that every variant was re-routed
     * and that neither the routing in force nor the computations told changed; returns the fabric.
     */
    private Fabric assertRehearsalChangesNothing(RoutingManager m) throws Exception {
        Fabric threeLevels = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,2;1,1,1)"));
        m.consider(threeLevels);
        loop.awaitAndRun(30);
        ActiveRouting v1 = m.active();
        assertThat(m.rehearse().get(60, java.util.concurrent.TimeUnit.SECONDS))
                .as("a leaf's uplink, an upper link, a top switch; each once a round")
                .isEqualTo(3 * RoutingManager.REHEARSAL_ROUNDS);
        assertThat(m.active()).isSameAs(v1);
        assertThat(outcomes).containsExactly("computed v1");
        return threeLevels;
    }

    /** dmodc-home re-routes from scratch, but repairs: with {@code routing.onFault: repair} its repairs are rehearsed. */
    @Test
    void aRepairingServiceRehearsesRepairsOfAnEngineThatReroutesFromScratch() throws Exception {
        assertRehearsalChangesNothing(manager(new RoutingService(new HomeDmodcEngine(1), true), Runnable::run));
    }

    @Test
    void aRehearsalReroutesFaultsOfTheFabricInForceAndChangesNothing() throws Exception {
        CountingEngine engine = new CountingEngine();
        RoutingManager m = manager(engine);
        Fabric threeLevels = assertRehearsalChangesNothing(m);
        assertThat(engine.computations).isEqualTo(1 + 3 * RoutingManager.REHEARSAL_ROUNDS);

        // the next fault still continues from the routing in force, and is exactly a routing from scratch
        Fabric degraded = Degrader.degrade(threeLevels, DegradationPlan.random(0.1, 0, 5));
        m.consider(degraded);
        loop.awaitAndRun(30);
        assertThat(m.active().version()).isEqualTo(2);
        assertThat(milestones.since(0)).filteredOn(x -> x.kind() == Milestone.Kind.ROUTING_COMPUTED).last()
                .extracting(Milestone::message).asString().contains("engine re-routing");
        try (DmodcEngine fresh = new DmodcEngine(1)) {
            RoutingResult expected = fresh.route(degraded.index());
            for (int s = 0; s < degraded.index().switchCount(); s++) {
                assertThat(m.active().tables().tables().copyRow(s)).isEqualTo(expected.tables().copyRow(s));
            }
        }
    }

    @Test
    void rehearsalFaultsAreOneOfEachKindTheFabricHas() {
        Fabric threeLevels = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,2;1,1,1)"));
        List<Fabric> faults = RehearsalFaults.of(threeLevels);
        assertThat(faults).hasSize(3);
        assertThat(faults.get(0).links()).hasSize(threeLevels.links().size() - 1);
        assertThat(faults.get(1).links()).hasSize(threeLevels.links().size() - 1);
        assertThat(faults.get(2).switches()).hasSize(threeLevels.switches().size() - 1);
        long gone = threeLevels.switches().stream().mapToLong(org.fabricmanager.topology.FabricSwitch::guid)
                .filter(g -> !faults.get(2).isSwitch(g)).findFirst().orElseThrow();
        assertThat(gone >>> 32).as("a top switch (level 3 in the canonical numbering)").isEqualTo(
                PgftGenerator.switchGuid(3, 0) >>> 32);
        // two levels: no link between upper switches
        assertThat(RehearsalFaults.of(FABRIC)).hasSize(2);
    }

    private static final long SPINE = PgftGenerator.switchGuid(2, 1);

    @Test
    void aRoutingPreparedForTheVerySnapshotConsideredIsInstalledWithoutComputingAgain() throws Exception {
        CountingEngine engine = new CountingEngine();
        RoutingManager m = manager(engine);
        m.consider(FABRIC);
        loop.awaitAndRun(30);
        Fabric without = FABRIC.withoutSwitches(List.of(SPINE));

        assertThat(m.prepare(without)).isTrue();
        assertThat(m.running()).as("a prepared computation does not make the daemon ROUTING").isFalse();
        assertThat(m.busy()).isTrue();
        assertThat(m.prepare(without)).as("one computation at a time").isFalse();
        assertThatThrownBy(() -> m.consider(without)).isInstanceOf(IllegalStateException.class);
        loop.awaitAndRun(30);
        assertThat(outcomes).containsExactly("computed v1", "prepared");
        assertThat(m.active().version()).as("nothing installed before the confirmation").isEqualTo(1);
        assertThat(engine.computations).isEqualTo(2);

        assertThat(m.consider(without)).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        assertThat(outcomes).containsExactly("computed v1", "prepared", "computed v2");
        assertThat(engine.computations).as("installed as prepared: no second computation").isEqualTo(2);
        assertThat(m.active().version()).isEqualTo(2);
        assertThat(m.active().fabric()).isSameAs(without);
        try (DmodcEngine fresh = new DmodcEngine(1)) {
            RoutingResult expected = fresh.route(without.index());
            for (int s = 0; s < without.index().switchCount(); s++) {
                assertThat(m.active().tables().tables().copyRow(s)).isEqualTo(expected.tables().copyRow(s));
            }
        }
    }

    @Test
    void aPreparedRoutingIsNeverInstalledForAnotherSnapshotOrOnceDiscarded() throws Exception {
        CountingEngine engine = new CountingEngine();
        RoutingManager m = manager(engine);
        m.consider(FABRIC);
        loop.awaitAndRun(30);

        // an equal fabric, but not the snapshot it was prepared from: something else may have changed, so computed
        m.prepare(FABRIC.withoutSwitches(List.of(SPINE)));
        loop.awaitAndRun(30);
        m.consider(FABRIC.withoutSwitches(List.of(SPINE)));
        loop.awaitAndRun(30);
        assertThat(engine.computations).isEqualTo(3);
        assertThat(m.active().version()).as("v2 was the preparation's: its blocks may be staged on switches").isEqualTo(3);

        // refuted: discarded, the same snapshot is computed (and continued from the routing in force, not the prepared)
        Fabric back = FABRIC;
        m.prepare(FABRIC.withoutSwitches(List.of(PgftGenerator.switchGuid(2, 0))));
        loop.awaitAndRun(30);
        m.discardPrepared();
        assertThat(m.hasPrepared()).isFalse();
        m.consider(back);
        loop.awaitAndRun(30);
        assertThat(engine.computations).isEqualTo(5);
        assertThat(m.active().version()).as("the discarded preparation's v4 is never reused").isEqualTo(5);
        assertThat(milestones.since(0)).filteredOn(x -> x.kind() == Milestone.Kind.ROUTING_COMPUTED).last()
                .extracting(Milestone::message).asString().contains("engine re-routing");
        assertThat(m.active().fabric()).isSameAs(back);
    }
}
