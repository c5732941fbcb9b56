package org.fabricmanager.routing.dmodc;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what each of {@link DmodcEngine}'s shortcuts
 * ({@link DmodcShortcuts}) saves, measured side by side. For each fabric, an engine with every shortcut
 * and one engine per shortcut with that one off route the same fabric in rounds; each round runs every
 * engine once, in an order rotated from round to round, so that load on a shared machine falls on all
 * alike. Printed per shortcut and fabric: the median time of a routing with all shortcuts on, with this
 * one off, and the saving {@code (off - on) / on} in percent of the routing with all on (the house rule
 * removes a shortcut that saves less than 3% on every benchmark fabric).
 *
 * <p>The times are the routing thread's CPU time with one worker (the default: the calling thread does the
 * whole routing, so load on the machine moves it far less than the wall clock), or the wall clock with
 * {@code -Dfm.bench.threads=T > 1}. {@link #reroutes} does the same for re-routing: one link fault and one
 * switch fault on the most degraded fabric, re-routed from that fabric's routing with each shortcut off in
 * turn (the incremental one among them).
 *
 * <p>Run with {@code mvn -B -o -Pbench -pl routing-dmodc -am test -Dtest=ShortcutSavingsBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false -Dfm.test.jvm='-Xms6g -Xmx6g -Xmn3g -XX:+AlwaysPreTouch'}
 * ({@code -Dtest=ShortcutSavingsBenchmark#reroutes} for re-routes alone). Properties:
 * {@code -Dfm.bench.pgft=SPEC} (default {@code PGFT(3;32,32,64;1,32,32;1,1,1)}),
 * {@code -Dfm.bench.fractions=0,0.01,0.05} (links removed, as {@code bench --degrade-links F}),
 * {@code -Dfm.bench.seed=1}, {@code -Dfm.bench.repeat=7} (measured rounds, after
 * {@code -Dfm.bench.warmup=2}), {@code -Dfm.bench.threads=1}, {@code -Dfm.bench.shortcuts=splice,relatives}
 * (only these shortcuts off in turn; default all), {@code -Dfm.bench.together=a,b} (also a routing with
 * these off together).
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class ShortcutSavingsBenchmark {
    private final String spec = System.getProperty("fm.bench.pgft", "PGFT(3;32,32,64;1,32,32;1,1,1)");
    private final double[] fractions = Arrays.stream(System.getProperty("fm.bench.fractions", "0,0.01,0.05").split(","))
            .mapToDouble(Double::parseDouble).toArray();
    private final long seed = Long.getLong("fm.bench.seed", 1L);
    private final int repeat = Integer.getInteger("fm.bench.repeat", 7);
    private final int warmup = Integer.getInteger("fm.bench.warmup", 2);
    private final int threads = Integer.getInteger("fm.bench.threads", 1);
    private final ThreadMXBean clock = ManagementFactory.getThreadMXBean();

    @Test
    void routings() {
        List<DmodcShortcuts.Shortcut> measured = shortcuts();
        measured.remove(DmodcShortcuts.Shortcut.INCREMENTAL); // re-routes only: see reroutes()
        List<DmodcShortcuts> configs = configs(measured);
        List<String> lines = new ArrayList<>();
        for (double fraction : fractions) {
            FabricIndex fabric = fabric(fraction).index();
            String name = fraction == 0 ? "intact" : percent(fraction) + " of links removed";
            List<DmodcEngine> engines = engines(configs);
            try {
                double[][] times = rounds(engines.size(), e -> () -> engines.get(e).route(fabric));
                rows(lines, measured, name, times);
            } finally {
                engines.forEach(DmodcEngine::close);
            }
        }
        print("routings", lines);
    }

    @Test
    void reroutes() {
        double fraction = Arrays.stream(fractions).max().orElse(0.05);
        Fabric base = fabric(fraction);
        Random random = new Random(seed);
        List<Link> between = new ArrayList<>();
        List<Long> withNodes = new ArrayList<>();
        for (Link l : base.links()) {
            if (base.isSwitch(l.a()) && base.isSwitch(l.b())) {
                between.add(l);
            } else {
                withNodes.add(base.isSwitch(l.a()) ? l.a() : l.b());
            }
        }
        Link link = between.get(random.nextInt(between.size()));
        List<Long> inner = new ArrayList<>();
        base.switches().forEach(sw -> {
            if (!withNodes.contains(sw.guid())) {
                inner.add(sw.guid());
            }
        });
        long lostSwitch = inner.get(random.nextInt(inner.size()));
        String name = percent(fraction) + " of links removed, then ";
        List<DmodcShortcuts.Shortcut> measured = shortcuts();
        List<DmodcShortcuts> configs = configs(measured);
        List<String> lines = new ArrayList<>();
        for (int fault = 0; fault < 2; fault++) {
            FabricIndex next = fault == 0 ? base.withoutLinks(List.of(link)).index()
                    : base.withoutSwitches(List.of(lostSwitch)).index();
            String what = name + (fault == 0 ? "link " + Guids.format(link.a()) + "/" + link.aPort() + " lost"
                    : "switch " + Guids.format(lostSwitch) + " lost");
            List<DmodcEngine> engines = engines(configs);
            try {
                List<DmodcRouting> before = new ArrayList<>();
                for (DmodcEngine engine : engines) {
                    before.add(engine.compute(base.index()));
                }
                double[][] times = rounds(engines.size(), e -> () -> engines.get(e).reroute(next, before.get(e)));
                rows(lines, measured, what, times);
            } finally {
                engines.forEach(DmodcEngine::close);
            }
        }
        print("re-routes", lines);
    }

    /**
     * All shortcuts, then each measured one off, then (with {@code -Dfm.bench.together=a,b}) those named off together:
     * what removing several shortcuts at once would cost.
     */
    private static List<DmodcShortcuts> configs(List<DmodcShortcuts.Shortcut> measured) {
        List<DmodcShortcuts> configs = new ArrayList<>();
        configs.add(DmodcShortcuts.ALL);
        for (DmodcShortcuts.Shortcut s : measured) {
            configs.add(DmodcShortcuts.ALL.without(s));
        }
        List<DmodcShortcuts.Shortcut> together = together();
        if (!together.isEmpty()) {
            DmodcShortcuts c = DmodcShortcuts.ALL;
            for (DmodcShortcuts.Shortcut s : together) {
                c = c.without(s);
            }
            configs.add(c);
        }
        return configs;
    }

    private static void rows(List<String> lines, List<DmodcShortcuts.Shortcut> measured, String fabric, double[][] times) {
        for (int i = 0; i < measured.size(); i++) {
            lines.add(row(measured.get(i).option(), fabric, times[0], times[i + 1]));
        }
        List<DmodcShortcuts.Shortcut> together = together();
        if (!together.isEmpty()) {
            lines.add(row(String.join(" + ", together.stream().map(DmodcShortcuts.Shortcut::option).toList()), fabric,
                    times[0], times[measured.size() + 1]));
        }
    }

    private static List<DmodcShortcuts.Shortcut> together() {
        List<String> names = Arrays.asList(System.getProperty("fm.bench.together", "").split(","));
        return Arrays.stream(DmodcShortcuts.Shortcut.values()).filter(s -> names.contains(s.option())).toList();
    }

    /** Per configuration the times of the measured rounds, each round running every configuration once, rotated. */
    private double[][] rounds(int configs, IntFunction<Supplier<Object>> run) {
        double[][] times = new double[configs][repeat];
        for (int round = -warmup; round < repeat; round++) {
            for (int j = 0; j < configs; j++) {
                int e = Math.floorMod(j + round, configs);
                System.gc();
                long c0 = clock.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                Object result = run.apply(e).get();
                long t1 = System.nanoTime();
                long c1 = clock.getCurrentThreadCpuTime();
                if (result == null) {
                    throw new AssertionError("no routing");
                }
                if (round >= 0) {
                    times[e][round] = (threads == 1 ? c1 - c0 : t1 - t0) / 1e6;
                }
            }
        }
        return times;
    }

    private List<DmodcEngine> engines(List<DmodcShortcuts> configs) {
        List<DmodcEngine> engines = new ArrayList<>();
        for (DmodcShortcuts c : configs) {
            engines.add(new DmodcEngine(threads, false, c));
        }
        return engines;
    }

    private static List<DmodcShortcuts.Shortcut> shortcuts() {
        String only = System.getProperty("fm.bench.shortcuts", "");
        List<DmodcShortcuts.Shortcut> list = new ArrayList<>();
        for (DmodcShortcuts.Shortcut s : DmodcShortcuts.Shortcut.values()) {
            if (only.isBlank() || Arrays.asList(only.split(",")).contains(s.option())) {
                list.add(s);
            }
        }
        return list;
    }

    private Fabric fabric(double fraction) {
        return Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)), DegradationPlan.random(fraction, 0, seed));
    }

    private static String row(String shortcut, String fabric, double[] on, double[] off) {
        double a = median(on);
        double b = median(off);
        return String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f | %.1f |", shortcut, fabric, a, b, 100 * (b - a) / a);
    }

    private void print(String what, List<String> lines) {
        System.out.printf(Locale.ROOT, "%s, %s: %s, %d interleaved rounds after %d warm-up, seed %d%n", spec, what,
                threads == 1 ? "CPU ms of the one routing thread" : "wall ms on " + threads + " threads", repeat, warmup,
                seed);
        System.out.println("| shortcut | fabric | median all on | median this off | saving % of all on |");
        System.out.println("|---|---|---:|---:|---:|");
        lines.forEach(System.out::println);
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%s%%", fraction * 100 == Math.rint(fraction * 100)
                ? String.valueOf((long) (fraction * 100)) : String.valueOf(fraction * 100));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
