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
 * Benchmark (diagnosis, not part of the suite): where an engine's random-permutation mean is lost, from
 * {@link RandomTail}'s prediction, beside the mean measured on {@code fm.bench.random}. Per fabric and engine:
 * the measured and predicted means; per kind of link (rank to rank) the expected number of links carrying 6, 7
 * and 8 routes or more in one permutation; and for the links from level 1 up, that number at 7 were each level-1
 * switch's links up, or each pod's, to carry the same load (what evening them would give).
 *
 * <p>{@code mvn -B -o -q -pl routing-dmodc -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=RandomTailBenchmark#predict -Dfm.bench=true -Dfm.bench.fraction=0.1 -Dfm.bench.seeds=1,2,3,4,5
 * -Dfm.bench.engines=dmodc,dmodc-home,sssp -Dfm.bench.random=random:2000:1234}; {@code -Dfm.bench.pgft=SPEC}
 * (default {@code PGFT(3;16,16,16;1,16,16;1,1,1)}), {@code -Dfm.bench.switches=K}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class RandomTailBenchmark {
    private static final int THREADS = 2;

    @Test
    void predict() {
        TrafficPattern random = TrafficPattern.parse(System.getProperty("fm.bench.random", "random:2000:1234"));
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(System.getProperty("fm.bench.pgft",
                "PGFT(3;16,16,16;1,16,16;1,1,1)")));
        for (long seed : seeds()) {
            FabricIndex index = degraded(intact, seed);
            int[] ranks = Ranking.fromSources(index, index.leaves());
            for (String name : System.getProperty("fm.bench.engines", "dmodc,dmodc-home,sssp").split(",")) {
                RoutedFabric routed = RoutedFabric.of(index, route(name, index));
                RandomTail tail = RandomTail.of(routed);
                System.out.printf(Locale.ROOT, "seed %d %-11s random mean measured %.3f, predicted %.3f%n", seed, name,
                        new CongestionAnalyzer(routed, THREADS).analyze(random).mean(), tail.predictedMean());
                printKinds(routed.links(), ranks, tail);
                printEvened(routed.links(), ranks, tail);
            }
        }
    }

    private static void printKinds(DirectedLinks links, int[] ranks, RandomTail tail) {
        Map<String, double[]> byKind = new TreeMap<>();
        for (int link = 0; link < links.count(); link++) {
            if (tail.tails()[link] == null || !links.isSwitchLink(link)) {
                continue;
            }
            double[] sum = byKind.computeIfAbsent(kind(links, ranks, link), k -> new double[4]);
            sum[0]++;
            for (int j = 1; j <= 3; j++) {
                sum[j] += tail.tails()[link][5 + j];
            }
        }
        byKind.forEach((kind, s) -> System.out.printf(Locale.ROOT,
                "    %s %4.0f links; expected at 6 or more %.3f, 7 %.4f, 8 %.5f%n", kind, s[0], s[1], s[2], s[3]));
    }

    /** Links from level 1 up at 7 routes or more: as they are, and with the load evened per switch and per pod. */
    private static void printEvened(DirectedLinks links, int[] ranks, RandomTail tail) {
        int[] pod = pods(links, ranks);
        Map<Integer, double[]> perSwitch = new TreeMap<>();
        Map<Integer, double[]> perPod = new TreeMap<>();
        for (int link = 0; link < links.count(); link++) {
            if (levelOneUp(links, ranks, tail, link)) {
                int u = links.sourceSwitch(link);
                double[] s = perSwitch.computeIfAbsent(u, k -> new double[2]);
                s[0] += tail.mu()[link];
                s[1]++;
                double[] p = perPod.computeIfAbsent(pod[u], k -> new double[2]);
                p[0] += tail.mu()[link];
                p[1]++;
            }
        }
        double now = 0;
        double bySwitch = 0;
        double byPod = 0;
        double[] switchMu = new double[links.count()];
        double[] podMu = new double[links.count()];
        Arrays.fill(switchMu, Double.NaN);
        Arrays.fill(podMu, Double.NaN);
        for (int link = 0; link < links.count(); link++) {
            if (levelOneUp(links, ranks, tail, link)) {
                int u = links.sourceSwitch(link);
                double[] s = perSwitch.get(u);
                double[] p = perPod.get(pod[u]);
                now += tail.tails()[link][7];
                switchMu[link] = s[0] / s[1];
                podMu[link] = p[0] / p[1];
                bySwitch += tail.tailIf(link, 7, switchMu[link]);
                byPod += tail.tailIf(link, 7, podMu[link]);
            }
        }
        System.out.printf(Locale.ROOT, "    level 1 up at 7 or more: %.4f; evened per switch %.4f, per pod %.4f%n", now,
                bySwitch, byPod);
        System.out.printf(Locale.ROOT, "    predicted mean: %.3f; level 1 up evened per switch %.3f, per pod %.3f%n",
                tail.predictedMean(), tail.predictedMeanIf(switchMu), tail.predictedMeanIf(podMu));
    }

    private static boolean levelOneUp(DirectedLinks links, int[] ranks, RandomTail tail, int link) {
        return tail.tails()[link] != null && links.isSwitchLink(link) && ranks[links.sourceSwitch(link)] == 1
                && ranks[links.peerSwitch(link)] == 2;
    }

    private static String kind(DirectedLinks links, int[] ranks, int link) {
        return ranks[links.sourceSwitch(link)] + "->" + ranks[links.peerSwitch(link)];
    }

    /** Per switch, its pod: the leaves and level-1 switches joined by links between them (union-find). */
    private static int[] pods(DirectedLinks links, int[] ranks) {
        int[] parent = new int[ranks.length];
        for (int s = 0; s < parent.length; s++) {
            parent[s] = s;
        }
        for (int link = 0; link < links.count(); link++) {
            if (links.isSwitchLink(link) && ranks[links.sourceSwitch(link)] + ranks[links.peerSwitch(link)] == 1) {
                parent[root(parent, links.sourceSwitch(link))] = root(parent, links.peerSwitch(link));
            }
        }
        for (int s = 0; s < parent.length; s++) {
            parent[s] = root(parent, s);
        }
        return parent;
    }

    private static int root(int[] parent, int s) {
        while (parent[s] != s) {
            parent[s] = parent[parent[s]];
            s = parent[s];
        }
        return s;
    }

    private static ForwardingTables route(String name, FabricIndex index) {
        try (RoutingEngine engine = RoutingEngines.create(name, THREADS)) {
            return engine.route(index).tables();
        }
    }

    private static FabricIndex degraded(Fabric intact, long seed) {
        double fraction = Double.parseDouble(System.getProperty("fm.bench.fraction", "0.1"));
        int switches = Integer.getInteger("fm.bench.switches", 0);
        return Degrader.degrade(intact, DegradationPlan.random(fraction, switches, seed)).index();
    }

    private static long[] seeds() {
        return Arrays.stream(System.getProperty("fm.bench.seeds", "1").split(","))
                .mapToLong(s -> Long.parseLong(s.trim())).toArray();
    }
}
