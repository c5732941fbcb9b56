package org.fabricmanager.daemon.routing;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what making the stored routing the base of repairs again costs at a start
 * (by the rehearsal after the start's convergence, {@link RoutingService#rehearse}: the check of every entry, and
 * on an intact PGFT the engine's full routing), and the first fault's repair after it (a level-2 switch), with the
 * daemon's default engine and thread count, against a fault that comes before the base is made (the base then made
 * on its path) and the same fault without a restart. Each run is a fresh service, as a restart is; the first run is the
 * coldest, the median the warm figure. Stored routings: the intact fabric's, and the repair of a spine's loss.
 *
 * <p>Run with {@code mvn -B -q -o -pl fabric-manager -am test -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=RestartBaseBenchmark -Dfm.bench=true -Dfm.test.jvm=-Xmx8g [-Dfm.bench.spec=PGFT(...)]}; figures to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class RestartBaseBenchmark {

    @Test
    void costOfTheBaseAtAStart() throws Exception {
        int repeats = Integer.getInteger("fm.bench.repeats", 5);
        int threads = Runtime.getRuntime().availableProcessors();
        PgftSpec spec = PgftSpec.parse(System.getProperty("fm.bench.spec", "PGFT(3;32,32,64;1,32,32;1,1,1)"));
        Fabric intact = PgftGenerator.generate(spec);
        Fabric noSpine = intact.withoutSwitches(List.of(PgftGenerator.switchGuid(3, 0)));
        long level2 = PgftGenerator.switchGuid(2, 1);
        System.out.printf(Locale.ROOT, "%s, %d switches, %s on %d threads%n", spec, intact.switches().size(),
                HomeDmodcEngine.NAME, threads);
        System.out.println("| stored routing | base at the start: first run, median (min-max) ms"
                + " | first fault's repair: from the base | before the base is made (both on its path)"
                + " | without a restart |");
        System.out.println("|---|---|---|---|---|");
        TableSet storedIntact;
        TableSet storedNoSpine;
        try (RoutingService before = new RoutingService(HomeDmodcEngine.NAME, threads, true)) {
            storedIntact = route(before, new RoutingJob(1, intact, null, null)).tables();
            storedNoSpine = route(before, new RoutingJob(2, noSpine, storedIntact, null, false, intact)).tables();
        }
        for (Object[] c : List.of(new Object[] {"intact", intact, storedIntact},
                new Object[] {"a spine out (its repair)", noSpine, storedNoSpine})) {
            Fabric fabric = (Fabric) c[1];
            TableSet stored = (TableSet) c[2];
            Fabric lost = fabric.withoutSwitches(List.of(level2));
            RoutingJob fault = new RoutingJob(stored.version() + 1, lost, stored, null, false, fabric);
            double[] base = new double[repeats];
            double[][] repair = new double[3][repeats];
            for (int i = 0; i < repeats; i++) {
                try (RoutingService restarted = new RoutingService(HomeDmodcEngine.NAME, threads, true)) {
                    long t0 = System.nanoTime();
                    // the rehearsal of no fault: the base alone
                    restarted.rehearse(List::of, fabric, stored).get(10, TimeUnit.MINUTES);
                    base[i] = (System.nanoTime() - t0) / 1e6;
                    repair[0][i] = route(restarted, fault).millis();
                }
                try (RoutingService restarted = new RoutingService(HomeDmodcEngine.NAME, threads, true)) {
                    repair[1][i] = route(restarted, fault).millis();
                }
                try (RoutingService running = new RoutingService(HomeDmodcEngine.NAME, threads, true)) {
                    TableSet v1 = route(running, new RoutingJob(1, intact, null, null)).tables();
                    TableSet v2 = fabric == intact ? v1
                            : route(running, new RoutingJob(2, fabric, v1, null, false, intact)).tables();
                    repair[2][i] = route(running, new RoutingJob(3, lost, v2, null, false, fabric)).millis();
                }
            }
            double first = base[0];
            Arrays.sort(base);
            for (double[] r : repair) {
                Arrays.sort(r);
            }
            System.out.printf(Locale.ROOT, "| %s | %.0f, %.0f (%.0f-%.0f) | %.0f | %.0f | %.0f |%n", c[0], first,
                    base[repeats / 2], base[0], base[repeats - 1], repair[0][repeats / 2], repair[1][repeats / 2],
                    repair[2][repeats / 2]);
        }
    }

    private static RoutingOutcome route(RoutingService service, RoutingJob job) throws Exception {
        return service.route(job).get(10, TimeUnit.MINUTES);
    }
}
