package org.fabricmanager.daemon.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): false isolations over long runs of noisy but healthy port counters
 * ({@link CounterNoiseRun}: the whole daemon on a virtual clock, policy {@code isolate}), one run per seed. Run with
 * {@code mvn -B -q -pl fabric-manager -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=CounterNoiseBenchmark -Dfm.bench=true [-Dfm.bench.spec=PGFT(...)] [-Dfm.bench.hours=24]
 * [-Dfm.bench.seeds=1,2,3]}; figures go to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class CounterNoiseBenchmark {
    @Test
    void falseIsolationsOverLongNoisyRuns() throws Exception {
        PgftSpec spec = PgftSpec.parse(System.getProperty("fm.bench.spec", "PGFT(3;16,16,16;1,16,16;1,1,1)"));
        double hours = Double.parseDouble(System.getProperty("fm.bench.hours", "24"));
        long falseIsolations = 0;
        double simulated = 0;
        for (String seed : System.getProperty("fm.bench.seeds", "1").split(",")) {
            Path state = Files.createTempDirectory("fm-bench-noise-");
            long begin = System.nanoTime();
            try (CounterNoiseRun run = new CounterNoiseRun(new CounterNoiseRun.Plan(spec, Long.parseLong(seed), hours),
                    state)) {
                CounterNoiseRun.Outcome o = run.run();
                double wall = (System.nanoTime() - begin) / 1e9;
                System.out.printf("seed %s, %s: %.1f h of fabric time in %.0f s, %d switches, %d reports, %d errors and "
                                + "drops, %d bursts, %d errors on idle ports, %d LINK_SUSPECT, %d false isolations%n",
                        seed, spec, o.hours(), wall, o.switches(), o.reads(), o.errors(), o.bursts(), o.idleErrors(),
                        o.suspect(), o.isolations().size());
                o.isolations().forEach(i -> System.out.println("  " + i));
                falseIsolations += o.isolations().size();
                simulated += o.hours();
            } finally {
                try (Stream<Path> files = Files.walk(state)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
        System.out.printf("in all: %.1f h of fabric time, %d false isolations%n", simulated, falseIsolations);
    }
}
