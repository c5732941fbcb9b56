package org.fabricmanager.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;
import org.fabricmanager.daemon.chaos.ChaosCampaign;
import org.fabricmanager.daemon.chaos.ChaosSchedule;
import org.fabricmanager.daemon.chaos.ChaosSimulation;
import org.fabricmanager.daemon.chaos.Sabotage;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;
import org.slf4j.LoggerFactory;

/**
 * {@code chaos}: runs the chaos simulation ({@link ChaosCampaign}), seeded schedules of faults and operator actions
 * against the whole daemon on virtual time, each judged by an oracle at every quiet point; exits {@link
 * ExitCodes#MISMATCH} on a violation with its seed, the schedule shrunk and a command that replays it. The options
 * are parsed into {@link Options} in one place, the rest reads only them.
 */
final class ChaosCommand implements Command {
    static final String DEFAULT_PGFT = "PGFT(3;4,4,4;1,4,4;1,1,1)";

    /**
     * What a chaos run does: the fabric, the first seed (picked at random when not given), the steps of each schedule,
     * the campaign's steps and minutes (whichever ends first), a schedule to replay instead of generating them, and
     * the runs a violation's shrinking may take.
     */
    record Options(PgftSpec spec, long seed, boolean seedPicked, int length, long steps, double minutes,
                   ChaosSchedule replay, int shrinkTrials) {
    }

    private final Sabotage sabotage;

    ChaosCommand() {
        this(Sabotage.NONE);
    }

    /** A command whose every simulation has {@code sabotage} planted: the tests' way to show a violation's exit. */
    ChaosCommand(Sabotage sabotage) {
        this.sabotage = sabotage;
    }

    @Override
    public String name() {
        return "chaos";
    }

    @Override
    public String summary() {
        return "seeded fault campaigns against the whole daemon on virtual time, checked by an oracle";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager chaos [--pgft SPEC] [--seed N] (--steps K | --minutes M) [--length L]
                       fabric-manager chaos [--pgft SPEC] --seed N --schedule 'STEPS'
                  Runs the daemon in one thread on a virtual clock against simulated switches, under seeded
                  schedules of cables down and up, flaps, switches powered off and on, drains and undrains,
                  rebalances, acks lost or late, events during a routing; an oracle checks every quiet point (tables held as the
                  daemon says, valid shortest up*/down* routes, the intact fabric's routing once all is back).
                  --pgft SPEC             the fabric (default %s)
                  --seed N                the first schedule's seed, one more per schedule (default: picked and
                                          printed)
                  --steps K               stop after K steps in all
                  --minutes M             stop after M minutes (whichever of --steps and --minutes comes first)
                  --length L              steps per schedule (default 40)
                  --schedule 'STEPS'      replay one schedule (as a violation prints it) under --seed
                  --shrink-trials T       runs a violation's shrinking may take (default 500)
                  Exit code 0 when no violation, 3 on a violation (its seed, the shrunk schedule and the command
                  that replays it are printed), 2 for bad input.""".formatted(DEFAULT_PGFT);
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("pgft", "seed", "steps", "minutes", "length", "schedule", "shrink-trials");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) throws IOException {
        return run(options(args), console);
    }

    /**
     * Every schedule loses acks and switches on purpose: the daemon's warnings about them would bury the lines that
     * matter, and a violation's report carries the daemon's milestones.
     */
    private static void quietLogs() {
        if (LoggerFactory.getLogger("org.fabricmanager") instanceof Logger l) {
            l.setLevel(Level.OFF);
        }
    }

    /** The options of {@code args}, checked. */
    static Options options(Arguments args) {
        PgftSpec spec;
        try {
            spec = PgftSpec.parse(args.valueOr("pgft", DEFAULT_PGFT));
        } catch (TopologyException e) {
            throw new UsageException("chaos: " + e.getMessage(), e);
        }
        ChaosSchedule replay = null;
        if (args.has("schedule")) {
            if (!args.has("seed")) {
                throw new UsageException("chaos: --schedule replays under the seed it ran with: give --seed");
            }
            try {
                replay = ChaosSchedule.parse(args.require("schedule"));
            } catch (IllegalArgumentException e) {
                throw new UsageException("chaos: --schedule: " + e.getMessage(), e);
            }
        } else if (!args.has("steps") && !args.has("minutes")) {
            throw new UsageException("chaos: give --steps, --minutes or both (or --schedule with --seed)");
        }
        boolean picked = !args.has("seed");
        long seed = picked ? new SecureRandom().nextLong() & Long.MAX_VALUE : args.longValue("seed", 0);
        long steps = args.has("steps") ? args.longValue("steps", 0) : Long.MAX_VALUE;
        if (steps < 1) {
            throw new UsageException("chaos: --steps must be at least 1");
        }
        return new Options(spec, seed, picked, args.intValue("length", 40, 1, 100_000), steps,
                args.doubleValue("minutes", Double.POSITIVE_INFINITY, 0.01, 1e6), replay,
                args.intValue("shrink-trials", 500, 0, 1_000_000));
    }

    int run(Options o, Console console) throws IOException {
        PrintStream out = console.out();
        quietLogs();
        if (o.seedPicked()) {
            out.println("chaos: seed " + o.seed() + " (picked; --seed " + o.seed() + " runs the same schedules)");
        }
        Path base = Files.createTempDirectory("fabric-manager-chaos-");
        try {
            ChaosCampaign campaign = new ChaosCampaign(base, sabotage);
            ChaosCampaign.Outcome outcome = o.replay() != null
                    ? campaign.replay(new ChaosSimulation.Plan(o.spec(), o.seed(), o.length()), o.replay(),
                            o.shrinkTrials())
                    : campaign.run(new ChaosCampaign.Settings(o.spec(), o.seed(), o.length(), o.steps(),
                            Double.isInfinite(o.minutes()) ? Long.MAX_VALUE : (long) (o.minutes() * 60_000),
                            o.shrinkTrials()), out::println);
            out.printf("chaos %s: %d schedules, %d steps (%d events) in %.1f s: %.1f schedules/s, %.0f events/s; %s%n",
                    o.spec(), outcome.schedules(), outcome.steps(), outcome.events(), outcome.seconds(),
                    outcome.schedules() / outcome.seconds(), outcome.events() / outcome.seconds(), outcome.tally());
            if (outcome.clean()) {
                out.println("chaos: no violation");
                return ExitCodes.OK;
            }
            out.println(outcome.violation());
            return ExitCodes.MISMATCH;
        } finally {
            try (Stream<Path> files = Files.walk(base)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (UncheckedIOException e) {
                console.err().println("chaos: could not remove " + base + ": " + e.getMessage());
            }
        }
    }
}
