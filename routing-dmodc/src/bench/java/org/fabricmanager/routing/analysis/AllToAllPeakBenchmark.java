package org.fabricmanager.routing.analysis;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.Ranking;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (diagnosis, not part of the suite): where an engine's all-to-all maximum lies. Per fabric and engine, per
 * kind of link (rank to rank): its links, their mean and largest all-to-all load, and how many are within 5% of the
 * fabric's maximum; then the most loaded links, with their switches' ports up and down.
 *
 * <p>{@code mvn -B -o -q -pl routing-dmodc -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=AllToAllPeakBenchmark -Dfm.bench=true -Dfm.bench.fraction=0.1 -Dfm.bench.seeds=3
 * -Dfm.bench.engines=dmodc-home,sssp}; {@code -Dfm.bench.pgft=SPEC} (default {@code PGFT(3;16,16,16;1,16,16;1,1,1)}),
 * {@code -Dfm.bench.switches=K}, {@code -Dfm.bench.top=10}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class AllToAllPeakBenchmark {
    private static final int THREADS = 2;

    @Test
    void peaks() {
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(System.getProperty("fm.bench.pgft",
                "PGFT(3;16,16,16;1,16,16;1,1,1)")));
        double fraction = Double.parseDouble(System.getProperty("fm.bench.fraction", "0.1"));
        int switches = Integer.getInteger("fm.bench.switches", 0);
        int top = Integer.getInteger("fm.bench.top", 10);
        for (String seedText : System.getProperty("fm.bench.seeds", "1").split(",")) {
            long seed = Long.parseLong(seedText.trim());
            FabricIndex index = Degrader.degrade(intact, DegradationPlan.random(fraction, switches, seed)).index();
            int[] ranks = Ranking.fromSources(index, index.leaves());
            for (String name : System.getProperty("fm.bench.engines", "dmodc-home,sssp").split(",")) {
                RoutedFabric routed = RoutedFabric.of(index, route(name, index));
                long[] loads = new CongestionAnalyzer(routed, THREADS).allToAllLoads();
                DirectedLinks links = routed.links();
                long max = Arrays.stream(loads).max().orElse(0);
                System.out.printf(Locale.ROOT, "seed %d %-11s all-to-all max %d%n", seed, name, max);
                Map<String, long[]> byKind = new TreeMap<>();
                Integer[] order = new Integer[links.count()];
                int switchLinks = 0;
                for (int link = 0; link < links.count(); link++) {
                    if (!links.isSwitchLink(link)) {
                        continue;
                    }
                    order[switchLinks++] = link;
                    long[] k = byKind.computeIfAbsent(kind(links, ranks, link), x -> new long[4]);
                    k[0]++;
                    k[1] += loads[link];
                    k[2] = Math.max(k[2], loads[link]);
                    k[3] += loads[link] * 20 >= max * 19 ? 1 : 0;
                }
                byKind.forEach((kind, k) -> System.out.printf(Locale.ROOT,
                        "    %s %5d links, mean %7.1f, max %6d, within 5%% of the max %d%n", kind, k[0],
                        (double) k[1] / k[0], k[2], k[3]));
                Integer[] ids = Arrays.copyOf(order, switchLinks);
                Arrays.sort(ids, (a, b) -> Long.compare(loads[b], loads[a]));
                for (int i = 0; i < Math.min(top, ids.length); i++) {
                    int link = ids[i];
                    int s = links.sourceSwitch(link);
                    int t = links.peerSwitch(link);
                    System.out.printf(Locale.ROOT, "    %6d  %s: switch %d (up %d, down %d) -> switch %d (up %d, down %d)%n",
                            loads[link], kind(links, ranks, link), s, ports(index, ranks, s, true),
                            ports(index, ranks, s, false), t, ports(index, ranks, t, true), ports(index, ranks, t, false));
                }
            }
        }
    }

    /** Switch {@code s}'s ports to switches above ({@code up}) or below it. */
    private static int ports(FabricIndex index, int[] ranks, int s, boolean up) {
        int count = 0;
        for (int g = index.groupStart(s), to = g + index.groupCount(s); g < to; g++) {
            int rank = ranks[index.groupNeighbour(g)];
            count += (up ? rank > ranks[s] : rank < ranks[s]) ? index.groupSize(g) : 0;
        }
        return count;
    }

    private static String kind(DirectedLinks links, int[] ranks, int link) {
        return ranks[links.sourceSwitch(link)] + "->" + ranks[links.peerSwitch(link)];
    }

    private static ForwardingTables route(String name, FabricIndex index) {
        try (RoutingEngine engine = RoutingEngines.create(name, THREADS)) {
            return engine.route(index).tables();
        }
    }
}
