package org.fabricmanager.routing.analysis;

import java.util.Arrays;
import java.util.Locale;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): {@code dmodc-home}'s tables moved by the random permutations' peaks
 * ({@link PeakMoves}) on {@link BalanceSweepBenchmark}'s degraded fabrics, the moves held to Dmodc's shift maximum
 * on the same fabric. Per fabric: {@code dmodc-home}'s figures; after peak moves by pods and level-1 switches in
 * turn; after {@link BalanceSweepBenchmark#shiftKept}'s load moves (pods, then level 1) followed by the same peak
 * moves held to the all-to-all maximum the load moves reached. The moves are scored on {@code fm.bench.peakSample}
 * permutations (default 300) of seed {@code fm.bench.peakSeed} (default 99) and measured on {@code fm.bench.random}
 * (default {@code random:2000:1234}), another sample.
 *
 * <p>Run with {@code mvn -B -o -q -pl routing-dmodc -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=PeakMovesBenchmark -Dfm.bench=true -Dfm.bench.fraction=0.1 -Dfm.bench.seeds=1-5}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class PeakMovesBenchmark {
    private static final int ROUNDS = 10;
    private static final boolean STRICT = Boolean.getBoolean("fm.bench.peakStrict");

    /** The median wall time of 5 routings of {@code index} by engine {@code name} after 2, on two threads. */
    private static double millis(String name, FabricIndex index) {
        double[] ms = new double[5];
        try (RoutingEngine engine = RoutingEngines.create(name, 2)) {
            for (int run = -2; run < ms.length; run++) {
                long t0 = System.nanoTime();
                engine.route(index);
                ms[Math.max(run, 0)] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(ms);
        return ms[ms.length / 2];
    }

    @Test
    void peaks() {
        TrafficPattern random = TrafficPattern.parse(System.getProperty("fm.bench.random", "random:2000:1234"));
        int sample = Integer.getInteger("fm.bench.peakSample", 300);
        long sampleSeed = Long.getLong("fm.bench.peakSeed", 99L);
        for (long seed : BalanceSweepBenchmark.seeds(System.getProperty("fm.bench.seeds", "1-5"))) {
            FabricIndex index = BalanceSweepBenchmark.degraded(seed);
            int cap = (int) new CongestionAnalyzer(BalanceSweepBenchmark.routed("dmodc", index), 2)
                    .analyze(new TrafficPattern.Shift()).max();
            ForwardingTables home = BalanceSweepBenchmark.routed("dmodc-home", index).tables();
            System.out.printf(Locale.ROOT, "seed %2d routing, two threads, median of 5 after 2: dmodc %.1f ms,"
                    + " dmodc-home %.1f ms%n", seed, millis("dmodc", index), millis("dmodc-home", index));

            long t0 = System.nanoTime();
            LoadMoves plain = new LoadMoves(index, home);
            plain.limitShift(cap);
            PeakMoves peaks = new PeakMoves(index, plain, sample, sampleSeed);
            if (STRICT) {
                peaks.onlyLowerMaxima();
            }
            long t1 = System.nanoTime();
            double before = peaks.sampleMean();
            int made = 0;
            for (int round = 0, m = 1; round < ROUNDS && m > 0; round++) {
                m = peaks.podRound() + peaks.levelOneRound();
                made += m;
            }
            long t2 = System.nanoTime();
            String plainLine = String.format(Locale.ROOT, "peaks in turn %s; %d moves, sample %.3f -> %.3f (recount"
                    + " %.3f); set-up %.0f ms, moves %.0f ms", BalanceSweepBenchmark.figures(index, plain.tables(),
                    random), made, before, peaks.sampleMean(), peaks.recountedMean(), (t1 - t0) / 1e6, (t2 - t1) / 1e6);

            long t3 = System.nanoTime();
            LoadMoves kept = new LoadMoves(index, home);
            kept.limitShift(cap);
            for (int round = 0; round < 2 && kept.podRound() > 0; round++) {
                // two rounds, as shiftKept's
            }
            while (kept.switchRound(1) > 0) {
                // as shiftKept's
            }
            long t4 = System.nanoTime();
            String keptLine = BalanceSweepBenchmark.figures(index, kept.tables(), random);
            long t4b = System.nanoTime();
            PeakMoves after = new PeakMoves(index, kept, sample, sampleSeed);
            after.limitAllToAll(kept.allToAllMax());
            if (STRICT) {
                after.onlyLowerMaxima();
            }
            double keptBefore = after.sampleMean();
            made = 0;
            for (int round = 0, m = 1; round < ROUNDS && m > 0; round++) {
                m = after.podRound() + after.levelOneRound();
                made += m;
            }
            long t5 = System.nanoTime();
            System.out.printf(Locale.ROOT, "seed %2d cap %d home %s%n        %s%n        load %s%n        load, then peaks %s; %d moves,"
                            + " sample %.3f -> %.3f (recount %.3f); load moves %.0f ms, peak moves %.0f ms%n", seed,
                    cap, BalanceSweepBenchmark.figures(index, home, random), plainLine, keptLine,
                    BalanceSweepBenchmark.figures(index, kept.tables(), random), made, keptBefore, after.sampleMean(),
                    after.recountedMean(), (t4 - t3) / 1e6, (t5 - t4b) / 1e6);
        }
    }
}
