package org.fabricmanager.routing.analysis;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableRepairer;
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
 * Benchmark (not part of the test suite): the balance of engines side by side on the seeded degradations of
 * one PGFT, as {@code quality --pgft SPEC --degrade-links F --seed S --engines E --patterns shift,random:10,all2all}
 * reports them (one line per fabric and engine: shift max and mean, random mean and max, all-to-all max, routing
 * ms), then per engine the minimum, median and maximum over the fabrics and, for every engine after the first,
 * on how many fabrics each figure is below, equal to or above the first engine's and the last engine's.
 * {@code time} routes one larger fabric with each engine, interleaved, on one routing thread (wall and CPU).
 * {@code weighted} compares {@code dmodc-home} with its tables balanced by load ({@link LoadMoves}) on
 * {@code fm.bench.seeds} (default {@code 1-5}) over {@code random:2000:1234}, {@code shiftKept} the same with the
 * moves held to Dmodc's shift maximum; {@code refinedRepairs} its repairs
 * of the intact tree's routing for the same fabrics, refined or not ({@code -Dfm.bench.figures=false}: only the time
 * of the last of {@code fm.bench.repeat} refinements).
 *
 * <p>Run with {@code mvn -B -o -q -pl routing-dmodc -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=BalanceSweepBenchmark#sweep -Dfm.bench=true}; {@code -Dfm.bench.pgft=SPEC} (default
 * {@code PGFT(3;16,16,16;1,16,16;1,1,1)}), {@code -Dfm.bench.fraction=0.05}, {@code -Dfm.bench.switches=0} (random non-leaf switches removed too), {@code -Dfm.bench.seeds=1-20} (or {@code 3,6,12}),
 * {@code -Dfm.bench.engines=dmodc,dmodc-home,sssp}, {@code -Dfm.bench.random=random:200:99} (default
 * {@code random:10}, as the docs' figures). {@code -Dtest=BalanceSweepBenchmark#time} with
 * {@code -Dfm.bench.timePgft=SPEC} (default {@code PGFT(3;32,32,64;1,32,32;1,1,1)}), {@code -Dfm.bench.repeat=7}, {@code -Dfm.bench.warmups=2},
 * {@code -Dfm.bench.timeEngines=dmodc,dmodc-home}, {@code -Dfm.bench.timeThreads=1} and
 * {@code -Dfm.test.jvm='-Xms6g -Xmx6g -Xmn3g'}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class BalanceSweepBenchmark {
    private static final int THREADS = 2;
    private static final String HOME = "dmodc-home";

    /** One engine's figures on one fabric. */
    record Figures(long shiftMax, double shiftMean, double randomMean, long randomMax, long allToAllMax,
                   double millis, boolean valid) {
        double get(int i) {
            return switch (i) {
                case 0 -> shiftMax;
                case 1 -> shiftMean;
                case 2 -> randomMean;
                case 3 -> randomMax;
                default -> allToAllMax;
            };
        }
    }

    private static final String[] NAMES = {"shift max", "shift mean", "random mean", "random max", "all2all max"};

    @Test
    void sweep() {
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;16,16,16;1,16,16;1,1,1)");
        double fraction = Double.parseDouble(System.getProperty("fm.bench.fraction", "0.05"));
        int switches = Integer.getInteger("fm.bench.switches", 0);
        long[] seeds = seeds(System.getProperty("fm.bench.seeds", "1-20"));
        List<String> names = Arrays.asList(System.getProperty("fm.bench.engines", "dmodc,dmodc-home,sssp").split(","));
        TrafficPattern random = TrafficPattern.parse(System.getProperty("fm.bench.random", "random:10"));
        Fabric canonical = PgftGenerator.generate(PgftSpec.parse(spec));
        List<Figures[]> all = new ArrayList<>();
        System.out.printf(Locale.ROOT, "%s, %s of links and %d switches removed, seeds %s, %s%n", spec, fraction,
                switches, Arrays.toString(seeds), random);
        for (long seed : seeds) {
            FabricIndex index = Degrader.degrade(canonical, DegradationPlan.random(fraction, switches, seed)).index();
            Figures[] row = new Figures[names.size()];
            for (int e = 0; e < row.length; e++) {
                try (RoutingEngine engine = RoutingEngines.create(names.get(e), THREADS)) {
                    long t0 = System.nanoTime();
                    RoutingResult result = engine.route(index);
                    double ms = (System.nanoTime() - t0) / 1e6;
                    CongestionAnalyzer analyzer = new CongestionAnalyzer(RoutedFabric.of(index, result.tables()), THREADS);
                    PatternCongestion shift = analyzer.analyze(new TrafficPattern.Shift());
                    PatternCongestion r = analyzer.analyze(random);
                    PatternCongestion a = analyzer.analyze(new TrafficPattern.AllToAll());
                    row[e] = new Figures(shift.max(), shift.mean(), r.mean(), r.max(), a.max(), ms,
                            result.validity().isValid() && shift.unroutedPairs() == 0 && a.unroutedPairs() == 0);
                    System.out.printf(Locale.ROOT, "seed %2d %-15s shift %2d %.3f  random %.3f (max %d)  all2all %,6d  %,8.1f ms%s%n",
                            seed, names.get(e), shift.max(), shift.mean(), r.mean(), r.max(), a.max(), ms,
                            row[e].valid() ? "" : "  INVALID");
                }
            }
            all.add(row);
        }
        for (int e = 0; e < names.size(); e++) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-15s", names.get(e)));
            for (int f = 0; f < NAMES.length; f++) {
                double[] v = new double[all.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = all.get(i)[e].get(f);
                }
                Arrays.sort(v);
                sb.append(String.format(Locale.ROOT, " | %s %s / %s / %s", NAMES[f], v[0], v[v.length / 2], v[v.length - 1]));
            }
            System.out.println(sb);
        }
        for (int e = 1; e < names.size(); e++) {
            for (int against : new int[] {0, names.size() - 1}) {
                if (against == e) {
                    continue;
                }
                StringBuilder sb = new StringBuilder(names.get(e) + " against " + names.get(against) + " (below/equal/above):");
                for (int f = 0; f < NAMES.length; f++) {
                    int below = 0;
                    int equal = 0;
                    int above = 0;
                    for (Figures[] row : all) {
                        int c = Double.compare(row[e].get(f), row[against].get(f));
                        if (c < 0) {
                            below++;
                        } else if (c == 0) {
                            equal++;
                        } else {
                            above++;
                        }
                    }
                    sb.append(String.format(Locale.ROOT, " %s %d/%d/%d;", NAMES[f], below, equal, above));
                }
                System.out.println(sb);
            }
        }
    }

    /** {@code 1-20} or {@code 3,6,12}. */
    private static long[] seeds(String text) {
        if (text.contains("-")) {
            String[] range = text.split("-");
            long first = Long.parseLong(range[0]);
            return LongStream.rangeClosed(first, Long.parseLong(range[1])).toArray();
        }
        return Arrays.stream(text.split(",")).mapToLong(Long::parseLong).toArray();
    }

    @Test
    void time() {
        String spec = System.getProperty("fm.bench.timePgft", "PGFT(3;32,32,64;1,32,32;1,1,1)");
        double fraction = Double.parseDouble(System.getProperty("fm.bench.fraction", "0.05"));
        long seed = Long.getLong("fm.bench.seed", 1L);
        int repeat = Integer.getInteger("fm.bench.repeat", 7);
        int warmups = Integer.getInteger("fm.bench.warmups", 2);
        List<String> names = Arrays.asList(System.getProperty("fm.bench.timeEngines", "dmodc,dmodc-home").split(","));
        FabricIndex index = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                DegradationPlan.random(fraction, 0, seed)).index();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[][] wall = new double[names.size()][repeat];
        double[][] cpu = new double[names.size()][repeat];
        List<RoutingEngine> engines = new ArrayList<>();
        try {
            for (String name : names) {
                engines.add(RoutingEngines.create(name, Integer.getInteger("fm.bench.timeThreads", 1)));
            }
            for (int round = -warmups; round < repeat; round++) {
                for (int e = 0; e < engines.size(); e++) {
                    System.gc();
                    long c0 = threads.getCurrentThreadCpuTime();
                    long t0 = System.nanoTime();
                    RoutingResult result = engines.get(e).route(index);
                    long t1 = System.nanoTime();
                    long c1 = threads.getCurrentThreadCpuTime();
                    if (round >= 0) {
                        wall[e][round] = (t1 - t0) / 1e6;
                        cpu[e][round] = (c1 - c0) / 1e6;
                    }
                    if (round == repeat - 1) {
                        System.out.println(names.get(e) + " phases: " + result.timings().phases());
                    }
                }
            }
        } finally {
            engines.forEach(RoutingEngine::close);
        }
        System.out.printf(Locale.ROOT, "%s, %s of links removed (seed %d), %d routing threads, %d interleaved runs after"
                + " %d warm-up rounds%n", spec, fraction, seed, Integer.getInteger("fm.bench.timeThreads", 1), repeat,
                warmups);
        for (int e = 0; e < names.size(); e++) {
            double[] w = wall[e].clone();
            double[] c = cpu[e].clone();
            Arrays.sort(w);
            Arrays.sort(c);
            System.out.printf(Locale.ROOT, "%-15s wall median %.1f ms (%.1f-%.1f), CPU median %.1f ms (%.1f-%.1f)%n",
                    names.get(e), w[repeat / 2], w[0], w[repeat - 1], c[repeat / 2], c[0], c[repeat - 1]);
        }
    }

    /**
     * What balancing by load would give (an experiment, {@link LoadMoves}): per fabric, {@code dmodc-home}'s figures,
     * then after moves by each level-1 switch alone, then after moves by each pod's leaves together first.
     */
    @Test
    void weighted() {
        TrafficPattern random = TrafficPattern.parse(System.getProperty("fm.bench.random", "random:2000:1234"));
        for (long seed : seeds(System.getProperty("fm.bench.seeds", "1-5"))) {
            FabricIndex index = degraded(seed);
            ForwardingTables home = routed(HOME, index).tables();
            LoadMoves alone = new LoadMoves(index, home);
            while (alone.switchRound(1) > 0) {
                // until no level-1 switch has a move that lowers a bottleneck
            }
            LoadMoves pods = new LoadMoves(index, home);
            for (int round = 0; round < 2 && pods.podRound() > 0; round++) {
                // two rounds: later ones move little
            }
            while (pods.switchRound(1) > 0) {
                // as above
            }
            System.out.printf(Locale.ROOT, "seed %2d %s%n        level 1 alone %s%n        pods, level 1 %s%n", seed,
                    figures(index, home, random), figures(index, alone.tables(), random),
                    figures(index, pods.tables(), random));
        }
    }

    /**
     * As {@link #weighted}, the moves limited so that no link carries more routes of any shift permutation than
     * Dmodc's shift maximum on the same fabric ({@link LoadMoves#limitShift}).
     */
    @Test
    void shiftKept() {
        TrafficPattern random = TrafficPattern.parse(System.getProperty("fm.bench.random", "random:2000:1234"));
        for (long seed : seeds(System.getProperty("fm.bench.seeds", "1-5"))) {
            FabricIndex index = degraded(seed);
            int cap = (int) new CongestionAnalyzer(routed("dmodc", index), THREADS)
                    .analyze(new TrafficPattern.Shift()).max();
            ForwardingTables home = routed(HOME, index).tables();
            long t0 = System.nanoTime();
            LoadMoves alone = new LoadMoves(index, home);
            alone.limitShift(cap);
            while (alone.switchRound(1) > 0) {
                // until no level-1 switch has a move that lowers a bottleneck within the cap
            }
            long t1 = System.nanoTime();
            LoadMoves pods = new LoadMoves(index, home);
            pods.limitShift(cap);
            for (int round = 0; round < 2 && pods.podRound() > 0; round++) {
                // two rounds, as weighted's
            }
            while (pods.switchRound(1) > 0) {
                // as above
            }
            long t2 = System.nanoTime();
            LoadMoves alternating = new LoadMoves(index, home);
            alternating.limitShift(cap);
            for (int round = 0; round < 10 && alternating.podRound() + alternating.switchRound(1) > 0; round++) {
                // pods and level-1 switches in turn until neither moves (at most ten rounds)
            }
            long t3 = System.nanoTime();
            System.out.printf(Locale.ROOT, "seed %2d cap %d %s%n        level 1 alone %s (%.0f ms)%n"
                            + "        pods, level 1 %s (%.0f ms)%n        alternating %s (%.0f ms)%n", seed, cap,
                    figures(index, home, random), figures(index, alone.tables(), random), (t1 - t0) / 1e6,
                    figures(index, pods.tables(), random), (t2 - t1) / 1e6,
                    figures(index, alternating.tables(), random), (t3 - t2) / 1e6);
        }
    }

    /**
     * Repairs refined ({@code TableRepairer#refine}): per fabric of the sweep, {@code dmodc-home}'s full routing of the
     * intact tree repaired for it (every fault at once, as the daemon repairs from its base), the repair refined, and
     * the full routing of the fabric, with the entries each changes against the base and the refinement's time.
     */
    @Test
    void refinedRepairs() {
        TrafficPattern random = TrafficPattern.parse(System.getProperty("fm.bench.random", "random:2000:1234"));
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;16,16,16;1,16,16;1,1,1)");
        FabricIndex whole = PgftGenerator.generate(PgftSpec.parse(spec)).index();
        try (RoutingEngine engine = RoutingEngines.create(HOME, THREADS)) {
            RoutedSnapshot base = engine.routeSnapshot(whole);
            TableRepairer repairer = engine.repairer().orElseThrow();
            for (long seed : seeds(System.getProperty("fm.bench.seeds", "1-5"))) {
                FabricIndex index = degraded(seed);
                RoutedSnapshot repaired = repairer.repair(base, index);
                RoutedSnapshot refined = null;
                double ms = 0;
                for (int run = 0; run < Integer.getInteger("fm.bench.repeat", 1); run++) {
                    long t0 = System.nanoTime();
                    refined = repairer.refine(base.result().tables(), repaired).orElseThrow();
                    ms = (System.nanoTime() - t0) / 1e6; // the last run's: the earlier ones warm up
                }
                ForwardingTables full = engine.route(index).tables();
                if (!Boolean.parseBoolean(System.getProperty("fm.bench.figures", "true"))) {
                    System.out.printf(Locale.ROOT, "seed %2d, refined in %.0f ms%n", seed, ms);
                    continue;
                }
                ForwardingTables b = base.result().tables();
                System.out.printf(Locale.ROOT, "seed %2d, refined in %.0f ms; entries changed: repair %,d, refined %,d,"
                        + " full %,d%n  repair  %s%n  refined %s%n  full    %s%n", seed, ms,
                        changed(whole, b, index, repaired.result().tables()),
                        changed(whole, b, index, refined.result().tables()), changed(whole, b, index, full),
                        figures(index, repaired.result().tables(), random),
                        figures(index, refined.result().tables(), random), figures(index, full, random));
            }
        }
    }

    /**
     * As {@link #refinedRepairs}, from the full routing of each degraded fabric instead of the intact tree's: more
     * faults on it ({@code fm.bench.moreLinks}, default 0.01 of its links, and {@code fm.bench.moreSwitches}, default
     * 0), repaired, refined, and that fabric's full routing.
     */
    @Test
    void refinedFromDegraded() {
        TrafficPattern random = TrafficPattern.parse(System.getProperty("fm.bench.random", "random:2000:1234"));
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;16,16,16;1,16,16;1,1,1)");
        double fraction = Double.parseDouble(System.getProperty("fm.bench.fraction", "0.05"));
        double moreLinks = Double.parseDouble(System.getProperty("fm.bench.moreLinks", "0.01"));
        int moreSwitches = Integer.getInteger("fm.bench.moreSwitches", 0);
        try (RoutingEngine engine = RoutingEngines.create(HOME, THREADS)) {
            TableRepairer repairer = engine.repairer().orElseThrow();
            for (long seed : seeds(System.getProperty("fm.bench.seeds", "1-5"))) {
                Fabric first = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                        DegradationPlan.random(fraction, 0, seed));
                RoutedSnapshot base = engine.routeSnapshot(first.index());
                FabricIndex index = Degrader.degrade(first, DegradationPlan.random(moreLinks, moreSwitches,
                        seed + 1000)).index();
                RoutedSnapshot repaired = repairer.repair(base, index);
                ForwardingTables refined = repairer.refine(base.result().tables(), repaired)
                        .map(r -> r.result().tables()).orElse(repaired.result().tables());
                System.out.printf(Locale.ROOT, "seed %2d%n  repair  %s%n  refined %s%n  full    %s%n", seed,
                        figures(index, repaired.result().tables(), random), figures(index, refined, random),
                        figures(index, engine.route(index).tables(), random));
            }
        }
    }

    /** Entries of {@code tables} (for {@code index}) whose port differs from {@code base}'s (for {@code whole}). */
    private static long changed(FabricIndex whole, ForwardingTables base, FabricIndex index, ForwardingTables tables) {
        long n = 0;
        for (int s = 0; s < index.switchCount(); s++) {
            int b = whole.switchId(index.switchGuid(s));
            for (int d = 0; d < tables.destinationCount(); d++) {
                n += b < 0 || tables.port(s, d) != base.port(b, d) ? 1 : 0;
            }
        }
        return n;
    }

    private static String figures(FabricIndex index, ForwardingTables tables, TrafficPattern random) {
        CongestionAnalyzer analyzer = new CongestionAnalyzer(RoutedFabric.of(index, tables), THREADS);
        PatternCongestion a = analyzer.analyze(new TrafficPattern.AllToAll());
        return String.format(Locale.ROOT, "shift %2d  random %.3f  all2all %,6d%s",
                analyzer.analyze(new TrafficPattern.Shift()).max(), analyzer.analyze(random).mean(),
                a.max(), a.unroutedPairs() == 0 ? "" : "  UNROUTED " + a.unroutedPairs());
    }

    /** The ten links with the most all-to-all load per engine on one fabric, with the ranks they join (diagnosis). */
    @Test
    void hotLinks() {
        long seed = Long.getLong("fm.bench.seed", 2L);
        FabricIndex index = degraded(seed);
        int[] ranks = Ranking.fromSources(index, index.leaves());
        for (String name : System.getProperty("fm.bench.engines", "dmodc,dmodc-home,sssp").split(",")) {
            RoutedFabric routed = routed(name, index);
            long[] loads = Boolean.getBoolean("fm.bench.shiftLinks")
                    ? new CongestionAnalyzer(routed, THREADS).linkLoads(new TrafficPattern.Shift()).loads()
                    : new CongestionAnalyzer(routed, THREADS).allToAllLoads();
            Integer[] ids = new Integer[loads.length];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = i;
            }
            Arrays.sort(ids, (a, b) -> Long.compare(loads[b], loads[a]));
            StringBuilder sb = new StringBuilder(name + ":");
            DirectedLinks links = routed.links();
            for (int i = 0; i < 12; i++) {
                int link = ids[i];
                sb.append(String.format(Locale.ROOT, " %d(%d->%d %d->%d)", loads[link], ranks[links.sourceSwitch(link)],
                        ranks[links.peerSwitch(link)], links.sourceSwitch(link), links.peerSwitch(link)));
            }
            System.out.println(sb);
        }
    }

    /**
     * Why an engine's random mean is what it is (diagnosis), on seed {@code fm.bench.seed}: per kind of link
     * (rank to rank), how many links reached each peak (0 to 10 and more routes) in any of {@code random:200:99}'s
     * permutations, and how many links carry each number of destinations (0 to 38 and more). On an intact tree a
     * link down carries one destination, so at most one route of a permutation; where sources send a destination
     * over different planes, the links down carry several, from a few sources each, and fill like the links up.
     * Engine {@code kept}: {@code dmodc-home}'s tables moved as {@link #shiftKept}'s pods, then level-1 switches.
     */
    @Test
    void randomPeaks() {
        long seed = Long.getLong("fm.bench.seed", 1L);
        FabricIndex index = degraded(seed);
        int[] ranks = Ranking.fromSources(index, index.leaves());
        for (String name : System.getProperty("fm.bench.engines", "dmodc,dmodc-home,sssp").split(",")) {
            RoutedFabric routed = name.equals("kept") ? kept(index) : routed(name, index);
            DirectedLinks links = routed.links();
            long[] peaks = new CongestionAnalyzer(routed, THREADS).linkLoads(TrafficPattern.parse("random:200:99"))
                    .loads();
            int[] destinations = destinationsPerLink(routed);
            Map<String, long[]> byKind = new TreeMap<>();
            for (int link = 0; link < links.count(); link++) {
                if (!links.isSwitchLink(link)) {
                    continue;
                }
                String kind = ranks[links.sourceSwitch(link)] + "->" + ranks[links.peerSwitch(link)];
                long[] counts = byKind.computeIfAbsent(kind, k -> new long[11 + 39]);
                counts[(int) Math.min(10, peaks[link])]++;
                counts[11 + Math.min(38, destinations[link])]++;
            }
            System.out.println(name + ", seed " + seed + ":");
            byKind.forEach((kind, counts) -> System.out.printf(Locale.ROOT, "  %s peaks %s%n  %s destinations %s%n",
                    kind, Arrays.toString(Arrays.copyOf(counts, 11)), kind,
                    Arrays.toString(Arrays.copyOfRange(counts, 11, counts.length))));
        }
    }

    /** {@code dmodc-home}'s tables after pod, then level-1 moves held to Dmodc's shift maximum ({@link #shiftKept}). */
    private static RoutedFabric kept(FabricIndex index) {
        LoadMoves moves = new LoadMoves(index, routed(HOME, index).tables());
        moves.limitShift((int) new CongestionAnalyzer(routed("dmodc", index), THREADS)
                .analyze(new TrafficPattern.Shift()).max());
        for (int round = 0; round < 2 && moves.podRound() > 0; round++) {
            // as shiftKept's
        }
        while (moves.switchRound(1) > 0) {
            // as shiftKept's
        }
        return RoutedFabric.of(index, moves.tables());
    }

    /** {@code index} routed by engine {@code name}. */
    private static RoutedFabric routed(String name, FabricIndex index) {
        try (RoutingEngine engine = RoutingEngines.create(name, THREADS)) {
            return RoutedFabric.of(index, engine.route(index).tables());
        }
    }

    /**
     * {@code fm.bench.pgft} with {@code fm.bench.fraction} of its links and {@code fm.bench.switches} switches removed
     * by {@code seed}, as the sweep's.
     */
    private static FabricIndex degraded(long seed) {
        String spec = System.getProperty("fm.bench.pgft", "PGFT(3;16,16,16;1,16,16;1,1,1)");
        double fraction = Double.parseDouble(System.getProperty("fm.bench.fraction", "0.05"));
        int switches = Integer.getInteger("fm.bench.switches", 0);
        return Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)),
                DegradationPlan.random(fraction, switches, seed)).index();
    }

    /** Per directed link, how many destinations some leaf's route crosses it towards. */
    private static int[] destinationsPerLink(RoutedFabric routed) {
        DirectedLinks links = routed.links();
        ForwardingTables tables = routed.tables();
        int[] count = new int[links.count()];
        int[] lastDestination = new int[links.count()];
        Arrays.fill(lastDestination, -1);
        int[] leafSwitches = routed.index().leaves();
        for (int i = 0; i < routed.attachedCount(); i++) {
            int d = routed.attachedDestination(i);
            int target = routed.leafOf(d);
            for (int leaf : leafSwitches) {
                // stops where an earlier leaf's walk already went: the rest of the route is the same
                for (int u = leaf, hops = 0; u != target && hops < leafSwitches.length; hops++) {
                    int port = tables.port(u, d);
                    if (port == ForwardingTables.NO_ROUTE) {
                        break;
                    }
                    int link = links.id(u, port);
                    if (lastDestination[link] == d) {
                        break;
                    }
                    lastDestination[link] = d;
                    count[link]++;
                    u = links.peerSwitch(link);
                }
            }
        }
        return count;
    }
}
