package org.fabricmanager.daemon.routing;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what taking a routing's {@link NodeImpact} adds to a fault's path on the
 * routing thread at 5,120 switches and 65,536 nodes, for a top link's death, a leaf's death and a spine's death.
 * Median and min-max of {@code -Dfm.bench.repeats} runs (default 7).
 *
 * <p>Run with {@code mvn -B -q -o -pl fabric-manager -am test -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=NodeImpactBenchmark -Dfm.bench=true -Dfm.test.jvm=-Xmx6g}; figures go to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class NodeImpactBenchmark {

    @Test
    void costOfTheImpactAt5120Switches() {
        int repeats = Integer.getInteger("fm.bench.repeats", 7);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(System.getProperty("fm.bench.spec",
                "PGFT(3;32,32,64;1,32,32;1,1,1)")));
        FabricIndex index = fabric.index();
        try (RoutingEngine engine = new DmodcEngine(2)) {
            TableSet before = new TableSet(1, engine.route(index).tables());
            long spine = PgftGenerator.switchGuid(3, 0);
            Link top = fabric.links().stream().filter(l -> l.a() == spine || l.b() == spine).findFirst().orElseThrow();
            long leaf = index.switchGuid(index.leaves()[0]);
            System.out.println("| fault | cut off | moved | median ms | min-max ms |");
            System.out.println("|---|---|---|---|---|");
            for (Object[] fault : List.of(new Object[] {"top link", fabric.withoutLinks(List.of(top))},
                    new Object[] {"leaf", fabric.withoutSwitches(List.of(leaf))},
                    new Object[] {"spine", fabric.withoutSwitches(List.of(spine))})) {
                Fabric after = (Fabric) fault[1];
                TableSet tables = TableSet.derive(2, engine.route(after.index()).tables(), before);
                NodeImpact[] impact = new NodeImpact[1];
                double[] ms = new double[repeats];
                impact[0] = NodeImpact.between(fabric, before, after, tables); // warm-up
                for (int i = 0; i < repeats; i++) {
                    long t0 = System.nanoTime();
                    impact[0] = NodeImpact.between(fabric, before, after, tables);
                    ms[i] = (System.nanoTime() - t0) / 1e6;
                }
                Arrays.sort(ms);
                System.out.printf(Locale.ROOT, "| %s | %d | %d | %.1f | %.1f-%.1f |%n", fault[0],
                        impact[0].cutOff().size(), impact[0].movedCount(), ms[repeats / 2], ms[0], ms[repeats - 1]);
            }
        }
    }
}
