package org.fabricmanager.daemon.whatif;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.RebalanceEstimate;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingJob;
import org.fabricmanager.daemon.routing.RoutingOutcome;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TableQuality;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what one what-if costs (a spine, a link: the engine's routing
 * of the degraded fabric on the routing thread, then the comparison and the quality analysis) and what the
 * quality measurement after a routing costs, and what the rebalance estimate of a repair costs (after a spine's
 * repair: the full routing on the routing thread, the comparison and the quality of the full tables; a fresh
 * estimator each run, since one estimate is kept per version), with the daemon's thread counts (routing: every processor;
 * analyses: half of them), warm medians with min and max. Run with
 * {@code -Dtest=WhatIfCostBenchmark -Dfm.bench=true [-Dfm.bench.spec=PGFT(...)] [-Dfm.bench.repeats=7]}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class WhatIfCostBenchmark {
    @Test
    void whatIfAndQualityCost() throws Exception {
        PgftSpec spec = PgftSpec.parse(System.getProperty("fm.bench.spec", "PGFT(3;16,16,16;1,16,16;1,1,1)"));
        int runs = Integer.getInteger("fm.bench.repeats", 7);
        int processors = Runtime.getRuntime().availableProcessors();
        int analysisThreads = Math.max(1, processors / 2);
        Fabric fabric = PgftGenerator.generate(spec);
        Link cut = fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst()
                .orElseThrow();
        long spine = PgftGenerator.switchGuid(spec.h(), 0);
        // routing.onFault: repair, the daemon's default: the what-ifs repair, as the daemon would
        try (RoutingService routing = new RoutingService("dmodc", processors, true)) {
            ExecutorService executor = Executors.newSingleThreadExecutor();
            try {
                RoutingOutcome outcome = routing.route(new RoutingJob(1, fabric, null, null)).get(10, TimeUnit.MINUTES);
                ActiveRouting active = new ActiveRouting(1, fabric, outcome.fingerprint(), outcome.tables(), "dmodc",
                        outcome.millis(), true, 0, false, null);
                WhatIfService whatIfs = new WhatIfService(routing, executor, analysisThreads);
                WhatIfRequest[] requests = {new WhatIfRequest(List.of(spine), List.of()),
                        new WhatIfRequest(List.of(), List.of(new PortRef(cut.a(), cut.aPort())))};
                String[] names = {"one spine", "one link"};
                double[][][] ms = new double[2][3][runs];
                long[][] changed = new long[2][2];
                for (int w = 0; w < 2 + runs; w++) {
                    for (int k = 0; k < 2; k++) {
                        long t0 = System.nanoTime();
                        WhatIfResult r = whatIfs.start(active, requests[k]).get(10, TimeUnit.MINUTES);
                        long t1 = System.nanoTime();
                        if (w >= 2) {
                            ms[k][0][w - 2] = (t1 - t0) / 1e6;
                            ms[k][1][w - 2] = r.routingMs();
                            ms[k][2][w - 2] = r.analysisMs();
                        }
                        changed[k][0] = r.changedEntries();
                        changed[k][1] = r.changedBlocks();
                    }
                }
                double[] quality = new double[runs];
                RoutedFabric routed = RoutedFabric.of(fabric.index(), outcome.tables().tables());
                for (int w = 0; w < 2 + runs; w++) {
                    long t0 = System.nanoTime();
                    new TableQuality(routed, analysisThreads).measure(TracedValidity.of(routed),
                            TableQuality.defaultPatterns(routed.attachedCount()), () -> false);
                    if (w >= 2) {
                        quality[w - 2] = (System.nanoTime() - t0) / 1e6;
                    }
                }
                Fabric withoutSpine = fabric.withoutSwitches(List.of(spine));
                RoutingOutcome repaired = routing.route(new RoutingJob(2, withoutSpine, outcome.tables(),
                        outcome.fingerprint())).get(10, TimeUnit.MINUTES);
                ActiveRouting repair = new ActiveRouting(2, withoutSpine, repaired.fingerprint(), repaired.tables(),
                        "dmodc", repaired.millis(), true, 0, false, null, repaired.churn(), repaired.repaired());
                double[][] estimate = new double[3][runs];
                long[] differ = new long[2];
                for (int w = 0; w < 2 + runs; w++) {
                    try (RebalanceEstimator estimator = new RebalanceEstimator(routing, analysisThreads)) {
                        long t0 = System.nanoTime();
                        RebalanceEstimate e = estimator.estimate(repair, null).get(10, TimeUnit.MINUTES);
                        if (w >= 2) {
                            estimate[0][w - 2] = (System.nanoTime() - t0) / 1e6;
                            estimate[1][w - 2] = e.routingMs();
                            estimate[2][w - 2] = e.analysisMs();
                        }
                        differ[0] = e.changedEntries();
                        differ[1] = e.changedBlocks();
                    }
                }
                System.out.printf("%n%s: %d switches, %d nodes; %d processors (routing %d threads, analyses %d); %d warm runs%n",
                        spec, fabric.switches().size(), fabric.nodes().size(), processors, processors, analysisThreads, runs);
                System.out.println("| what | total median (min–max) | routing | comparison + quality | changed entries | changed blocks |");
                System.out.println("|---|---:|---:|---:|---:|---:|");
                for (int k = 0; k < 2; k++) {
                    System.out.printf("| what-if, %s | %s | %s | %s | %,d | %,d |%n", names[k], stats(ms[k][0]),
                            stats(ms[k][1]), stats(ms[k][2]), changed[k][0], changed[k][1]);
                }
                System.out.printf("| quality after a routing (%s) | %s | | | | |%n",
                        TableQuality.defaultPatterns(routed.attachedCount()), stats(quality));
                System.out.printf("| rebalance estimate of a spine's repair (both tables' quality) | %s | %s | %s | %,d | %,d |%n",
                        stats(estimate[0]), stats(estimate[1]), stats(estimate[2]), differ[0], differ[1]);
            } finally {
                executor.shutdownNow();
            }
        }
    }

    private static String stats(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return String.format("%.1f ms (%.1f–%.1f)", median, v[0], v[v.length - 1]);
    }
}
