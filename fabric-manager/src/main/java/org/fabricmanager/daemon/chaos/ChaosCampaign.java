package org.fabricmanager.daemon.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.fabricmanager.daemon.chaos.ChaosSimulation.Plan;
import org.fabricmanager.topology.PgftSpec;

/**
 * Runs chaos schedules, each in a fresh state directory under one base (removed after it): a campaign of successive
 * seeds until a number of steps or a time is spent, or one schedule replayed. A violation is shrunk ({@link
 * ChaosShrinker}) and reported with its seed, the shrunk schedule and a command that replays it.
 */
public final class ChaosCampaign {
    /**
     * A campaign: schedules of {@code length} events on {@code spec} from seed {@code firstSeed} on (one more per
     * schedule) until {@code steps} events ran or {@code millis} passed, a violation shrunk in at most {@code
     * shrinkTrials} runs.
     */
    public record Settings(PgftSpec spec, long firstSeed, int length, long steps, long millis, int shrinkTrials) {
    }

    /**
     * What a campaign did: schedules run, steps and events (steps other than time passing and checks) taken, quiet
     * points checked, what happened by kind, the time; and the report of the violation that ended it, or {@code null}.
     */
    public record Outcome(int schedules, long steps, long events, double seconds, Map<String, Integer> tally,
                          String violation) {
        public boolean clean() {
            return violation == null;
        }
    }

    private final Path base;
    private final Sabotage sabotage;
    private int runs;

    /** A campaign whose state directories go under {@code base}, with {@code sabotage} planted in every run. */
    public ChaosCampaign(Path base, Sabotage sabotage) {
        this.base = base;
        this.sabotage = sabotage;
    }

    /** Runs {@code settings}; {@code progress} hears a line about every 10 s. */
    public Outcome run(Settings settings, Consumer<String> progress) {
        long begin = System.nanoTime();
        long lastWord = begin;
        int schedules = 0;
        long steps = 0;
        long events = 0;
        Map<String, Integer> tally = new TreeMap<>();
        for (long seed = settings.firstSeed(); events < settings.steps()
                && (System.nanoTime() - begin) / 1_000_000 < settings.millis(); seed++) {
            Plan plan = new Plan(settings.spec(), seed, settings.length());
            Run run = trial(plan, null);
            schedules++;
            steps += run.schedule().steps().size();
            events += run.schedule().events();
            run.tally().forEach((k, v) -> tally.merge(k, v, Integer::sum));
            if (run.violation() != null) {
                ChaosShrinker.Shrunk shrunk = shrink(plan, run.schedule(), run.violation(), settings.shrinkTrials());
                return new Outcome(schedules, steps, events, seconds(begin), tally, report(plan, run.schedule(), shrunk));
            }
            if (System.nanoTime() - lastWord > 10_000_000_000L) {
                lastWord = System.nanoTime();
                progress.accept(String.format("chaos: %d schedules, %d steps in %.0f s, last seed %d, no violation",
                        schedules, steps, seconds(begin), seed));
            }
        }
        return new Outcome(schedules, steps, events, seconds(begin), tally, null);
    }

    /** Replays {@code schedule} under {@code plan}, shrinking it on a violation. */
    public Outcome replay(Plan plan, ChaosSchedule schedule, int shrinkTrials) {
        long begin = System.nanoTime();
        Run run = trial(plan, schedule);
        String report = run.violation() == null ? null
                : report(plan, schedule, shrink(plan, schedule, run.violation(), shrinkTrials));
        return new Outcome(1, schedule.steps().size(), schedule.events(), seconds(begin), run.tally(), report);
    }

    private static double seconds(long begin) {
        return (System.nanoTime() - begin) / 1e9;
    }

    /** One run: the schedule taken, the violation it ended in ({@code null} when clean), what happened. */
    record Run(ChaosSchedule schedule, ChaosViolation violation, Map<String, Integer> tally) {
    }

    /** Runs {@code schedule} (the plan's generated one when {@code null}) under {@code plan}. */
    Run trial(Plan plan, ChaosSchedule schedule) {
        Path dir = base.resolve("run-" + ++runs);
        try {
            Files.createDirectories(dir);
            try (ChaosSimulation sim = new ChaosSimulation(plan, dir, sabotage)) {
                ChaosSchedule taken = schedule != null ? schedule : sim.generated();
                try {
                    sim.run(taken);
                    return new Run(taken, null, sim.tally());
                } catch (ChaosViolation v) {
                    return new Run(taken, v, sim.tally());
                }
            } finally {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Shrinks {@code schedule}, which ended in {@code found} under {@code plan}, within {@code maxTrials} runs. */
    ChaosShrinker.Shrunk shrink(Plan plan, ChaosSchedule schedule, ChaosViolation found, int maxTrials) {
        return new ChaosShrinker(s -> trial(plan, s).violation(), maxTrials).shrink(schedule, found);
    }

    /** The command line that replays {@code schedule} under {@code plan}. */
    public static String replayCommand(Plan plan, ChaosSchedule schedule) {
        return "fabric-manager chaos --pgft '" + plan.spec() + "' --seed " + plan.seed() + " --schedule '"
                + schedule.text() + "'";
    }

    /** What a violation found and shrunk says: its kind, the seed, the shrunk schedule, the replay, its details. */
    static String report(Plan plan, ChaosSchedule original, ChaosShrinker.Shrunk shrunk) {
        return "chaos violation " + shrunk.violation().kind() + " with seed " + plan.seed() + " on " + plan.spec()
                + "\n  schedule of " + original.steps().size() + " steps shrunk to " + shrunk.schedule().steps().size()
                + " in " + shrunk.trials() + " trials: " + shrunk.schedule().text()
                + "\n  replay: " + replayCommand(plan, shrunk.schedule())
                + "\n" + shrunk.violation().getMessage();
    }
}
