package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.Channel;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockReport;
import org.fabricmanager.routing.analysis.LidSharing;
import org.fabricmanager.routing.analysis.LidSharingAnalyzer;
import org.fabricmanager.routing.analysis.PathLengthAnalyzer;
import org.fabricmanager.routing.analysis.PathLengths;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TableQuality;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.analysis.VirtualChannels;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.LidFabric;

/**
 * {@code quality}: routes one fabric with several engines and compares them: validity, deadlock
 * freedom (acyclic channel dependency graph, over the virtual channels the engine's tables use),
 * the longest route and congestion risk (routes per directed switch-to-switch link) under shift,
 * random and all-to-all traffic. An engine that refuses the fabric gets a row saying why instead of
 * stopping the comparison. Under an LMC each pair of a pattern is one flow per LID of its destination, and the
 * {@link LidSharingColumns} say how far a port's LIDs take distinct links.
 */
final class QualityCommand implements Command {
    /** Engines compared when {@code --engines} is not given (those of them that are registered). */
    static final List<String> DEFAULT_ENGINES = List.of("dmodc", "minhop", "updn");
    /** Added first to the default engines for a fabric expected to be a 2-D fat tree. */
    static final String HDFT_ENGINE = "vtftr";
    static final String DEFAULT_PATTERNS = TableQuality.DEFAULT_PATTERNS;
    /**
     * Above this many attached nodes the default patterns leave out shift: its N-1 permutations
     * cost O(N^2 x path length), tens of minutes at 65,536 nodes on a small machine. Asking for
     * it with --patterns still runs it.
     */
    static final int DEFAULT_SHIFT_MAX_NODES = TableQuality.DEFAULT_SHIFT_MAX_NODES;
    /** Cycle channels printed in the table's notes; JSON lists them all. */
    private static final int CYCLE_SHOWN = 8;

    @Override
    public String name() {
        return "quality";
    }

    @Override
    public String summary() {
        return "compare engines: validity, deadlock freedom, congestion under traffic patterns";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager quality (--topology FILE | --pgft SPEC [--degrade-links F] [--degrade-switches K] [--seed S]
                                               | --hdft SPEC [--fail-leaves K | --fail GUID,...] [--seed S])
                                              [--engines E1,E2,...] [--patterns P1,P2,...] [--threads T] [--json]
                                              [--lft FILE [--lft-format lft-text|opensm]] [--lmc N]
                  Routes the fabric with each engine and prints, per engine: valid (every leaf pair
                  routed), deadlock-free (acyclic channel dependency graph; with the number of virtual
                  channels when the engine uses more than one), max path (the longest route between two
                  nodes, in switch-to-switch links), and the congestion risk (routes on the busiest
                  directed switch-to-switch link) of each traffic pattern.
                %s
                  --engines LIST           engines to compare (default %s, with vtftr first on an HDFT;
                                           known: %s)
                  --patterns LIST          shift (all N-1 shifts: max and mean of the maxima),
                                           random:R[:SEED] (R seeded random permutations, seed 1 by default),
                                           all2all (every node to every other); default %s
                  --lft FILE               also analyse these tables (first row, named by the file), e.g. an
                                           opensm-lfts.dump of the OpenSM routing in use today, or route --lft-out's
                                           lft-text/1 or lft-bin/1 with the virtual-channel rules of FILE.vc if any
                                           (vc-text/1): the deadlock check then runs over (link, VC)
                  --lft-format F           lft-text (default) or opensm (keyed by the LIDs of the
                                           --topology ibnetdiscover dump)
                  --lmc N                  with --pgft or --hdft: every end port answers to 2^N LIDs (OpenSM's lmc,
                                           0..7; a --topology dump carries its own). Each pair of a pattern is then
                                           2^N flows, one to each LID of its destination, and the loads count flows;
                                           three columns say how many leaf/port pairs send two LIDs through one
                                           switch-to-switch link (LIDs sharing, of all), at the leaf's up-port
                                           (at leaf), and the most flows of one pair on one link (max shared)
                  --threads T              routing and analysis threads (default: available processors, %d here)
                  --json                   one JSON object instead of the table
                  Shift costs O(N^2 x path length): by default it is left out above %,d attached
                  nodes (name it in --patterns to run it anyway).
                  Exit code 0 when the comparison ran (whatever it found); 2 for bad input.""".formatted(
                FabricSource.USAGE, String.join(",", DEFAULT_ENGINES), String.join(",", RoutingEngines.names()),
                DEFAULT_PATTERNS, Runtime.getRuntime().availableProcessors(), DEFAULT_SHIFT_MAX_NODES);
    }

    @Override
    public Set<String> valueOptions() {
        Set<String> options = new HashSet<>(FabricSource.OPTIONS);
        options.addAll(Set.of("engines", "patterns", "threads", "lft", "lft-format", "lmc"));
        return options;
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("json");
    }

    /** What one engine achieved; {@code refusal} is non-null when the engine refused the fabric. */
    private record Row(String engine, String refusal, RoutingResult result, DeadlockReport deadlock, int vcs,
                       PathLengths lengths, List<PatternCongestion> patterns, LidSharing sharing) {
    }

    @Override
    public int run(Arguments args, Console console) {
        List<String> engines = engines(args);
        List<TrafficPattern> patterns = patterns(args);
        int threads = args.intValue("threads", Runtime.getRuntime().availableProcessors(), 1, 1024);
        if (args.has("lft-format") && !args.has("lft")) {
            throw new UsageException("quality: --lft-format goes with --lft");
        }
        LidFabric loaded = withLmc(args, FabricSource.loadWithLids(args));
        Fabric fabric = loaded.fabric();
        if (!args.has("engines") && fabric.hdft().isPresent() && RoutingEngines.names().contains(HDFT_ENGINE)) {
            engines = new ArrayList<>(engines);
            engines.add(0, HDFT_ENGINE);
        }
        FabricIndex index = fabric.index();
        if (index.leafCount() == 0) {
            throw new UsageException("quality: the fabric has no leaf switch (no node is linked to a switch): nothing to route");
        }
        int attached = index.leafNodeArray().length >> index.lmc(); // nodes: each has 2^lmc positions, one per LID
        if (!args.has("patterns") && !shiftByDefault(attached)) {
            patterns.removeIf(p -> p instanceof TrafficPattern.Shift);
            console.err().printf("quality: shift left out of the default patterns on %,d nodes (O(N^2)); name it in"
                    + " --patterns to run it%n", attached);
        }
        List<Row> rows = new ArrayList<>();
        if (args.has("lft")) {
            rows.add(evaluateFile(args, loaded, index, patterns, threads));
        }
        for (String engine : engines) {
            rows.add(evaluate(engine, index, patterns, threads));
        }
        if (args.flag("json")) {
            printJson(rows, console.out());
        } else {
            console.err().println("quality: " + fabric.switches().size() + " switches, " + attached
                    + " attached nodes" + fabric.pgft().map(p -> ", expected " + p).orElse("")
                    + fabric.hdft().map(h -> ", expected " + h).orElse("")
                    + (fabric.lmc() == 0 ? "" : ", LMC " + fabric.lmc() + " (" + (1 << fabric.lmc())
                    + " flows per pair, one to each LID)"));
            printTable(rows, patterns, console.out());
        }
        return ExitCodes.OK;
    }

    /** The loaded fabric with --lmc's LMC, which only a generated fabric takes (a dump carries its ports' LMC). */
    private static LidFabric withLmc(Arguments args, LidFabric loaded) {
        if (!args.has("lmc")) {
            return loaded;
        }
        if (args.has("topology")) {
            throw new UsageException("quality: --lmc goes with --pgft or --hdft: a --topology dump carries its"
                    + " ports' LMC");
        }
        int lmc = args.intValue("lmc", 0, 0, Fabric.MAX_LMC);
        return new LidFabric(loaded.fabric().withLmc(lmc), loaded.lids());
    }

    /** Whether the default patterns include shift on a fabric with this many attached nodes. */
    static boolean shiftByDefault(int attachedNodes) {
        return TableQuality.shiftByDefault(attachedNodes);
    }

    private static List<String> engines(Arguments args) {
        if (!args.has("engines")) {
            List<String> known = new ArrayList<>();
            for (String e : DEFAULT_ENGINES) {
                if (RoutingEngines.names().contains(e)) {
                    known.add(e);
                }
            }
            return known;
        }
        List<String> engines = args.listValue("engines", List.of());
        Set<String> seen = new HashSet<>();
        for (String e : engines) {
            if (!RoutingEngines.names().contains(e)) {
                throw new UsageException("quality: --engines: unknown engine '" + e + "' (known: "
                        + String.join(", ", RoutingEngines.names()) + ")");
            }
            if (!seen.add(e)) {
                throw new UsageException("quality: --engines names " + e + " twice");
            }
        }
        return engines;
    }

    private static List<TrafficPattern> patterns(Arguments args) {
        List<TrafficPattern> patterns = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String text : args.listValue("patterns", List.of(DEFAULT_PATTERNS.split(",")))) {
            TrafficPattern p;
            try {
                p = TrafficPattern.parse(text);
            } catch (IllegalArgumentException e) {
                throw new UsageException("quality: --patterns: " + e.getMessage(), e);
            }
            if (!seen.add(p.name())) {
                throw new UsageException("quality: --patterns names " + p.name() + " twice");
            }
            patterns.add(p);
        }
        return patterns;
    }

    private static Row evaluate(String name, FabricIndex index, List<TrafficPattern> patterns, int threads) {
        RoutingResult result;
        try (RoutingEngine engine = RoutingEngines.create(name, threads)) {
            result = engine.route(index);
        } catch (RoutingException e) {
            return new Row(name, e.getMessage(), null, null, 0, null, List.of(), null);
        }
        return analyse(name, index, RoutedFabric.of(index, result.tables()), result, patterns, threads);
    }

    /** The --lft tables as a row named by the file, their validity found by tracing. */
    private static Row evaluateFile(Arguments args, LidFabric loaded, FabricIndex index, List<TrafficPattern> patterns,
                                    int threads) {
        ForwardingTables tables = LoadedTables.read(args, loaded);
        RoutedFabric routed;
        try {
            routed = RoutedFabric.of(index, tables);
        } catch (IllegalArgumentException e) {
            throw new UsageException("quality: --lft " + args.require("lft") + ": " + e.getMessage(), e);
        }
        String name = "file " + Path.of(args.require("lft")).getFileName();
        RoutingResult result = new RoutingResult(name, tables, LoadedTables.validity(routed),
                new PhaseTimings(List.of()));
        return analyse(name, index, routed, result, patterns, threads);
    }

    /** Deadlock, path lengths and congestion of routed tables. */
    static Row analyse(String name, FabricIndex index, RoutedFabric routed, RoutingResult result,
                       List<TrafficPattern> patterns, int threads) {
        VirtualChannels vcs = VirtualChannels.of(result.tables());
        DeadlockReport deadlock = new DeadlockAnalyzer(routed, vcs, threads).analyze();
        PathLengths lengths = new PathLengthAnalyzer(routed, threads).analyze();
        CongestionAnalyzer congestion = new CongestionAnalyzer(routed, threads);
        List<PatternCongestion> figures = new ArrayList<>();
        for (TrafficPattern p : patterns) {
            figures.add(congestion.analyze(p));
        }
        LidSharing sharing = new LidSharingAnalyzer(routed, threads).analyze();
        return new Row(name, null, result, deadlock, vcs.count(), lengths, figures, sharing);
    }

    /** Means are shown rounded to three decimals, in the table and in JSON alike. */
    static double rounded(double mean) {
        return Math.round(mean * 1000.0) / 1000.0;
    }

    private static void printTable(List<Row> rows, List<TrafficPattern> patterns, PrintStream out) {
        List<String> header = new ArrayList<>(List.of("engine", "valid", "deadlock-free", "max path"));
        for (TrafficPattern p : patterns) {
            header.add(p.name() + " max");
            if (!(p instanceof TrafficPattern.AllToAll)) {
                header.add(p.name() + " mean");
            }
        }
        boolean lmc = rows.stream().anyMatch(r -> r.sharing() != null && r.sharing().lids() > 1);
        if (lmc) {
            header.addAll(LidSharingColumns.HEADER);
        }
        List<List<String>> cells = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (Row row : rows) {
            List<String> line = new ArrayList<>();
            line.add(row.engine());
            if (row.refusal() != null) {
                line.add("refused: " + row.refusal());
                cells.add(line);
                continue;
            }
            long unreachable = row.result().validity().unreachablePairs();
            line.add(unreachable == 0 ? "yes" : "no (" + unreachable + " leaf pairs)");
            line.add((row.deadlock().deadlockFree() ? "yes" : "no") + (row.vcs() > 1 ? " (" + row.vcs() + " VCs)" : ""));
            line.add(row.lengths().max() < 0 ? "-" : Integer.toString(row.lengths().max()));
            for (PatternCongestion c : row.patterns()) {
                line.add(Long.toString(c.max()));
                if (!(c.pattern() instanceof TrafficPattern.AllToAll)) {
                    line.add(String.format("%.3f", rounded(c.mean())));
                }
                if (c.unroutedPairs() > 0) {
                    notes.add(row.engine() + ": " + c.unroutedPairs() + " " + c.pattern() + " pairs dead-end or loop"
                            + " and are not counted");
                }
            }
            if (lmc) {
                line.addAll(LidSharingColumns.cells(row.sharing()));
                String note = LidSharingColumns.note(row.engine(), row.sharing());
                if (!note.isEmpty()) {
                    notes.add(note);
                }
            }
            if (!row.deadlock().deadlockFree()) {
                List<Channel> cycle = row.deadlock().cycle();
                StringBuilder sb = new StringBuilder(row.engine() + ": dependency cycle of " + cycle.size()
                        + " channels: ");
                for (int i = 0; i < Math.min(CYCLE_SHOWN, cycle.size()); i++) {
                    sb.append(i == 0 ? "" : ", ").append(cycle.get(i));
                }
                notes.add(sb.append(cycle.size() > CYCLE_SHOWN ? ", ..." : "").toString());
            }
            cells.add(line);
        }
        int[] width = new int[header.size()];
        for (int c = 0; c < header.size(); c++) {
            width[c] = header.get(c).length();
        }
        for (List<String> line : cells) {
            // a refusal spans the remaining columns, so it does not widen them
            if (line.size() == header.size()) {
                for (int c = 0; c < line.size(); c++) {
                    width[c] = Math.max(width[c], line.get(c).length());
                }
            } else {
                width[0] = Math.max(width[0], line.get(0).length());
            }
        }
        out.println(format(header, width));
        for (List<String> line : cells) {
            out.println(format(line, width));
        }
        for (String note : notes) {
            out.println(note);
        }
    }

    private static String format(List<String> line, int[] width) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < line.size(); c++) {
            boolean last = c == line.size() - 1;
            String cell = line.get(c);
            boolean numeric = c >= 3;
            if (last && !numeric) {
                sb.append(cell);
            } else if (numeric) {
                sb.append(" ".repeat(width[c] - cell.length())).append(cell);
            } else {
                sb.append(cell).append(" ".repeat(width[c] - cell.length()));
            }
            if (!last) {
                sb.append("  ");
            }
        }
        return sb.toString();
    }

    private static void printJson(List<Row> rows, PrintStream out) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        ArrayNode engines = root.putArray("engines");
        for (Row row : rows) {
            ObjectNode e = engines.addObject();
            e.put("engine", row.engine());
            if (row.refusal() != null) {
                e.put("error", row.refusal());
                continue;
            }
            e.put("valid", row.result().validity().isValid());
            if (!row.result().validity().isValid()) {
                e.put("unreachableLeafPairs", row.result().validity().unreachablePairs());
            }
            e.put("deadlockFree", row.deadlock().deadlockFree());
            if (!row.deadlock().deadlockFree()) {
                ArrayNode cycle = e.putArray("cycle");
                row.deadlock().cycle().forEach(c -> cycle.add(c.toString()));
            }
            e.put("virtualChannels", row.vcs());
            if (row.lengths().max() < 0) {
                e.putNull("maxPathLength");
            } else {
                e.put("maxPathLength", row.lengths().max());
            }
            ObjectNode patterns = e.putObject("patterns");
            for (PatternCongestion c : row.patterns()) {
                ObjectNode p = patterns.putObject(c.pattern().name());
                p.put("max", c.max());
                if (!(c.pattern() instanceof TrafficPattern.AllToAll)) {
                    p.put("mean", rounded(c.mean()));
                }
                if (c.unroutedPairs() > 0) {
                    p.put("unroutedPairs", c.unroutedPairs());
                }
            }
            if (row.sharing().lids() > 1) {
                LidSharingColumns.json(e, row.sharing());
            }
        }
        out.println(root.toString());
    }
}
