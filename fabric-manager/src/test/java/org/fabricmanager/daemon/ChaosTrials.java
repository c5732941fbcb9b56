package org.fabricmanager.daemon;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.fabricmanager.daemon.ChaosSimulation.Plan;

/**
 * Runs chaos schedules one at a time, each in a fresh state directory under one base (removed after it), and turns a
 * violation into a report: the seed, the schedule shrunk ({@link ChaosShrinker}) and a command that replays it.
 */
final class ChaosTrials {
    private final Path base;
    private int runs;

    ChaosTrials(Path base) {
        this.base = base;
    }

    /** The violation {@code schedule} ends in under {@code plan}, or {@code null} when it ran clean. */
    ChaosViolation trial(Plan plan, ChaosSchedule schedule) {
        Path dir = base.resolve("run-" + ++runs);
        try {
            Files.createDirectories(dir);
            try (ChaosSimulation sim = new ChaosSimulation(plan, dir)) {
                sim.run(schedule);
                return null;
            } catch (ChaosViolation v) {
                return v;
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
        return new ChaosShrinker(s -> trial(plan, s), maxTrials).shrink(schedule, found);
    }

    /** The command line that replays {@code schedule} under {@code plan}. */
    static String replayCommand(Plan plan, ChaosSchedule schedule) {
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
