package org.fabricmanager.daemon.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first fault after a restart, or after a standby's takeover (a manager on a copy of the state directory, as
 * the replicated one is), with the default engine and {@code routing.onFault: repair}: the stored routing reused
 * at the start is the base of the repair, so the fault changes exactly the entries it changes without a restart,
 * and its repair is refined to the same tables. Before, the first repair from the stored tables became the base
 * itself: it was never refined, and a routing prepared for a ring verdict the second opinion refuted (the campaign
 * of issue 68: a top switch) made the fabric without that switch the base, so the real fault's repair searched for
 * returns and took a full routing whole, beyond the minimum. After the restart here the base is made by the first
 * computation (the prepared one), after the takeover by the rehearsal that follows a start's convergence.
 */
class RestartedRepairTest {
    private static final Fabric FABRIC = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
    private static final long LEVEL2 = PgftGenerator.switchGuid(2, 0);
    private static final long TOP = PgftGenerator.switchGuid(3, 14);
    private static final long OTHER_LEVEL2 = PgftGenerator.switchGuid(2, 9);

    @TempDir
    Path state;
    @TempDir
    Path standby;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final MilestoneLog milestones = new MilestoneLog();
    private final List<RoutingService> services = new ArrayList<>();

    /** Writes of the stored routing run while true; false models a run that stops before it writes the next one. */
    private boolean writing = true;

    /** A manager of the default engine, repairing and refining, on state directory {@code dir} (loaded). */
    private RoutingManager manager(Path dir) {
        writing = true;
        RoutingService service = new RoutingService(new HomeDmodcEngine(1), true);
        service.refineRepairs(true);
        services.add(service);
        RoutingManager m = new RoutingManager(service, new RoutingStateStore(dir), write -> {
            if (writing) {
                write.run();
            }
        }, loop, milestones,
                new SimpleMeterRegistry());
        m.listener(new RoutingManager.Listener() {
            @Override
            public void computed(ActiveRouting routing, double engineMs) {
            }

            @Override
            public void failed(long version, Throwable cause) {
                throw new AssertionError("routing v" + version + " failed", cause);
            }

            @Override
            public void unchanged() {
            }
        });
        m.load();
        return m;
    }

    @AfterEach
    void close() {
        services.forEach(RoutingService::close);
    }

    /** The level-2 switch powered off under {@code m}, routing the intact fabric: its repair, then its refinement. */
    private List<ActiveRouting> loseTheLevel2Switch(RoutingManager m) throws InterruptedException {
        Fabric degraded = FABRIC.withoutSwitches(List.of(LEVEL2));
        assertThat(m.consider(degraded)).isEqualTo(RoutingManager.Decision.STARTED);
        loop.awaitAndRun(30);
        ActiveRouting repair = m.active();
        m.refineNext(); // refinable or not: an unrefined repair stays in force
        m.consider(degraded);
        loop.awaitAndRun(30);
        return List.of(repair, m.active());
    }

    /** The message of routing {@code version}'s ROUTING_COMPUTED milestone. */
    private String computed(long version) {
        return milestones.since(0).stream().filter(x -> x.kind() == Milestone.Kind.ROUTING_COMPUTED)
                .map(Milestone::message).filter(s -> s.startsWith("routing v" + version + " ")).findFirst()
                .orElseThrow();
    }

    @Test
    void theFirstFaultAfterARestartOrATakeoverChangesExactlyTheEntriesItChangesWithoutOne() throws Exception {
        RoutingManager first = manager(state);
        first.consider(FABRIC);
        loop.awaitAndRun(30);
        first.storeUnsaved(); // the intact fabric's routing, as the restarted managers find it
        writing = false; // the run stops before it writes another (a refinement is written as soon as installed)
        List<ActiveRouting> without = loseTheLevel2Switch(first);
        ActiveRouting repair = without.get(0);
        ActiveRouting refined = without.get(1);
        assertThat(repair.repaired()).isTrue();
        assertThat(repair.churn().changedEntries()).as("without a restart: the minimum").isPositive()
                .isEqualTo(repair.churn().minimumEntries());
        assertThat(refined.version()).as("refined").isEqualTo(repair.version() + 1);
        assertThat(refined.tables().tables().sameAs(repair.tables().tables())).isFalse();
        try (Stream<Path> files = Files.list(state)) {
            for (Path f : files.toList()) {
                copy(f, standby.resolve(f.getFileName()));
            }
        }

        for (Path dir : List.of(state, standby)) {
            String start = dir == state ? "after a restart" : "after a takeover";
            RoutingManager m = manager(dir);
            assertThat(m.consider(FABRIC)).as(start).isEqualTo(RoutingManager.Decision.REUSED);
            if (dir == standby) {
                // the base made by the rehearsal after the start's convergence; after the restart, by the first repair
                assertThat(m.rehearse().get(30, TimeUnit.SECONDS)).isPositive();
            }
            // the ring declares a top switch dead and its second opinion refutes it: prepared, never installed
            assertThat(m.prepare(FABRIC.withoutSwitches(List.of(TOP)))).isTrue();
            loop.awaitAndRun(30);
            m.discardPrepared();

            List<ActiveRouting> after = loseTheLevel2Switch(m);
            ActiveRouting r = after.get(0);
            assertThat(r.churn()).as("%s: the repair's entries", start).isEqualTo(repair.churn());
            assertSameEntries(start + ": the repair", r.tables().tables(), repair.tables().tables());
            assertThat(computed(r.version())).as("%s: no search for returns on a loss", start)
                    .doesNotContain("returns").doesNotContain("balance");
            assertThat(after.get(1).version()).as("%s: refined", start).isEqualTo(r.version() + 1);
            assertSameEntries(start + ": the refinement", after.get(1).tables().tables(), refined.tables().tables());
        }
    }

    /** Restarted with a fault out: the stored routing is that fault's refined repair, and the next fault repairs it. */
    @Test
    void aFaultAfterARestartWithAnotherOutChangesTheEntriesItChangesWithoutOne() throws Exception {
        RoutingManager first = manager(state);
        first.consider(FABRIC);
        loop.awaitAndRun(30);
        loseTheLevel2Switch(first);
        first.storeUnsaved(); // the refined repair
        writing = false; // the run stops before it writes the next repair
        Fabric both = FABRIC.withoutSwitches(List.of(LEVEL2, TOP));
        first.consider(both);
        loop.awaitAndRun(30);
        ActiveRouting repair = first.active();
        assertThat(first.refinable()).as("without a restart: refinable").isTrue();

        RoutingManager m = manager(state);
        assertThat(m.consider(FABRIC.withoutSwitches(List.of(LEVEL2)))).isEqualTo(RoutingManager.Decision.REUSED);
        m.consider(both);
        loop.awaitAndRun(30);
        assertThat(m.active().churn()).isEqualTo(repair.churn());
        assertSameEntries("the second fault after a restart", m.active().tables().tables(), repair.tables().tables());
        assertThat(m.refinable()).as("after a restart: refinable").isTrue();
    }

    /**
     * The fault comes as the last run stops, before its repair is written (the chaos campaign of issue 68: {@code
     * off:23 restart check}): the next run, on its own state directory or a standby's copy, finds the stored
     * routing of the intact fabric and a fabric without the switch. It repairs the stored tables, which the switches
     * were left holding, and changes exactly the entries the repair changes without a restart; routed from scratch,
     * it changed 292 where the repair changes 220.
     */
    @Test
    void aFaultAsTheLastRunStoppedIsRepairedFromTheStoredRouting() throws Exception {
        RoutingManager first = manager(state);
        first.consider(FABRIC);
        loop.awaitAndRun(30);
        first.storeUnsaved(); // the intact fabric's routing: the switch is powered off before another is written
        writing = false;
        ActiveRouting repair = loseTheLevel2Switch(first).get(0);
        try (Stream<Path> files = Files.list(state)) {
            for (Path f : files.toList()) {
                copy(f, standby.resolve(f.getFileName()));
            }
        }

        Fabric degraded = FABRIC.withoutSwitches(List.of(LEVEL2));
        for (Path dir : List.of(state, standby)) {
            String start = dir == state ? "after a restart" : "after a takeover";
            RoutingManager m = manager(dir);
            assertThat(m.consider(degraded)).as(start).isEqualTo(RoutingManager.Decision.STARTED);
            loop.awaitAndRun(30);
            ActiveRouting r = m.active();
            assertThat(r.repaired()).as("%s: repaired", start).isTrue();
            assertThat(r.churn()).as("%s: the entries changed against the stored tables", start)
                    .isEqualTo(repair.churn());
            assertThat(r.churn().changedEntries()).isEqualTo(r.churn().minimumEntries());
            assertSameEntries(start + ": the repair", r.tables().tables(), repair.tables().tables());
        }
    }

    /**
     * Two faults repaired in a row, and the run stops within the quiet second before the routing in force is written
     * whole (the {@code --ha} campaign, seed 91, step 133: two undrains, then the leader frozen; the next leader
     * repaired both from the routing before them in one pass, 1 entry off the switches' tables). Each routing's
     * changes were written as it was installed: the next run, on its state directory or a standby's copy, reuses the
     * routing in force, and the next fault changes exactly the entries it changes without a restart.
     */
    @Test
    void twoRepairsInARowThenARestartBeforeTheyAreWrittenWhole() throws Exception {
        RoutingManager first = manager(state);
        first.consider(FABRIC);
        loop.awaitAndRun(30);
        first.storeUnsaved(); // the intact fabric's routing, whole; the repairs below are not (no quiet second)
        long whole = first.active().version();
        Fabric two = FABRIC.withoutSwitches(List.of(LEVEL2, TOP));
        for (Fabric f : List.of(FABRIC.withoutSwitches(List.of(LEVEL2)), two)) {
            assertThat(first.consider(f)).isEqualTo(RoutingManager.Decision.STARTED);
            loop.awaitAndRun(30);
            assertThat(first.active().repaired()).isTrue();
        }
        ActiveRouting inForce = first.active();
        assertThat(inForce.version()).isEqualTo(whole + 2);
        try (Stream<Path> files = Files.list(state)) {
            for (Path f : files.toList()) {
                copy(f, standby.resolve(f.getFileName()));
            }
        }
        Path scratch = Files.createDirectories(standby.resolveSibling(standby.getFileName() + "-whole-only"));
        copy(state.resolve(RoutingStateStore.FILE), scratch.resolve(RoutingStateStore.FILE));
        assertThat(new RoutingStateStore(scratch).load().orElseThrow().version()).as("written whole").isEqualTo(whole);
        writing = false; // the run that goes on, for the figures: it writes nothing more
        Fabric three = two.withoutSwitches(List.of(OTHER_LEVEL2));
        first.consider(three);
        loop.awaitAndRun(30);
        ActiveRouting expected = first.active();
        assertThat(expected.churn().changedEntries()).isPositive().isEqualTo(expected.churn().minimumEntries());

        for (Path dir : List.of(state, standby)) {
            String start = dir == state ? "after a restart" : "after a takeover";
            RoutingManager m = manager(dir);
            assertThat(m.consider(two)).as(start).isEqualTo(RoutingManager.Decision.REUSED);
            assertThat(m.active().version()).as(start).isEqualTo(inForce.version());
            assertSameEntries(start + ": the routing in force", m.active().tables().tables(), inForce.tables().tables());
            m.consider(three);
            loop.awaitAndRun(30);
            assertThat(m.active().churn()).as("%s: the third fault's entries", start).isEqualTo(expected.churn());
            assertSameEntries(start + ": the third fault", m.active().tables().tables(), expected.tables().tables());
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        if (Files.isDirectory(from)) {
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                for (Path f : files.toList()) {
                    copy(f, to.resolve(f.getFileName()));
                }
            }
        } else {
            Files.copy(from, to);
        }
    }

    /** Entry by entry: the entries that differ are named. */
    private static void assertSameEntries(String what, ForwardingTables actual, ForwardingTables expected) {
        assertThat(actual.switchCount()).as(what).isEqualTo(expected.switchCount());
        List<String> differ = new ArrayList<>();
        for (int s = 0; s < expected.switchCount(); s++) {
            assertThat(actual.switchGuid(s)).as(what).isEqualTo(expected.switchGuid(s));
            for (int d = 0; d < expected.destinationCount(); d++) {
                if (actual.port(s, d) != expected.port(s, d)) {
                    differ.add(String.format("0x%x[%d] %d not %d", expected.switchGuid(s), d, actual.port(s, d),
                            expected.port(s, d)));
                }
            }
        }
        assertThat(differ).as("%s: entries that differ", what).isEmpty();
    }
}
