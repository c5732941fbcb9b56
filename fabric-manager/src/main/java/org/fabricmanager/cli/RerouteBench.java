package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.dmodc.DmodcRouting;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.Ranking;

/**
 * {@code bench --reroute KINDS}: what one fault costs to re-route. For each kind of fault (a leaf's
 * link to a switch above it, a link of a top switch, a whole top switch), {@code --faults} faults
 * drawn with {@code --seed}; every round routes each faulted fabric from scratch and re-routes it
 * from the routing of the fault-free fabric ({@link RoutingEngine#reroute}), interleaved, with a
 * full GC before each run. Prints the median, minimum and maximum of both, their ratio, the
 * re-route's phases and, for Dmodc, how many rows it reused, patched and recomputed.
 */
final class RerouteBench {
    /** The kinds of fault, as {@code --reroute} spells them. */
    static final List<String> KINDS = List.of("leaf-link", "top-link", "top-switch");

    private RerouteBench() {
    }

    /** One fault: what it removes, and the fabric without it. */
    private record Fault(String kind, String what, FabricIndex index) {
    }

    /** The timings of one kind of fault for one engine. */
    private record KindStats(String engine, String kind, BenchStats full, BenchStats reroute, List<int[]> rows) {
    }

    static int run(Arguments args, List<String> engines, List<String> kinds, int faults, int repeat, int threads,
                   Console console) throws Exception {
        for (String kind : kinds) {
            if (!KINDS.contains(kind)) {
                throw new UsageException("bench: unknown --reroute kind '" + kind + "' (known: " + String.join(", ", KINDS)
                        + ")");
            }
        }
        Fabric fabric = FabricSource.load(args);
        FabricIndex base = fabric.index();
        if (base.leafCount() == 0) {
            throw new UsageException("bench: the fabric has no leaf switch (no node is linked to a switch): nothing to route");
        }
        long seed = args.longValue("seed", 1L);
        List<List<Fault>> byKind = new ArrayList<>();
        for (String kind : kinds) {
            byKind.add(faults(fabric, kind, faults, new Random(seed * 31 + kind.hashCode())));
        }
        List<KindStats> stats = new ArrayList<>();
        for (String name : engines) {
            try (RoutingEngine engine = RoutingEngines.create(name, threads)) {
                RoutedSnapshot before;
                try {
                    before = engine.routeSnapshot(base);
                } catch (RoutingException e) {
                    throw new UsageException("bench: " + e.getMessage(), e);
                }
                for (List<Fault> list : byKind) {
                    stats.add(time(engine, before, list, repeat));
                }
            }
        }
        if (args.flag("json")) {
            console.out().println(json(stats, base, fabric, threads, repeat, faults, seed));
        } else {
            print(stats, base, fabric, threads, repeat, faults, seed, console);
        }
        return ExitCodes.OK;
    }

    /** A cold pair of runs, then {@code repeat} rounds over the faults: from scratch, then re-routed. */
    private static KindStats time(RoutingEngine engine, RoutedSnapshot before, List<Fault> faults, int repeat) {
        String kind = faults.get(0).kind();
        FabricIndex first = faults.get(0).index();
        BenchStats full;
        BenchStats reroute;
        try {
            System.gc();
            full = new BenchStats(engine.name(), engine.route(first).timings());
            System.gc();
            reroute = new BenchStats(engine.name(), engine.reroute(first, before).result().timings());
        } catch (RoutingException e) {
            throw new UsageException("bench: " + engine.name() + " after a " + kind + " fault: " + e.getMessage(), e);
        }
        List<int[]> rows = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
            for (Fault f : faults) {
                System.gc();
                full.addWarm(engine.route(f.index()).timings());
                System.gc();
                RoutedSnapshot after = engine.reroute(f.index(), before);
                reroute.addWarm(after.result().timings());
                if (after instanceof DmodcRouting d && d.rowCounts().isPresent()) {
                    DmodcRouting.RowCounts c = d.rowCounts().get();
                    rows.add(new int[] {c.reused(), c.patched(), c.recomputed()});
                }
            }
        }
        return new KindStats(engine.name(), kind, full, reroute, rows);
    }

    /** {@code count} distinct faults of {@code kind}, drawn with {@code random}. */
    private static List<Fault> faults(Fabric fabric, String kind, int count, Random random) {
        FabricIndex index = fabric.index();
        int[] rank = Ranking.fromLeaves(index);
        int top = 0;
        for (int r : rank) {
            if (r != Ranking.UNREACHED) {
                top = Math.max(top, r);
            }
        }
        List<Fault> out = new ArrayList<>();
        if (kind.equals("top-switch")) {
            List<Integer> tops = new ArrayList<>();
            for (int s = 0; s < rank.length; s++) {
                if (rank[s] == top && top > 0) {
                    tops.add(s);
                }
            }
            for (int i = 0; i < count && !tops.isEmpty(); i++) {
                long guid = index.switchGuid(tops.remove(random.nextInt(tops.size())));
                out.add(new Fault(kind, "switch " + Guids.format(guid), fabric.withoutSwitches(List.of(guid)).index()));
            }
        } else {
            List<Link> candidates = new ArrayList<>();
            for (Link l : fabric.links()) {
                int a = index.switchId(l.a());
                int b = index.switchId(l.b());
                if (a == FabricIndex.NONE || b == FabricIndex.NONE) {
                    continue;
                }
                boolean leafLink = Math.min(rank[a], rank[b]) == 0 && Math.max(rank[a], rank[b]) == 1;
                boolean topLink = top > 0 && Math.max(rank[a], rank[b]) == top && rank[a] != rank[b];
                if (kind.equals("leaf-link") ? leafLink : topLink) {
                    candidates.add(l);
                }
            }
            for (int i = 0; i < count && !candidates.isEmpty(); i++) {
                Link l = candidates.remove(random.nextInt(candidates.size()));
                out.add(new Fault(kind, "link " + l, fabric.withoutLinks(List.of(l)).index()));
            }
        }
        if (out.isEmpty()) {
            throw new UsageException("bench: the fabric has no " + kind + " to fail");
        }
        return out;
    }

    private static double median(List<int[]> rows, int i) {
        if (rows.isEmpty()) {
            return Double.NaN;
        }
        double[] v = new double[rows.size()];
        for (int k = 0; k < v.length; k++) {
            v[k] = rows.get(k)[i];
        }
        Arrays.sort(v);
        return v[v.length / 2];
    }

    private static void print(List<KindStats> stats, FabricIndex base, Fabric fabric, int threads, int repeat, int faults,
                              long seed, Console console) {
        console.out().println("fabric" + fabric.pgft().map(p -> " " + p).orElse("") + ": " + base.switchCount()
                + " switches, " + base.nodeCount() + " nodes, " + fabric.links().size() + " links; up to " + faults
                + " faults of each kind (seed " + seed + ")");
        console.out().println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, " + BenchCommand.jvm()
                + ", " + threads + " routing threads, " + repeat + " rounds over the faults");
        console.out().printf(Locale.ROOT, "%-8s %-11s %-12s %10s %10s %10s %10s   %s%n", "engine", "fault", "routing",
                "cold ms", "median ms", "min ms", "max ms", "rows reused/patched/recomputed (median)");
        for (KindStats k : stats) {
            line(console, k, "from scratch", k.full(), "");
            String rows = k.rows().isEmpty() ? "" : String.format(Locale.ROOT, "%.0f / %.0f / %.0f",
                    median(k.rows(), 0), median(k.rows(), 1), median(k.rows(), 2));
            line(console, k, "re-routed", k.reroute(), rows);
        }
        for (KindStats k : stats) {
            StringBuilder phases = new StringBuilder();
            for (Map.Entry<String, BenchStats.Spread> p : k.reroute().phases().entrySet()) {
                if (!p.getKey().equals("total")) {
                    phases.append(phases.length() == 0 ? "" : ", ")
                            .append(String.format(Locale.ROOT, "%s %.1f", p.getKey(), p.getValue().medianMs()));
                }
            }
            console.out().printf(Locale.ROOT, "%s %s: re-routed / from scratch (median) %.2f; re-route phases (median ms): %s%n",
                    k.engine(), k.kind(), k.reroute().phases().get("total").medianMs()
                            / k.full().phases().get("total").medianMs(), phases);
        }
    }

    private static void line(Console console, KindStats k, String how, BenchStats s, String rows) {
        BenchStats.Spread total = s.phases().get("total");
        console.out().printf(Locale.ROOT, "%-8s %-11s %-12s %10.1f %10.1f %10.1f %10.1f   %s%n", k.engine(), k.kind(), how,
                s.coldMs(), total.medianMs(), total.minMs(), total.maxMs(), rows);
    }

    private static String json(List<KindStats> stats, FabricIndex base, Fabric fabric, int threads, int repeat,
                               int faults, long seed) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("jvm", BenchCommand.jvm());
        root.put("threads", threads);
        root.put("repeat", repeat);
        root.put("faults", faults);
        root.put("seed", seed);
        ObjectNode f = root.putObject("fabric");
        f.put("switches", base.switchCount());
        f.put("nodes", base.nodeCount());
        f.put("links", fabric.links().size());
        ArrayNode out = root.putArray("reroutes");
        for (KindStats k : stats) {
            ObjectNode node = out.addObject();
            node.put("engine", k.engine());
            node.put("fault", k.kind());
            spreads(node.putObject("fromScratch"), k.full());
            spreads(node.putObject("rerouted"), k.reroute());
            if (!k.rows().isEmpty()) {
                ObjectNode rows = node.putObject("rows");
                rows.put("reused", median(k.rows(), 0));
                rows.put("patched", median(k.rows(), 1));
                rows.put("recomputed", median(k.rows(), 2));
            }
        }
        return mapper.writeValueAsString(root);
    }

    private static void spreads(ObjectNode node, BenchStats s) {
        node.put("coldMs", Math.round(s.coldMs() * 1000.0) / 1000.0);
        ObjectNode phases = node.putObject("phases");
        for (Map.Entry<String, BenchStats.Spread> p : s.phases().entrySet()) {
            ObjectNode spread = phases.putObject(p.getKey());
            spread.put("medianMs", Math.round(p.getValue().medianMs() * 1000.0) / 1000.0);
            spread.put("minMs", Math.round(p.getValue().minMs() * 1000.0) / 1000.0);
            spread.put("maxMs", Math.round(p.getValue().maxMs() * 1000.0) / 1000.0);
        }
    }
}
