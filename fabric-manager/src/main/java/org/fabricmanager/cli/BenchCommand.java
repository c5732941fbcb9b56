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
import org.fabricmanager.routing.RoutingEngines;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;

/**
 * {@code bench}: times routing engines on one fabric. For each engine: one cold run (the first in
 * this JVM, JIT not warmed), then {@code --repeat} warm runs, with a full GC before each run so
 * that a collection does not land inside one; prints the median, minimum and maximum of every
 * phase and of the total, with the JVM and the core count. The fabric is built and indexed once,
 * outside the timings.
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
                usage: fabric-manager bench (--pgft SPEC [--degrade-links F] [--degrade-switches K] [--seed S] | --topology FILE
                                             | --hdft SPEC [--fail-leaves K | --fail GUID,...] [--seed S])
                                            [--engines dmodc,dmodk] [--repeat R] [--threads T] [--json]
                  Runs each engine once cold, then R times warm, and prints per phase and in total the
                  cold time and the median, minimum and maximum of the warm runs (milliseconds).
                %s
                  --engines LIST           engines to time, in order (default dmodc,dmodk; with the default,
                                           dmodk is skipped on a fabric it refuses)
                  --repeat R               warm runs per engine (default 10)
                  --threads T              routing threads (default: available processors, %d here)
                  --json                   print one JSON object instead of the table""".formatted(FabricSource.USAGE.indent(2).stripTrailing(),
                Runtime.getRuntime().availableProcessors());
    }

    @Override
    public Set<String> valueOptions() {
        Set<String> options = new HashSet<>(FabricSource.OPTIONS);
        options.addAll(Set.of("engines", "repeat", "threads"));
        return options;
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("json");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        boolean explicitEngines = args.has("engines");
        List<String> engines = args.listValue("engines", DEFAULT_ENGINES);
        for (String e : engines) {
            if (!RoutingEngines.names().contains(e)) {
                throw new UsageException("bench: unknown routing engine '" + e + "' (known: "
                        + String.join(", ", RoutingEngines.names()) + ")");
            }
        }
        int repeat = args.intValue("repeat", 10, 1, 100_000);
        int threads = args.intValue("threads", Runtime.getRuntime().availableProcessors(), 1, 1024);
        Fabric fabric = FabricSource.load(args);
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
        fabric.put("nodes", index.nodeCount());
        ArrayNode engines = root.putArray("engines");
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
        return mapper.writeValueAsString(root);
    }

    private static double round(double ms) {
        return Math.round(ms * 1000.0) / 1000.0;
    }

    private static void printTable(List<BenchStats> stats, Fabric fabric, FabricIndex index, int threads, int repeat,
                                   Console console) {
        console.out().println("fabric" + fabric.pgft().map(p -> " " + p).orElse("") + ": " + index.switchCount()
                + " switches, " + index.nodeCount() + " nodes, " + fabric.links().size() + " links");
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
