package org.fabricmanager.daemon.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.fabricmanager.daemon.chaos.ChaosSimulation.Plan;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded schedules of faults and drains against the whole daemon in one thread on virtual time
 * ({@link ChaosSimulation}), each judged by {@link ChaosOracle} at every quiet point and at the end; and the oracle
 * shown to catch a planted defect. A failure prints the seed and the schedule, which the same seed replays.
 */
class ChaosSimulationTest {
    static final PgftSpec TWO_LEVELS = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");
    static final PgftSpec THREE_LEVELS = PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)");

    @TempDir
    Path state;

    @Test
    void seededSchedulesOnTwoLevelsKeepEveryRouteValid() throws IOException {
        campaign(TWO_LEVELS, 1, 150, 20);
    }

    /**
     * Seed 41: a switch drained, a leaf's agent hung until its session closed, two of a leaf's cables quarantined for
     * their flaps, then a spine powered off. The repair, from the base, gave the entries the drain had moved Dmodc's
     * closed form again over the fewer spines: 10 entries moved where the minimum is 8, among them s1-1's entry for
     * n10, whose route s1-1 -> s2-1 -> s1-2 crossed nothing lost. Such an entry now keeps its port in force.
     */
    @Test
    void aSecondLossKeepsWhatTheFirstMovedWhereItsRouteHolds() throws IOException {
        Replay sim = replay(new Plan(TWO_LEVELS, 41, 20), "sdrain:6 hang:0 flap:13/76 pass:34@8 flap:12/519 "
                + "pass:3585@2651 check off:7 check");
        assertThat(sim.tally()).as("the spine's loss judged, at its minimum").containsEntry("losses judged", 1)
                .containsEntry("loss entries moved", 8).containsEntry("loss entries led into it", 8);
    }

    /**
     * Found by seed 30513, shrunk: a cable down, then at once a spine powered off, three more cables down and the agent
     * of the last leaf hung until its session closed. With that leaf's nodes gone the tables were narrower than the
     * base's, and the refinement took the full routing's port for every entry where the two differed, moving 5 routes
     * that crossed nothing lost (27 entries moved where the loss forces 22). It takes only the repair's entries now.
     */
    @Test
    void aRefinementAfterTheLastLeafIsLostMovesOnlyTheRepairsEntries() throws IOException {
        Replay sim = replay(new Plan(TWO_LEVELS, 30513, 20), "down:8 pass:1766 off:5 down:12 down:14 down:11 hang:3 "
                + "pass:1247 check");
        assertThat(sim.steps()).as("the last leaf's session closed").anyMatch(s -> s.endsWith(
                " the daemon closes the silent session of s1-3"));
        assertThat(sim.tally()).as("the loss judged, at its maximum").containsEntry("losses judged", 1)
                .containsEntry("loss entries moved", 22).containsEntry("loss entries forced", 22);
    }

    /**
     * Found by seed 21349: three of a level-2 switch's four leaves cut off, and a top's cable to another pod's level-2
     * switch, then a rebalance, then the last leaf cut off. That switch then ranks above the tops (Dmodc's rank is the
     * hop distance from the leaves), so the top gains a way up to it and down again through another top to the pod it
     * lost: the repair routes those 16 unrouted entries, as a full routing would. The judge took them for churn (72
     * moved, 56 crossing the loss); a route gained over live elements is a change the loss forces.
     */
    @Test
    void aLevelTwoSwitchThatLosesItsLastLeafGivesATopTheRoutesItHadLost() throws IOException {
        Replay sim = replay(new Plan(THREE_LEVELS, 21349, 8), "down:48 down:60 down:96 down:52 rebalance check down:56 "
                + "check");
        assertThat(sim.tally()).as("the last leaf's loss judged: 72 moved, 56 crossing it, 16 gained")
                .containsEntry("losses judged", 1).containsEntry("loss entries moved", 72)
                .containsEntry("loss entries forced", 56).containsEntry("loss entries gained", 16);
    }

    /**
     * Found by seed 72 (a schedule of 40 events), shrunk: two leaves' agents hung, every other switch powered off but
     * a spine whose agent restarted, so that every session ended, then a leaf powered on again. The daemon discovered
     * again, routed what came back, and said CONVERGED while its discovery waited on: a drain taken then waited for
     * the end of discovery to be routed around, with the daemon still CONVERGED on tables that sent traffic over the
     * drained cable. It says DISCOVERING until discovery ends.
     */
    @Test
    void aDrainWhileTheDaemonDiscoversAgainIsNotCalledConverged() throws IOException {
        Replay sim = replay(new Plan(TWO_LEVELS, 72, 40), "hang:1 hang:2 check off:4 off:3 off:6 pass:1262 off:0 off:7 "
                + "pass:453 agent:5 on:0 check drain:1");
        assertThat(sim.steps()).as("the drain taken as the daemon discovered again")
                .anyMatch(s -> s.endsWith(" drain s1-0/6 - s2-1/1"));
        assertThat(sim.tally()).containsEntry("drains applied", 1);
    }

    @Test
    void seededSchedulesOnThreeLevelsKeepEveryRouteValid() throws IOException {
        campaign(THREE_LEVELS, 1_000, 50, 25);
    }

    @Test
    void aSwitchThatDropsABlockAndAcknowledgesItIsCaught() throws IOException {
        for (long seed = 1; seed <= 5; seed++) {
            long s = seed;
            assertThatThrownBy(() -> simulate(new Plan(TWO_LEVELS, s, 5), PlantedDefects.SWITCH_SKIPS_A_BLOCK))
                    .as("seed %d", seed).isInstanceOf(ChaosViolation.class)
                    .hasMessageContaining("differs from what the daemon says it holds")
                    .hasMessageContaining("seed " + seed)
                    .hasMessageContaining("planted: ");
        }
    }

    @Test
    void convergedSaidOneBlockEarlyIsCaught() {
        ChaosCampaign trials = new ChaosCampaign(state, PlantedDefects.CONVERGED_ONE_BLOCK_EARLY);
        int caught = 0;
        for (long seed = 1; seed <= 5; seed++) {
            Plan plan = new Plan(TWO_LEVELS, seed, 5);
            ChaosViolation found = trials.trial(plan, generated(plan)).violation();
            if (found != null) {
                assertThat(found.kind()).as(found.getMessage()).isEqualTo(ChaosViolation.Kind.TABLES_DIFFER);
                assertThat(found.getMessage()).contains("the daemon said CONVERGED", "planted: ");
                caught++;
            }
        }
        // an ack lost or late on the victim's first batch turns it into a timeout, which the daemon treats as it must
        assertThat(caught).as("seeds whose victim acknowledged early").isGreaterThanOrEqualTo(3);
    }

    /**
     * The schedule that found it, shrunk: a cable down, then a drain while the repair's batch to s1-1 was on its way,
     * its ack late; the next version changed s1-1's row back to what it last confirmed, and the daemon said CONVERGED
     * at once, counting s1-1 in sync by the row it confirmed while it forwarded by the batch that had landed.
     */
    @Test
    void aSwitchWithABatchOnItsWayIsNotInSyncBeforeItsAck() throws IOException {
        Replay sim = replay(new Plan(TWO_LEVELS, 58, 3), "down:12 pass:608 drain:5 drain:0 pass:6");
        assertThat(sim.steps()).as("the drain taken while the repair was pushed").anyMatch(s -> s.endsWith(
                " drain s1-0/5 - s2-0/1"));
        assertThat(sim.quietPoints()).isGreaterThanOrEqualTo(3);
    }

    /**
     * The schedule that found it: two cables down and the daemon crashed before it stored the repair. Its successor
     * routed from scratch, swapping two entries of s2-8's row, and counted s2-8 in sync because protocol 2's table
     * hash took the two rows for one (TableHashTest has them).
     */
    @Test
    void aRestartedDaemonPushesARowThatDiffersOnlyBySwappedEntries() throws IOException {
        Replay sim = replay(new Plan(THREE_LEVELS, 136, 4), "down:23 down:63 restart check");
        assertThat(sim.steps()).as("the restart happened").anyMatch(s -> s.endsWith(" daemon restart: crashed, "
                + "started again on its state directory"));
        assertThat(sim.quietPoints()).isGreaterThanOrEqualTo(3);
    }

    /**
     * The schedule that found it: a level-2 switch powered off as the daemon crashed, its intact routing written. The
     * next run routed the fabric without the switch from scratch, 292 entries moved where the loss forces 220; it
     * repairs the stored tables now.
     */
    @Test
    void aLossAsTheDaemonCrashesIsRepairedFromTheStoredRouting() throws IOException {
        Replay sim = replay(new Plan(THREE_LEVELS, 1_007, 3), "pass:6000 off:23 restart check");
        assertThat(sim.tally()).as("the loss judged across the restart").containsEntry("losses judged", 1)
                .containsEntry("loss entries moved", 220).containsEntry("loss entries forced", 220);
    }

    /** A drains file that loses a drain at each write: the restart that reads it back is caught. */
    @Test
    void aStateFileThatLosesADrainIsCaughtAtARestart() {
        ChaosCampaign trials = new ChaosCampaign(state, PlantedDefects.STATE_LOSES_A_DRAIN);
        for (long seed = 1; seed <= 60; seed++) {
            Plan plan = new Plan(TWO_LEVELS, seed, 30);
            ChaosViolation found = trials.trial(plan, generated(plan)).violation();
            if (found != null) {
                assertThat(found.kind()).as(found.getMessage()).isEqualTo(ChaosViolation.Kind.STATE_LOST);
                assertThat(found.getMessage()).contains("restarted from its state directory")
                        .containsAnyOf("daemon restart", "failover: the active manager crashed");
                return;
            }
        }
        throw new AssertionError("no schedule among 60 drained a cable and restarted the daemon");
    }

    /** A repair of a pure loss that moves one entry whose route crossed nothing lost, every route still valid. */
    @Test
    void aRepairThatMovesOneEntryTooManyIsCaught() {
        ChaosCampaign trials = new ChaosCampaign(state, PlantedDefects.REPAIR_MOVES_ONE_TOO_MANY);
        for (long seed = 1; seed <= 40; seed++) {
            Plan plan = new Plan(TWO_LEVELS, seed, 20);
            ChaosViolation found = trials.trial(plan, generated(plan)).violation();
            if (found != null) {
                assertThat(found.kind()).as(found.getMessage()).isEqualTo(ChaosViolation.Kind.CHURN_BEYOND_LOSS);
                assertThat(found.getMessage()).contains("crossed nothing lost", "after a pure loss", "seed " + seed);
                System.out.println("chaos planted defect caught: " + found.getMessage().lines().limit(2).toList());
                return;
            }
        }
        throw new AssertionError("no schedule among 40 lost an element with the daemon quiet before and after");
    }

    @Test
    void theSameSeedReplaysTheSameSchedule() throws IOException {
        int drains = 0;
        for (long seed = 4_240; seed < 4_250; seed++) {
            Plan plan = new Plan(seed % 2 == 0 ? TWO_LEVELS : THREE_LEVELS, seed, 30);
            List<String> first;
            try (ChaosSimulation sim = new ChaosSimulation(plan, Files.createDirectories(state.resolve(seed + "a")))) {
                sim.run();
                first = sim.steps();
            }
            try (ChaosSimulation sim = new ChaosSimulation(plan, Files.createDirectories(state.resolve(seed + "b")))) {
                sim.run();
                assertThat(sim.steps()).as("seed %d: every step, its virtual time and the daemon's answer", seed)
                        .isEqualTo(first);
            }
            assertThat(first).as("a schedule of faults").hasSizeGreaterThan(30);
            drains += (int) first.stream().filter(s -> s.contains(" drain ")).count();
        }
        assertThat(drains).as("drains, which the daemon judges on a thread of its own").isPositive();
    }

    @Test
    void routesThatGoDownAndUpAgainAreCaught() {
        int caught = 0;
        for (long seed = 1; seed <= 40 && caught == 0; seed++) {
            try {
                simulate(new Plan(TWO_LEVELS, seed, 20), PlantedDefects.ROUTES_NOT_UP_DOWN);
            } catch (ChaosViolation e) {
                assertThat(e.getMessage()).as("seed %d", seed).containsAnyOf("goes up after going down",
                        "exists on no live path");
                caught++;
                System.out.println("chaos planted defect caught: " + e.getMessage().lines().limit(2).toList());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(caught).as("a schedule among 40 that degrades the fabric enough").isPositive();
    }

    /**
     * A schedule that routes down and up again under plain shortest paths, shrunk by delta debugging: the shrunk
     * schedule is a fraction of the original and, replayed from its text, fails the same way.
     */
    @Test
    void aFailingScheduleShrinksToAFewStepsThatStillFail() {
        ChaosCampaign trials = new ChaosCampaign(state, PlantedDefects.ROUTES_NOT_UP_DOWN);
        for (long seed = 1; seed <= 40; seed++) {
            Plan plan = new Plan(TWO_LEVELS, seed, 40);
            ChaosSchedule schedule = generated(plan);
            ChaosViolation found = trials.trial(plan, schedule).violation();
            if (found == null) {
                continue;
            }
            ChaosShrinker.Shrunk shrunk = trials.shrink(plan, schedule, found, 200);
            System.out.println(ChaosCampaign.report(plan, schedule, shrunk).lines().limit(3).toList());
            assertThat(shrunk.schedule().steps()).as("seed %d: shrunk from %s", seed, schedule.text())
                    .hasSizeLessThanOrEqualTo(schedule.steps().size() / 4);
            ChaosSchedule replayed = ChaosSchedule.parse(shrunk.schedule().text());
            assertThat(replayed).isEqualTo(shrunk.schedule());
            ChaosViolation again = trials.trial(plan, replayed).violation();
            assertThat(again).as("the shrunk schedule replayed from its text").isNotNull();
            assertThat(again.kind()).isEqualTo(found.kind());
            assertThat(ChaosCampaign.replayCommand(plan, replayed)).contains("--seed " + seed, "--schedule '"
                    + replayed.text() + "'", "--pgft 'PGFT(2;4,4;1,4;1,1)'");
            return;
        }
        throw new AssertionError("no schedule among 40 degraded the fabric enough for plain shortest paths");
    }

    @Test
    void aScheduleReadsBackFromItsText() {
        Plan plan = new Plan(THREE_LEVELS, 7, 60);
        ChaosSchedule schedule = generated(plan);
        assertThat(schedule.events()).isGreaterThanOrEqualTo(60);
        assertThat(ChaosSchedule.parse(schedule.text())).isEqualTo(schedule);
        assertThat(schedule.text()).contains("down:", "pass:", "check");
        assertThatThrownBy(() -> ChaosSchedule.parse("down:3 sideways:2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sideways:2");
    }

    private ChaosSchedule generated(Plan plan) {
        try (ChaosSimulation sim = new ChaosSimulation(plan, Files.createDirectories(state.resolve("gen-" + plan.seed())))) {
            return sim.generated();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a replayed schedule did: its steps, what happened by kind, its quiet points. */
    private record Replay(List<String> steps, Map<String, Integer> tally, int quietPoints) {
    }

    /** Runs {@code schedule} under {@code plan} in a state directory of its own. */
    private Replay replay(Plan plan, String schedule) throws IOException {
        try (ChaosSimulation sim = new ChaosSimulation(plan, Files.createDirectories(state.resolve("replay-"
                + plan.seed())))) {
            sim.run(ChaosSchedule.parse(schedule));
            return new Replay(sim.steps(), sim.tally(), sim.quietPoints());
        }
    }

    private void campaign(PgftSpec spec, long firstSeed, int schedules, int steps) throws IOException {
        // -Dchaos.seed=N replays one schedule
        long only = Long.getLong("chaos.seed", -1);
        long from = only >= 0 ? only : firstSeed;
        int count = only >= 0 ? 1 : schedules;
        long begin = System.nanoTime();
        Map<String, Integer> tally = new TreeMap<>();
        for (long seed = from; seed < from + count; seed++) {
            simulate(new Plan(spec, seed, steps)).forEach((k, v) -> tally.merge(k, v, Integer::sum));
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        System.out.printf("chaos %s: %d schedules of %d steps in %.1f s (%.1f schedules/s); %s%n", spec, count, steps,
                seconds, count / seconds, tally);
        if (only < 0) {
            assertThat(tally).as("what the campaign exercised").containsKeys("steps while a routing was under way",
                    "flaps", "switches powered off", "several at once", "drains applied", "drains refused",
                    "daemon restarts", "agent restarts", "agents hung", "switch drains refused", "what-ifs answered",
                    "reloads", "failovers", "rebalances applied", "actions judged unchanged");
            assertThat(tally.get("acks timed out")).as("acks lost or late").isPositive();
            assertThat(tally.get("quiet points")).as("a quiet point after the first routing, in the schedule and at its end")
                    .isGreaterThanOrEqualTo(3 * count);
        }
    }

    /** Runs one plan in a fresh state directory; what happened in it. */
    private Map<String, Integer> simulate(Plan plan) throws IOException {
        return simulate(plan, Sabotage.NONE);
    }

    /** Runs one plan with {@code sabotage} planted in a fresh state directory; what happened in it. */
    private Map<String, Integer> simulate(Plan plan, Sabotage sabotage) throws IOException {
        Path dir = Files.createDirectories(state.resolve("seed-" + plan.seed()));
        try (ChaosSimulation sim = new ChaosSimulation(plan, dir, sabotage)) {
            sim.run();
            return sim.tally();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
