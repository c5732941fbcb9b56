package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark sweep (not part of the test suite): load balance of {@code dmodc} against the
 * {@code minhop} and {@code updn} re-implementations of OpenSM's engines, over many randomly degraded
 * PGFTs. For each spec, degradation level and seed, the canonical fabric is degraded exactly as
 * {@code quality --pgft SPEC --degrade-links F [--degrade-switches K] --seed S} does
 * ({@link Degrader} with {@link DegradationPlan#random}), routed by each engine and judged by
 * {@link CongestionAnalyzer}: shift max and mean over all N-1 shifts, max and mean over the 100
 * random permutations of {@code random:100:1}, the all-to-all max, and the {@link ShiftCutBound}
 * that no routing can beat. Prints markdown tables per spec (one row per level) and, per level and
 * figure, the seed on which dmodc loses most to the better of the other two, with the
 * {@code quality} command that reproduces it. OpenSM's {@code ftree} is not implemented here, so it
 * is not in the comparison.
 *
 * <p>Run with {@code mvn -B -q -pl routing-dmodc -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=LoadBalanceSweepBenchmark -Dfm.bench=true}; {@code -Dfm.bench.seeds=N} (default 20),
 * {@code -Dfm.bench.specs='SPEC|SPEC'} to sweep other fabrics, {@code -Dfm.bench.verbose=true} for one line
 * per fabric. Figures go to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class LoadBalanceSweepBenchmark {
    static final List<String> DEFAULT_SPECS = List.of(
            "PGFT(2;16,32;1,16;1,1)",
            "PGFT(3;8,8,16;1,8,8;1,1,1)",
            "PGFT(3;8,8,16;1,4,8;1,2,1)",
            "PGFT(3;16,16,16;1,16,16;1,1,1)");
    static final List<String> ENGINES = List.of("dmodc", "minhop", "updn");
    static final TrafficPattern.RandomPermutations RANDOM = new TrafficPattern.RandomPermutations(100, 1);
    static final int THREADS = 2;

    /** A degradation level: a fraction of the switch-to-switch links and a number of non-leaf switches. */
    record Level(double links, int switches) {
        String label() {
            String l = String.format(Locale.ROOT, "%s%% links", percent(links));
            return switches == 0 ? l : l + " + " + switches + " switches";
        }

        String options() {
            String o = "--degrade-links " + decimal(links);
            return switches == 0 ? o : o + " --degrade-switches " + switches;
        }
    }

    static final List<Level> LEVELS = List.of(new Level(0.01, 0), new Level(0.05, 0), new Level(0.10, 0),
            new Level(0.05, 4));

    /** One engine's figures on one fabric. */
    record Figures(boolean valid, long shiftMax, double shiftMean, long randomMax, double randomMean,
                   long allToAllMax) {
    }

    /** All engines on one degraded fabric (figures in {@link #ENGINES} order). */
    record Case(long seed, long cutBound, Figures[] engines) {
        boolean allValid() {
            for (Figures f : engines) {
                if (!f.valid()) {
                    return false;
                }
            }
            return true;
        }
    }

    @Test
    void sweep() {
        int seeds = Integer.getInteger("fm.bench.seeds", 20);
        boolean verbose = Boolean.getBoolean("fm.bench.verbose");
        String specsProperty = System.getProperty("fm.bench.specs");
        List<String> specs = specsProperty == null ? DEFAULT_SPECS : Arrays.asList(specsProperty.split("\\|"));
        System.out.printf(Locale.ROOT, "machine: %d cores, %s %s; seeds 1..%d; random = %s%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), seeds, RANDOM);
        long t0 = System.nanoTime();
        Map<String, RoutingEngine> engines = new LinkedHashMap<>();
        try {
            for (String name : ENGINES) {
                engines.put(name, RoutingEngines.create(name, THREADS));
            }
            for (String text : specs) {
                PgftSpec spec = PgftSpec.parse(text);
                Fabric canonical = PgftGenerator.generate(spec);
                Map<Level, List<Case>> results = new LinkedHashMap<>();
                for (Level level : LEVELS) {
                    List<Case> cases = new ArrayList<>();
                    for (long seed = 1; seed <= seeds; seed++) {
                        Fabric fabric = Degrader.degrade(canonical,
                                DegradationPlan.random(level.links(), level.switches(), seed));
                        Case c = evaluate(spec, fabric.index(), seed, engines);
                        if (verbose) {
                            System.out.println(spec + " " + level.label() + " " + describe(c));
                        }
                        cases.add(c);
                    }
                    results.put(level, cases);
                }
                print(spec, results);
            }
        } finally {
            engines.values().forEach(RoutingEngine::close);
        }
        System.out.printf(Locale.ROOT, "sweep took %.0f s%n", (System.nanoTime() - t0) / 1e9);
    }

    private static Case evaluate(PgftSpec spec, FabricIndex index, long seed, Map<String, RoutingEngine> engines) {
        Figures[] figures = new Figures[ENGINES.size()];
        int e = 0;
        for (RoutingEngine engine : engines.values()) {
            RoutingResult result = engine.route(index);
            CongestionAnalyzer analyzer = new CongestionAnalyzer(RoutedFabric.of(index, result.tables()), THREADS);
            PatternCongestion shift = analyzer.analyze(new TrafficPattern.Shift());
            PatternCongestion random = analyzer.analyze(RANDOM);
            PatternCongestion all = analyzer.analyze(new TrafficPattern.AllToAll());
            figures[e++] = new Figures(result.validity().isValid(), shift.max(), shift.mean(), random.max(),
                    random.mean(), all.max());
        }
        return new Case(seed, ShiftCutBound.of(spec, index), figures);
    }

    private static String describe(Case c) {
        StringBuilder sb = new StringBuilder("seed " + c.seed() + " cut " + c.cutBound() + ":");
        for (int e = 0; e < ENGINES.size(); e++) {
            Figures f = c.engines()[e];
            sb.append(String.format(Locale.ROOT, " %s%s shift %d/%.3f random %d/%.3f all2all %d", ENGINES.get(e),
                    f.valid() ? "" : " (invalid)", f.shiftMax(), f.shiftMean(), f.randomMax(), f.randomMean(),
                    f.allToAllMax()));
        }
        return sb.toString();
    }

    // ---- report -------------------------------------------------------------------------------

    /** One figure of an engine's result, by name. */
    record Figure(String name, ToDoubleFunction<Figures> value) {
        double of(Figures f) {
            return value.applyAsDouble(f);
        }
    }

    private static final Figure SHIFT_MAX = new Figure("shift max", Figures::shiftMax);
    private static final Figure SHIFT_MEAN = new Figure("shift mean", Figures::shiftMean);
    private static final Figure RANDOM_MAX = new Figure("random max", Figures::randomMax);
    private static final Figure RANDOM_MEAN = new Figure("random mean", Figures::randomMean);
    private static final Figure ALL2ALL_MAX = new Figure("all2all max", Figures::allToAllMax);

    private static void print(PgftSpec spec, Map<Level, List<Case>> results) {
        System.out.println();
        System.out.println("### " + spec + " (" + spec.nodeCount() + " nodes, " + spec.totalSwitchCount()
                + " switches)");
        System.out.println();
        System.out.println("Each engine's figures over the seeds: median (max in parentheses); cut = the shift "
                + "congestion no routing can beat.");
        System.out.println();
        System.out.println("| removed | fabrics | cut | dmodc shift max | minhop shift max | updn shift max "
                + "| dmodc shift mean | minhop shift mean | updn shift mean "
                + "| dmodc random max | minhop random max | updn random max |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (Map.Entry<Level, List<Case>> entry : results.entrySet()) {
            List<Case> cases = compared(entry.getValue());
            StringBuilder row = new StringBuilder("| " + entry.getKey().label() + " | " + fabrics(entry.getValue())
                    + " | " + medianMax(cases, c -> c.cutBound(), false));
            for (Figure m : List.of(SHIFT_MAX, SHIFT_MEAN, RANDOM_MAX)) {
                for (int e = 0; e < ENGINES.size(); e++) {
                    int engine = e;
                    row.append(" | ").append(medianMax(cases, c -> m.of(c.engines()[engine]), m == SHIFT_MEAN));
                }
            }
            System.out.println(row.append(" |"));
        }
        System.out.println();
        System.out.println("dmodc against the better of minhop and updn on each fabric: worse / equal / better.");
        System.out.println();
        System.out.println("| removed | shift max | shift mean | random max | random mean | all2all max "
                + "| dmodc shift max = cut | dmodc's largest loss (dmodc against the better other) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        List<String> commands = new ArrayList<>();
        for (Map.Entry<Level, List<Case>> entry : results.entrySet()) {
            List<Case> cases = compared(entry.getValue());
            long atCut = cases.stream().filter(c -> c.engines()[0].shiftMax() == c.cutBound()).count();
            StringBuilder row = new StringBuilder("| " + entry.getKey().label());
            for (Figure m : List.of(SHIFT_MAX, SHIFT_MEAN, RANDOM_MAX, RANDOM_MEAN, ALL2ALL_MAX)) {
                row.append(" | ").append(tally(cases, m));
            }
            row.append(" | ").append(atCut).append(" of ").append(cases.size());
            List<String> losses = new ArrayList<>();
            for (Figure figure : List.of(SHIFT_MAX, RANDOM_MAX, ALL2ALL_MAX)) {
                Case w = worst(cases, figure);
                if (w != null) {
                    losses.add(String.format(Locale.ROOT, "%s: seed %d, %s against %s", figure.name(), w.seed(),
                            number(figure.of(w.engines()[0])), number(best(w, figure))));
                    commands.add(String.format(Locale.ROOT, "%s, %s, largest %s loss: %s", spec,
                            entry.getKey().label(), figure.name(), command(spec, entry.getKey(), w.seed())));
                }
            }
            row.append(" | ").append(losses.isEmpty() ? "none" : String.join("; ", losses));
            System.out.println(row.append(" |"));
        }
        System.out.println();
        commands.forEach(System.out::println);
    }

    static String command(PgftSpec spec, Level level, long seed) {
        return "bin/fabric-manager quality --pgft '" + spec + "' " + level.options() + " --seed " + seed
                + " --engines dmodc,minhop,updn --patterns shift," + RANDOM + ",all2all";
    }

    /** The cases every engine routed completely: only those are compared (unrouted pairs carry no load). */
    private static List<Case> compared(List<Case> cases) {
        return cases.stream().filter(Case::allValid).toList();
    }

    private static String fabrics(List<Case> cases) {
        long invalid = cases.stream().filter(c -> !c.allValid()).count();
        return invalid == 0 ? Integer.toString(cases.size()) : cases.size() - invalid + " (+" + invalid + " invalid)";
    }

    private static String medianMax(List<Case> cases, ToDoubleFunction<Case> f, boolean decimals) {
        if (cases.isEmpty()) {
            return "-";
        }
        double[] v = cases.stream().mapToDouble(f).sorted().toArray();
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return decimals ? String.format(Locale.ROOT, "%.2f (%.2f)", median, v[n - 1])
                : String.format(Locale.ROOT, "%s (%s)", number(median), number(v[n - 1]));
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    /** The better (lower) of the non-dmodc engines' figure. */
    private static double best(Case c, Figure m) {
        double best = Double.MAX_VALUE;
        for (int e = 1; e < ENGINES.size(); e++) {
            best = Math.min(best, m.of(c.engines()[e]));
        }
        return best;
    }

    private static String tally(List<Case> cases, Figure m) {
        int worse = 0;
        int equal = 0;
        int better = 0;
        for (Case c : cases) {
            double d = m.of(c.engines()[0]);
            double b = best(c, m);
            // means are computed alike from integer sums over the same N-1 permutations: equal sums, equal doubles
            if (d == b) {
                equal++;
            } else if (d > b) {
                worse++;
            } else {
                better++;
            }
        }
        return worse + " / " + equal + " / " + better;
    }

    /** The case where dmodc's figure exceeds the better other engine's by most (lowest seed on ties), or null. */
    private static Case worst(List<Case> cases, Figure m) {
        Case worst = null;
        double loss = 0;
        for (Case c : cases) {
            double l = m.of(c.engines()[0]) - best(c, m);
            if (l > loss) {
                loss = l;
                worst = c;
            }
        }
        return worst;
    }

    private static String percent(double fraction) {
        return number(Math.round(fraction * 1000) / 10.0);
    }

    private static String decimal(double v) {
        return String.format(Locale.ROOT, "%s", v);
    }
}
