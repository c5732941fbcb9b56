package org.fabricmanager.daemon.view;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FabricGraph;
import org.fabricmanager.daemon.api.LinkLoad;
import org.fabricmanager.daemon.api.SwitchState;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.rest.RestJson;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what the status page costs the daemon at 192 and 768 switches.
 * Per fabric: building the fabric graph (the control thread's share: layout once per routing version, then
 * the per-poll assembly) and the link-load analysis per pattern (on {@link LinkLoadService}'s own thread),
 * with the JSON sizes the page downloads. Median and min-max of {@code -Dfm.bench.repeats} runs (default 7).
 *
 * <p>Run with {@code mvn -B -q -o -pl fabric-manager -am test -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=StatusPageBenchmark -Dfm.bench=true}; figures go to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class StatusPageBenchmark {
    private static final List<String> SPECS = List.of("PGFT(3;8,8,8;1,8,8;1,1,1)", "PGFT(3;16,16,16;1,16,16;1,1,1)");
    private static final List<String> PATTERNS = List.of("shift", "random:100:1", "all2all");

    @Test
    void costOfThePageAt192And768Switches() {
        int repeats = Integer.getInteger("fm.bench.repeats", 7);
        System.out.println("| fabric | switches | nodes | work | median ms | min-max ms | JSON KiB |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (String spec : SPECS) {
            Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
            ForwardingTables tables;
            try (RoutingEngine engine = new DmodcEngine(1)) {
                tables = engine.route(fabric.index()).tables();
            }
            ActiveRouting active = new ActiveRouting(1, fabric, "bench", new TableSet(1, tables), "dmodc", 0.0, true, 0,
                    false, null);
            Map<Long, SwitchState> states = new LinkedHashMap<>();
            Map<Long, String> names = new HashMap<>();
            fabric.switches().forEach(s -> {
                states.put(s.guid(), SwitchState.IN_SYNC);
                names.put(s.guid(), s.name());
            });
            FabricLayout[] layout = new FabricLayout[1];
            double[] t = time(repeats, () -> layout[0] = FabricLayout.of(fabric));
            row(spec, fabric, "layout (once per version)", t, -1);
            FabricGraph[] graph = new FabricGraph[1];
            t = time(repeats, () -> graph[0] = FabricGraphView.assemble(1, "dmodc", DaemonState.CONVERGED, layout[0],
                    states, names, c -> "up"));
            row(spec, fabric, "graph per poll", t, RestJson.bytes(graph[0]).length);
            for (String p : PATTERNS) {
                TrafficPattern pattern = TrafficPattern.parse(p);
                LinkLoad[] load = new LinkLoad[1];
                t = time(repeats, () -> load[0] = LinkLoadService.compute(active, pattern));
                row(spec, fabric, "load " + p, t, RestJson.bytes(load[0]).length);
            }
        }
    }

    /**
     * The page's first render at 768 and 5,120 switches, server side: the layout (once per routing version, on the
     * first poll), the graph's assembly and its JSON (every poll), and the JSON's size; the link loads are not part of
     * it above 256 switches (computed when asked for). With {@code -Dfm.bench.out=DIR} the graph JSON is written there
     * ({@code graph-SWITCHES.json}) for a browser measurement.
     */
    @Test
    void firstRenderAt768And5120Switches() throws Exception {
        int repeats = Integer.getInteger("fm.bench.repeats", 7);
        String out = System.getProperty("fm.bench.out");
        System.out.println("| fabric | switches | nodes | work | median ms | min-max ms | JSON KiB |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (String spec : List.of("PGFT(3;16,16,16;1,16,16;1,1,1)", "PGFT(3;32,32,64;1,32,32;1,1,1)")) {
            Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
            Map<Long, SwitchState> states = new LinkedHashMap<>();
            Map<Long, String> names = new HashMap<>();
            fabric.switches().forEach(s -> {
                states.put(s.guid(), SwitchState.IN_SYNC);
                names.put(s.guid(), s.name());
            });
            FabricLayout[] layout = new FabricLayout[1];
            double[] t = time(repeats, () -> layout[0] = FabricLayout.of(fabric));
            row(spec, fabric, "layout (first poll of a version)", t, -1);
            FabricGraph[] graph = new FabricGraph[1];
            t = time(repeats, () -> graph[0] = FabricGraphView.assemble(1, "dmodc", DaemonState.CONVERGED, layout[0],
                    states, names, c -> "up"));
            row(spec, fabric, "graph assembly (every poll)", t, -1);
            byte[][] json = new byte[1][];
            t = time(repeats, () -> json[0] = RestJson.bytes(graph[0]));
            row(spec, fabric, "graph JSON (every poll)", t, json[0].length);
            t = time(repeats, () -> RestJson.bytes(FabricGraphView.assemble(1, "dmodc", DaemonState.CONVERGED,
                    FabricLayout.of(fabric), states, names, c -> "up")));
            row(spec, fabric, "first poll: layout + graph + JSON", t, json[0].length);
            if (out != null) {
                Files.write(Path.of(out, "graph-" + fabric.switches().size() + ".json"), json[0]);
            }
        }
    }

    private static double[] time(int repeats, Runnable work) {
        work.run(); // warm-up
        double[] ms = new double[repeats];
        for (int i = 0; i < repeats; i++) {
            long t0 = System.nanoTime();
            work.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    private static void row(String spec, Fabric fabric, String what, double[] ms, int jsonBytes) {
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %s | %.1f | %.1f-%.1f | %s |%n", spec, fabric.switches().size(),
                fabric.nodes().size(), what, ms[ms.length / 2], ms[0], ms[ms.length - 1],
                jsonBytes < 0 ? "" : String.format(Locale.ROOT, "%.0f", jsonBytes / 1024.0));
    }
}
