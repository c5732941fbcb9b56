package org.fabricmanager.routing.analysis;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * How long the daemon's refinement of a repair takes to give up once a fault overtakes it ({@code abandon} turned
 * true at a random point of it): the wait the fault's own repair has before it starts. {@code dmodc-home} on two
 * threads repairs the intact tree's routing for a degraded copy, refines it whole a few times, then abandons it
 * {@code fm.bench.repeat} times at uniform points of its time.
 *
 * <p>Run with {@code mvn -B -o -q -pl routing-dmodc verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=AbandonedRefinementBenchmark -Dfm.bench=true}; {@code -Dfm.bench.pgft=SPEC} (default
 * {@code PGFT(3;32,32,64;1,32,32;1,1,1)}, then {@code -Dfm.test.jvm='-Xms8g -Xmx8g -Xmn3g'}),
 * {@code -Dfm.bench.fraction=0.01}, {@code -Dfm.bench.repeat=20}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class AbandonedRefinementBenchmark {
    private static final int THREADS = 2;

    @Test
    void abandonLatency() {
        PgftSpec spec = PgftSpec.parse(System.getProperty("fm.bench.pgft", "PGFT(3;32,32,64;1,32,32;1,1,1)"));
        double fraction = Double.parseDouble(System.getProperty("fm.bench.fraction", "0.01"));
        int repeat = Integer.getInteger("fm.bench.repeat", 20);
        FabricIndex whole = PgftGenerator.generate(spec).index();
        FabricIndex index = Degrader.degrade(PgftGenerator.generate(spec), DegradationPlan.random(fraction, 0, 1))
                .index();
        try (RoutingEngine engine = RoutingEngines.create("dmodc-home", THREADS)) {
            RoutedSnapshot base = engine.routeSnapshot(whole);
            TableRepairer repairer = engine.repairer().orElseThrow();
            RoutedSnapshot repaired = repairer.repair(base, index);
            double[] wholeRuns = new double[5];
            for (int run = 0; run < wholeRuns.length; run++) {
                long t0 = System.nanoTime();
                repairer.refine(base.result().tables(), repaired).orElseThrow();
                wholeRuns[run] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(wholeRuns);
            double wholeMs = wholeRuns[wholeRuns.length / 2];
            double[] waits = new double[repeat];
            java.util.Random random = new java.util.Random(1);
            for (int run = 0; run < repeat; run++) {
                AtomicBoolean abandon = new AtomicBoolean();
                CompletableFuture<Object> refining = CompletableFuture.supplyAsync(
                        () -> repairer.refine(base.result().tables(), repaired, abandon::get));
                LockSupport.parkNanos((long) (random.nextDouble() * wholeMs * 1e6));
                long flagged = System.nanoTime();
                abandon.set(true);
                try {
                    refining.join();
                    waits[run] = -1; // over before the flag
                } catch (CompletionException e) {
                    if (!(e.getCause() instanceof AbandonedException)) {
                        throw e;
                    }
                    waits[run] = (System.nanoTime() - flagged) / 1e6;
                }
            }
            Arrays.sort(waits);
            long over = Arrays.stream(waits).filter(w -> w < 0).count();
            double[] ended = Arrays.stream(waits).filter(w -> w >= 0).toArray();
            double median = ended.length == 0 ? 0 : ended[ended.length / 2];
            double first = ended.length == 0 ? 0 : ended[0];
            double last = ended.length == 0 ? 0 : ended[ended.length - 1];
            System.out.printf(Locale.ROOT, "%s, %s of links removed (seed 1), %d threads: a whole refinement %.0f ms"
                    + " (median of 5); abandoned %d times at random points, ended %.1f ms after the flag (median),"
                    + " %.1f-%.1f; %d over before it%n", spec, fraction, THREADS, wholeMs, ended.length, median, first,
                    last, over);
        }
    }
}
