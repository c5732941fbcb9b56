package org.fabricmanager.routing.dmodc;

import java.util.List;
import java.util.Locale;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LinkChanges;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): a chain of faults and returns as issue 53 describes it: a top switch, a
 * leaf's uplink and a level-2 switch fail one after another, then come back in reverse order. Each step repairs the
 * tables the step before left, as chained {@code route --previous} runs do ("offline"), and as the daemon does
 * from its base (the last full routing, or the last repair into which an element the base lacked came back). Per
 * step: entries changed and taken back, entries that differ from the intact tables and from Dmodc's routing of the
 * fabric at that step, shift and all-to-all maxima of the tables and of that routing, and the repair's time with,
 * of it, its balance check's ({@code balance} phase; 0 where none ran).
 *
 * <p>Run with {@code mvn -B -o -q -Pbench -pl routing-dmodc -am test -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=ReturnChainBenchmark [-Dfm.bench.pgft=SPEC]}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class ReturnChainBenchmark {

    @Test
    void faultsThenReturnsInReverse() {
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;16,16,16;1,16,16;1,1,1)");
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(spec));
        long top = PgftGenerator.switchGuid(3, 5);
        long l2 = PgftGenerator.switchGuid(2, 37);
        long leaf = PgftGenerator.switchGuid(1, 20);
        Link uplink = intact.links().stream().filter(l -> l.a() == leaf && intact.isSwitch(l.b())
                || l.b() == leaf && intact.isSwitch(l.a())).findFirst().orElseThrow();
        Fabric f1 = intact.withoutSwitches(List.of(top));
        Fabric f2 = f1.withoutLinks(List.of(uplink));
        Fabric f3 = f2.withoutSwitches(List.of(l2));
        List<Fabric> chain = List.of(f1, f2, f3, f2, f1, intact);
        List<String> names = List.of("- top switch", "- leaf uplink", "- level-2 switch", "+ level-2 switch",
                "+ leaf uplink", "+ top switch");
        try (DmodcEngine engine = new DmodcEngine(2); RoutingPool pool = new RoutingPool(2, "bench")) {
            DmodcRouting full = engine.compute(intact.index());
            ForwardingTables whole = full.result().tables();
            for (String mode : List.of("offline", "daemon")) {
                System.out.printf(Locale.ROOT, "# %s, %s: step | changed | taken back | differ from intact | differ"
                        + " from Dmodc | shift max (Dmodc) | all-to-all max (Dmodc) | repair ms (balance ms)%n", spec, mode);
                RoutedSnapshot base = full;
                ForwardingTables tables = whole;
                for (int i = 0; i < chain.size(); i++) {
                    FabricIndex next = chain.get(i).index();
                    long t0 = System.nanoTime();
                    DmodcRouting r = mode.equals("offline") ? engine.repair(tables, next) : engine.repair(base, next);
                    double ms = (System.nanoTime() - t0) / 1e6;
                    double balanceMs = r.result().timings().phases().stream().filter(p -> p.name().equals("balance"))
                            .mapToLong(PhaseTimings.Phase::nanos).sum() / 1e6;
                    TableChurn churn = engine.churn(tables, r, pool);
                    if (mode.equals("daemon") && LinkChanges.added(base.fabric(), next)) {
                        base = r;
                    }
                    tables = r.result().tables();
                    ForwardingTables dmodc = engine.compute(next).result().tables();
                    System.out.printf(Locale.ROOT, "%s | %,d | %,d | %,d | %,d | %d (%d) | %,d (%,d) | %.0f (%.0f)%n",
                            names.get(i), churn.changedEntries(), churn.takenBack(), differing(whole, tables),
                            differing(dmodc, tables), max(next, tables, new TrafficPattern.Shift()),
                            max(next, dmodc, new TrafficPattern.Shift()), max(next, tables, new TrafficPattern.AllToAll()),
                            max(next, dmodc, new TrafficPattern.AllToAll()), ms, balanceMs);
                }
            }
        }
    }

    private static long max(FabricIndex index, ForwardingTables tables, TrafficPattern pattern) {
        return new CongestionAnalyzer(RoutedFabric.of(index, tables), 2).analyze(pattern).max();
    }

    /** Entries of {@code tables} that differ from {@code reference} (rows matched by GUID; a missing row counts its routed entries). */
    static long differing(ForwardingTables reference, ForwardingTables tables) {
        long n = 0;
        for (int s = 0; s < tables.switchCount(); s++) {
            int r = -1;
            for (int k = 0; k < reference.switchCount() && r < 0; k++) {
                r = reference.switchGuid(k) == tables.switchGuid(s) ? k : -1;
            }
            for (int d = 0; d < tables.destinationCount(); d++) {
                int ref = r < 0 || d >= reference.destinationCount() ? ForwardingTables.NO_ROUTE : reference.port(r, d);
                n += ref != tables.port(s, d) ? 1 : 0;
            }
        }
        return n;
    }
}
