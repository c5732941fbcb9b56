package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;

/**
 * {@code bench}: times routing engines on one fabric. For each engine: one cold run (the first in
 * this JVM, JIT not warmed), then {@code --repeat} warm runs, with a full GC before each run so
 * that a collection does not land inside one; prints the median, minimum and maximum of every
 * phase and of the total, with the JVM and the core count. The fabric is built and indexed once,
 * outside the timings.
 *
 * <p>With {@code --pgft} and several {@code --degrade-links} fractions ({@code 0,0.01,0.05}), the
 * fabric is built once per fraction (same seed) and every engine routes them side by side: the warm
 * runs go round the fractions, so that a change in the machine's load falls on all of them alike,
 * and the median of each degraded fabric is given as a ratio of the first fraction's.
 */
final class BenchCommand implements Command {
    private static final List<String> DEFAULT_ENGINES = List.of("dmodc", "dmodk");

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public String summary() {
        return "time routing engines on a fabric (cold run, then median/min/max of warm runs)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager bench (--pgft SPEC [--degrade-links F[,F...]] [--degrade-switches K] [--seed S]
                                             | --topology FILE | --hdft SPEC [--fail-leaves K | --fail GUID,...] [--seed S])
                                            [--engines dmodc,dmodk] [--repeat R] [--threads T] [--json]
                                            [--reroute leaf-link,top-link,top-switch [--faults N]] [--lmc N]
                  Runs each engine once cold, then R times warm, and prints per phase and in total the
                  cold time and the median, minimum and maximum of the warm runs (milliseconds).
                  With several --degrade-links fractions (e.g. 0,0.01,0.05), routes one fabric per
                  fraction side by side (warm runs interleaved) and prints each median total and
                  routes phase as a ratio of the first fraction's.
                  With --reroute, times instead what one fault costs: N faults of each kind (a leaf's
                  link up, a top switch's link, a top switch), each routed from scratch and re-routed
                  from the fault-free routing, R rounds interleaved (engines default to dmodc).
                %s
                  --engines LIST           engines to time, in order (default dmodc,dmodk; with the default,
                                           dmodk is skipped on a fabric it refuses)
                  --repeat R               warm runs per engine (default 10)
                  --threads T              routing threads (default: available processors, %d here)
                  --reroute KINDS          time single faults re-routed against routed from scratch
                  --faults N               with --reroute: faults of each kind (default 3)
                  --lmc N                  every end port answers to 2^N LIDs (OpenSM's lmc, 0..7), each a destination
                  --json                   print one JSON object instead of the table""".formatted(FabricSource.USAGE.indent(2).stripTrailing(),
                Runtime.getRuntime().availableProcessors());
    }

    @Override
    public Set<String> valueOptions() {
        Set<String> options = new HashSet<>(FabricSource.OPTIONS);
        options.addAll(Set.of("engines", "repeat", "threads", "reroute", "faults", "lmc"));
        return options;
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("json");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        boolean explicitEngines = args.has("engines");
        boolean reroute = args.has("reroute");
        List<String> engines = args.listValue("engines", reroute ? List.of("dmodc") : DEFAULT_ENGINES);
        for (String e : engines) {
            if (!RoutingEngines.names().contains(e)) {
                throw new UsageException("bench: unknown routing engine '" + e + "' (known: "
                        + String.join(", ", RoutingEngines.names()) + ")");
            }
        }
        int repeat = args.intValue("repeat", 10, 1, 100_000);
        int threads = args.intValue("threads", Runtime.getRuntime().availableProcessors(), 1, 1024);
        List<String> levels = args.has("pgft") ? args.listValue("degrade-links", List.of()) : List.of();
        if (args.has("lmc") && (reroute || levels.size() > 1)) {
            throw new UsageException("bench: --lmc goes with one fabric routed from scratch");
        }
        if (reroute) {
            if (levels.size() > 1) {
                throw new UsageException("bench: --reroute takes one fabric: give at most one --degrade-links fraction");
            }
            return RerouteBench.run(args, engines, args.listValue("reroute", List.of()), args.intValue("faults", 3, 1, 1000),
                    repeat, threads, console);
        }
        if (args.has("faults")) {
            throw new UsageException("bench: --faults goes with --reroute");
        }
        if (levels.size() > 1) {
            return sideBySide(args, engines, explicitEngines, fractions(levels), repeat, threads, console);
        }
        Fabric fabric = FabricSource.load(args);
        if (args.has("lmc")) {
            fabric = fabric.withLmc(args.intValue("lmc", 0, 0, Fabric.MAX_LMC));
        }
        FabricIndex index = fabric.index();
        if (index.leafCount() == 0) {
            throw new UsageException("bench: the fabric has no leaf switch (no node is linked to a switch): nothing to route");
        }
        List<BenchStats> stats = new ArrayList<>();
        for (String name : engines) {
            try (RoutingEngine engine = RoutingEngines.create(name, threads)) {
                RoutingResult cold;
                try {
                    System.gc();
                    cold = engine.route(index);
                } catch (RoutingException e) {
                    if (explicitEngines) {
                        throw new UsageException("bench: " + e.getMessage(), e);
                    }
                    console.err().println("bench: skipping " + name + ": " + e.getMessage());
                    continue;
                }
                BenchStats s = new BenchStats(name, cold.timings());
                cold = null; // let the tables go before the next run
                for (int i = 0; i < repeat; i++) {
                    System.gc();
                    s.addWarm(engine.route(index).timings());
                }
                stats.add(s);
            }
        }
        if (args.flag("json")) {
            console.out().println(json(stats, index, threads, repeat));
        } else {
            printTable(stats, fabric, index, threads, repeat, console);
        }
        return ExitCodes.OK;
    }

    /** The degradation levels of a side-by-side run, each in [0, 1], in the order given. */
    private static double[] fractions(List<String> levels) {
        double[] out = new double[levels.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = Double.parseDouble(levels.get(i));
            } catch (NumberFormatException e) {
                out[i] = Double.NaN;
            }
            if (!(out[i] >= 0.0 && out[i] <= 1.0)) {
                throw new UsageException("bench: --degrade-links item '" + levels.get(i) + "' is not a fraction in [0, 1]");
            }
        }
        return out;
    }

    /**
     * One fabric per fraction, every engine on all of them: one cold run each, then {@code repeat}
     * rounds of one warm run per fabric.
     */
    private int sideBySide(Arguments args, List<String> engines, boolean explicitEngines, double[] fractions, int repeat,
                           int threads, Console console) throws Exception {
        List<Fabric> fabrics = new ArrayList<>();
        List<FabricIndex> indices = new ArrayList<>();
        for (double f : fractions) {
            Fabric fabric = FabricSource.pgft(args, f);
            FabricIndex index = fabric.index();
            if (index.leafCount() == 0) {
                throw new UsageException("bench: the fabric with " + f
                        + " of its links removed has no leaf switch: nothing to route");
            }
            fabrics.add(fabric);
            indices.add(index);
        }
        // stats[engine][level], null where the engine refused the level's fabric
        List<BenchStats[]> stats = new ArrayList<>();
        List<String> timed = new ArrayList<>();
        for (String name : engines) {
            BenchStats[] perLevel = new BenchStats[fractions.length];
            try (RoutingEngine engine = RoutingEngines.create(name, threads)) {
                for (int l = 0; l < fractions.length; l++) {
                    try {
                        System.gc();
                        perLevel[l] = new BenchStats(name, engine.route(indices.get(l)).timings());
                    } catch (RoutingException e) {
                        if (explicitEngines) {
                            throw new UsageException("bench: " + e.getMessage(), e);
                        }
                        console.err().println("bench: skipping " + name + " with " + fractions[l] + " of links removed: "
                                + e.getMessage());
                    }
                }
                for (int i = 0; i < repeat; i++) {
                    for (int l = 0; l < fractions.length; l++) {
                        if (perLevel[l] != null) {
                            System.gc();
                            perLevel[l].addWarm(engine.route(indices.get(l)).timings());
                        }
                    }
                }
            }
            stats.add(perLevel);
            timed.add(name);
        }
        if (args.flag("json")) {
            console.out().println(sideBySideJson(timed, stats, fractions, fabrics, indices.get(0), threads, repeat));
        } else {
            printSideBySide(timed, stats, fractions, fabrics, indices.get(0), threads, repeat, console);
        }
        return ExitCodes.OK;
    }

    private static String sideBySideJson(List<String> engines, List<BenchStats[]> stats, double[] fractions,
                                         List<Fabric> fabrics, FabricIndex index, int threads, int repeat)
            throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("jvm", jvm());
        root.put("threads", threads);
        root.put("repeat", repeat);
        ObjectNode fabric = root.putObject("fabric");
        fabric.put("switches", index.switchCount());
        fabric.put("nodes", index.fabric().nodes().size());
        ArrayNode levels = root.putArray("levels");
        for (int l = 0; l < fractions.length; l++) {
            ObjectNode level = levels.addObject();
            level.put("degradeLinks", fractions[l]);
            level.put("links", fabrics.get(l).links().size());
            List<BenchStats> present = new ArrayList<>();
            for (BenchStats[] perLevel : stats) {
                if (perLevel[l] != null) {
                    present.add(perLevel[l]);
                }
            }
            addEngines(level.putArray("engines"), present);
        }
        return mapper.writeValueAsString(root);
    }

    private static void printSideBySide(List<String> engines, List<BenchStats[]> stats, double[] fractions,
                                        List<Fabric> fabrics, FabricIndex index, int threads, int repeat,
                                        Console console) {
        StringBuilder levels = new StringBuilder();
        for (int l = 0; l < fractions.length; l++) {
            levels.append(l == 0 ? "" : ", ").append(fraction(fractions[l])).append(" (")
                    .append(fabrics.get(l).links().size()).append(" links)");
        }
        console.out().println("fabric" + fabrics.get(0).pgft().map(p -> " " + p).orElse("") + ": "
                + index.switchCount() + " switches, " + index.nodeCount() + " nodes; links removed: " + levels);
        console.out().println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, " + jvm() + ", "
                + threads + " routing threads, " + repeat + " warm runs per engine and fabric, interleaved");
        console.out().printf(Locale.ROOT, "%-8s %-8s %-14s %10s %10s %10s %10s%n", "engine", "removed", "phase",
                "cold ms", "median ms", "min ms", "max ms");
        for (int e = 0; e < engines.size(); e++) {
            for (int l = 0; l < fractions.length; l++) {
                BenchStats s = stats.get(e)[l];
                if (s == null) {
                    continue;
                }
                for (Map.Entry<String, BenchStats.Spread> p : s.phases().entrySet()) {
                    String cold = p.getKey().equals("total") ? String.format(Locale.ROOT, "%.1f", s.coldMs()) : "";
                    console.out().printf(Locale.ROOT, "%-8s %-8s %-14s %10s %10.1f %10.1f %10.1f%n", s.engine(),
                            fraction(fractions[l]), p.getKey(), cold, p.getValue().medianMs(), p.getValue().minMs(),
                            p.getValue().maxMs());
                }
            }
        }
        for (int e = 0; e < engines.size(); e++) {
            BenchStats first = stats.get(e)[0];
            for (int l = 1; l < fractions.length && first != null; l++) {
                BenchStats s = stats.get(e)[l];
                if (s == null) {
                    continue;
                }
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s %s / %s (median): total %.2f",
                        s.engine(), fraction(fractions[l]), fraction(fractions[0]),
                        s.phases().get("total").medianMs() / first.phases().get("total").medianMs()));
                BenchStats.Spread routes = s.phases().get("routes");
                BenchStats.Spread firstRoutes = first.phases().get("routes");
                if (routes != null && firstRoutes != null) {
                    line.append(String.format(Locale.ROOT, ", routes %.2f", routes.medianMs() / firstRoutes.medianMs()));
                }
                console.out().println(line);
            }
        }
    }

    private static String fraction(double f) {
        String text = String.format(Locale.ROOT, "%s", f);
        return text.endsWith(".0") ? text.substring(0, text.length() - 2) : text;
    }

    static String jvm() {
        return System.getProperty("java.vm.name") + " " + Runtime.version();
    }

    private static String json(List<BenchStats> stats, FabricIndex index, int threads, int repeat) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("jvm", jvm());
        root.put("threads", threads);
        root.put("repeat", repeat);
        ObjectNode fabric = root.putObject("fabric");
        fabric.put("switches", index.switchCount());
        fabric.put("nodes", index.fabric().nodes().size());
        addEngines(root.putArray("engines"), stats);
        return mapper.writeValueAsString(root);
    }

    private static void addEngines(ArrayNode engines, List<BenchStats> stats) {
        for (BenchStats s : stats) {
            ObjectNode e = engines.addObject();
            e.put("engine", s.engine());
            e.put("coldMs", round(s.coldMs()));
            ObjectNode phases = e.putObject("phases");
            for (Map.Entry<String, BenchStats.Spread> p : s.phases().entrySet()) {
                ObjectNode spread = phases.putObject(p.getKey());
                spread.put("medianMs", round(p.getValue().medianMs()));
                spread.put("minMs", round(p.getValue().minMs()));
                spread.put("maxMs", round(p.getValue().maxMs()));
            }
        }
    }

    private static double round(double ms) {
        return Math.round(ms * 1000.0) / 1000.0;
    }

    private static void printTable(List<BenchStats> stats, Fabric fabric, FabricIndex index, int threads, int repeat,
                                   Console console) {
        console.out().println("fabric" + fabric.pgft().map(p -> " " + p).orElse("") + ": " + index.switchCount()
                + " switches, " + fabric.nodes().size() + " nodes, " + fabric.links().size() + " links"
                + (fabric.lmc() == 0 ? "" : ", LMC " + fabric.lmc() + ": " + index.destinationCount() + " destinations"));
        console.out().println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, " + jvm() + ", "
                + threads + " routing threads, " + repeat + " warm runs per engine");
        console.out().printf(Locale.ROOT, "%-8s %-14s %10s %10s %10s %10s%n", "engine", "phase", "cold ms", "median ms",
                "min ms", "max ms");
        for (BenchStats s : stats) {
            for (Map.Entry<String, BenchStats.Spread> p : s.phases().entrySet()) {
                String cold = p.getKey().equals("total") ? String.format(Locale.ROOT, "%.1f", s.coldMs()) : "";
                console.out().printf(Locale.ROOT, "%-8s %-14s %10s %10.1f %10.1f %10.1f%n", s.engine(), p.getKey(), cold,
                        p.getValue().medianMs(), p.getValue().minMs(), p.getValue().maxMs());
            }
        }
        if (stats.size() >= 2) {
            BenchStats first = stats.get(0);
            for (int i = 1; i < stats.size(); i++) {
                BenchStats other = stats.get(i);
                console.out().printf(Locale.ROOT, "%s / %s (median total): %.2f%n", first.engine(), other.engine(),
                        first.phases().get("total").medianMs() / other.phases().get("total").medianMs());
            }
        }
    }
}
