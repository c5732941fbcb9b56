package org.fabricmanager.daemon.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.routing.RoutingJob;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Benchmark (not part of the test suite): what writing each routing's changes at once ({@code routing.delta}) costs
 * beside the whole tables ({@code routing.state}), with the daemon's default engine: the repairs of a leaf's uplink,
 * of a level-2 switch and of a spine, each from the intact routing, and a burst of ten cables in a row (each delta
 * holds every change since the stored routing). Per case: the delta's bytes and the median time of its write (encode
 * and atomic replace), against the whole write; and the start's read of both.
 *
 * <p>Run with {@code mvn -B -q -o -pl fabric-manager -am test -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=RoutingDeltaBenchmark -Dfm.bench=true -Dfm.test.jvm=-Xmx8g [-Dfm.bench.spec=PGFT(...)]}; figures to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class RoutingDeltaBenchmark {
    @TempDir
    Path dir;

    @Test
    void costOfTheChangesWrittenAtOnce() throws Exception {
        int repeats = Integer.getInteger("fm.bench.repeats", 5);
        int threads = Runtime.getRuntime().availableProcessors();
        PgftSpec spec = PgftSpec.parse(System.getProperty("fm.bench.spec", "PGFT(3;32,32,64;1,32,32;1,1,1)"));
        Fabric intact = PgftGenerator.generate(spec);
        System.out.printf(Locale.ROOT, "%s, %d switches, %s on %d threads%n", spec, intact.switches().size(),
                HomeDmodcEngine.NAME, threads);
        RoutingStateStore store = new RoutingStateStore(dir);
        try (RoutingService service = new RoutingService(HomeDmodcEngine.NAME, threads, true)) {
            TableSet full = route(service, new RoutingJob(1, intact, null, null)).tables();
            RoutingState whole = new RoutingState("intact", 1, HomeDmodcEngine.NAME, full.tables());
            double[] wholeMs = new double[repeats];
            for (int i = 0; i < repeats; i++) {
                long t0 = System.nanoTime();
                // another version each time: a save of the routing written whole already returns at once
                store.save(new RoutingState("intact", 100 + i, HomeDmodcEngine.NAME, full.tables()), () -> false);
                wholeMs[i] = (System.nanoTime() - t0) / 1e6;
            }
            store.save(whole);
            long t0 = System.nanoTime();
            new RoutingStateStore(dir).load().orElseThrow();
            System.out.printf(Locale.ROOT, "whole tables: %d bytes, write median %.0f ms, read %.0f ms%n",
                    Files.size(dir.resolve(RoutingStateStore.FILE)), median(wholeMs), (System.nanoTime() - t0) / 1e6);
            System.out.println("| change since the stored routing | switches whose row changed | delta bytes"
                    + " | delta write median (min-max) ms | start's read ms |");
            System.out.println("|---|---|---|---|---|");

            List<Link> uplinks = intact.links().stream().filter(l -> leaf(l.a()) || leaf(l.b())).toList();
            Fabric oneCable = intact.withoutLinks(List.of(uplinks.get(0)));
            Fabric level2 = intact.withoutSwitches(List.of(PgftGenerator.switchGuid(2, 1)));
            Fabric spine = intact.withoutSwitches(List.of(PgftGenerator.switchGuid(3, 0)));
            report(store, service, "a leaf's uplink", intact, full, oneCable, repeats);
            report(store, service, "a level-2 switch", intact, full, level2, repeats);
            report(store, service, "a spine", intact, full, spine, repeats);
            // a burst: ten cables one after the other, each repaired from the last; the delta holds all ten
            Fabric fabric = intact;
            TableSet tables = full;
            List<Link> lost = new ArrayList<>();
            for (int k = 0; k < 10; k++) {
                lost.add(uplinks.get(k * 97 % uplinks.size()));
                Fabric next = intact.withoutLinks(lost);
                tables = route(service, new RoutingJob(2 + k, next, tables, null, false, fabric)).tables();
                fabric = next;
            }
            reportTables(store, "ten cables in a row", full, tables, repeats);
        }
    }

    /** A level-1 switch's GUID ({@link PgftGenerator#switchGuid}: the level in the upper half). */
    private static boolean leaf(long guid) {
        return guid - PgftGenerator.switchGuid(1, 0) >= 0 && guid < PgftGenerator.switchGuid(2, 0);
    }

    private static void report(RoutingStateStore store, RoutingService service, String what, Fabric intact,
                               TableSet full, Fabric lost, int repeats) throws Exception {
        TableSet repaired = route(service, new RoutingJob(2, lost, full, null, false, intact)).tables();
        reportTables(store, what, full, repaired, repeats);
    }

    private static void reportTables(RoutingStateStore store, String what, TableSet full, TableSet after, int repeats)
            throws Exception {
        RoutingState state = new RoutingState("after", 99, HomeDmodcEngine.NAME, after.tables());
        double[] ms = new double[repeats];
        for (int i = 0; i < repeats; i++) {
            long t0 = System.nanoTime();
            store.saveChanges(state);
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Path delta = store.file().resolveSibling(RoutingStateStore.DELTA_FILE);
        int changed = 0;
        for (int s = 0; s < after.tables().switchCount(); s++) {
            int p = full.row(after.guid(s));
            changed += p < 0 || !after.tables().rowEquals(s, full.tables(), p) ? 1 : 0;
        }
        long t0 = System.nanoTime();
        RoutingState read = new RoutingStateStore(store.file().getParent()).load().orElseThrow();
        double readMs = (System.nanoTime() - t0) / 1e6;
        if (read.version() != 99 || !read.tables().sameAs(after.tables())) {
            throw new AssertionError("the delta did not read back as the routing written");
        }
        double first = ms[0];
        Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %.1f (%.1f-%.1f), first %.1f | %.0f |%n", what, changed,
                Files.size(delta), ms[repeats / 2], ms[0], ms[repeats - 1], first, readMs);
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static org.fabricmanager.daemon.routing.RoutingOutcome route(RoutingService service, RoutingJob job)
            throws Exception {
        return service.route(job).get(10, TimeUnit.MINUTES);
    }
}
