package org.fabricmanager.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmGuidFiles;
import org.fabricmanager.opensm.OpenSmLfts;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.LidSharing;
import org.fabricmanager.routing.analysis.LidSharingAnalyzer;
import org.fabricmanager.routing.analysis.PathLengthAnalyzer;
import org.fabricmanager.routing.analysis.PathLengths;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code compare}: OpenSM's routing engines and ours side by side on one fabric. The fabric is
 * simulated by ibsim; each OpenSM engine routes it in one sweep ({@code opensm -o}) and dumps its
 * tables; ibnetdiscover captures the fabric with OpenSM's LIDs, and our engines route that same
 * fabric. Every set of tables is then measured the same way: unrouted leaf pairs (traced, since
 * OpenSM reports success on trees it leaves partly unrouted), longest path and congestion.
 * Routing time is OpenSM's own (from its log) and ours (median of three routings, warm).
 */
final class CompareCommand implements Command {
    static final List<String> DEFAULT_OPENSM_ENGINES = List.of("ftree", "updn", "minhop", "dfsssp");
    /** OpenSM engines given the root GUID ({@code -a}) and compute-node ({@code -u}) files. */
    static final List<String> GUID_FILE_ENGINES = List.of("ftree", "updn");
    static final List<String> DEFAULT_OUR_ENGINES = List.of("dmodc");
    private static final int OUR_REPEATS = 3;

    /** Finds the tools: {@link OpenSmTools#find()}, or another finder in tests of the missing-tools path. */
    private final Supplier<Optional<OpenSmTools>> finder;

    CompareCommand() {
        this(OpenSmTools::find);
    }

    CompareCommand(Supplier<Optional<OpenSmTools>> finder) {
        this.finder = finder;
    }

    @Override
    public String name() {
        return "compare";
    }

    @Override
    public String summary() {
        return "OpenSM's engines (under ibsim) and ours side by side: time, validity, congestion";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager compare (--pgft SPEC [--degrade-links F] [--degrade-switches K] [--seed S] | --topology FILE)
                                              [--opensm-engines E,...] [--engines E,...] [--patterns P,...]
                                              [--timeout S] [--work DIR] [--threads T] [--svg FILE] [--lmc N]
                  Simulates the fabric with ibsim, routes it with each OpenSM engine (opensm -o -R E; ftree and
                  updn with the fabric's top level as root GUIDs, -a, and its end nodes as compute nodes, -u,
                  as OpenSM's documentation asks) and with our engines, and prints per engine: routing time (OpenSM's from its log; ours the median of
                  %d warm routings), unrouted leaf pairs, longest path and congestion per traffic pattern.
                  Needs opensm, ibsim (ibsim-utils) and ibnetdiscover (infiniband-diags):
                  %s
                %s
                  --opensm-engines LIST    OpenSM engines (default %s)
                  --engines LIST           our engines (default %s; known: %s)
                  --patterns LIST          as for quality (default %s; shift left out above %,d nodes)
                  --timeout S              seconds allowed to each OpenSM run before it is stopped (default 600)
                  --work DIR               keep the net file, logs and dumps in DIR (default: a temporary directory,
                                           removed at the end)
                  --threads T              our routing and analysis threads (default: available processors)
                  --lmc N                  OpenSM's lmc (opensm -l N, 0..7): every end port answers to 2^N LIDs, for
                                           OpenSM's engines and ours alike; the patterns count one flow per LID of a
                                           pair's destination and the LID-sharing columns are added (see quality)
                  --svg FILE               also draw each pattern's maximum congestion per engine as an SVG chart
                  Exit code 0 when the comparison ran; 2 for bad input or when the tools are missing.""".formatted(
                OUR_REPEATS, OpenSmTools.INSTALL_HINT, FabricSource.USAGE, String.join(",", DEFAULT_OPENSM_ENGINES),
                String.join(",", DEFAULT_OUR_ENGINES), String.join(", ", RoutingEngines.names()),
                QualityCommand.DEFAULT_PATTERNS, QualityCommand.DEFAULT_SHIFT_MAX_NODES);
    }

    @Override
    public Set<String> valueOptions() {
        Set<String> options = new HashSet<>(FabricSource.OPTIONS);
        options.addAll(Set.of("opensm-engines", "engines", "patterns", "timeout", "work", "threads", "svg", "lmc"));
        return options;
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    /** One engine's figures; {@code failure} is non-null when it produced no tables. */
    private record Row(String engine, String source, String failure, double millis, String note, Validity validity,
                       PathLengths lengths, List<PatternCongestion> patterns, LidSharing sharing) {
    }

    @Override
    public int run(Arguments args, Console console) throws IOException {
        Optional<OpenSmTools> found = finder.get();
        if (found.isEmpty()) {
            List<String> missing = OpenSmTools.missing();
            console.err().println("compare: needs OpenSM, ibsim and ibnetdiscover"
                    + (missing.isEmpty() ? "" : ", missing: " + String.join(", ", missing))
                    + "; install them with: " + OpenSmTools.INSTALL_HINT);
            return ExitCodes.BAD_INPUT;
        }
        int threads = args.intValue("threads", Runtime.getRuntime().availableProcessors(), 1, 1024);
        long timeout = args.longValue("timeout", 600L);
        if (timeout < 1) {
            throw new UsageException("compare: --timeout must be at least 1 second");
        }
        List<String> openSmEngines = args.listValue("opensm-engines", DEFAULT_OPENSM_ENGINES);
        for (String e : openSmEngines) {
            if (!e.matches("[a-zA-Z0-9_-]{1,32}")) {
                throw new UsageException("compare: --opensm-engines: '" + e + "' is not an engine name");
            }
        }
        List<String> ours = args.listValue("engines", DEFAULT_OUR_ENGINES);
        for (String e : ours) {
            if (!RoutingEngines.names().contains(e)) {
                throw new UsageException("compare: --engines: unknown engine '" + e + "' (known: "
                        + String.join(", ", RoutingEngines.names()) + ")");
            }
        }
        Fabric fabric = FabricSource.load(args);
        try {
            LidPlan.requireFits(fabric);
        } catch (TopologyException e) {
            throw new UsageException("compare: " + e.getMessage(), e);
        }
        boolean temporary = !args.has("work");
        Path work = temporary ? Files.createTempDirectory("fm-compare-")
                : Files.createDirectories(Path.of(args.require("work")).toAbsolutePath());
        console.err().println("compare: " + fabric + "; files in " + work
                + (temporary ? " (temporary: removed at the end, --work DIR keeps them)" : ""));
        try {
            return compare(args, console, fabric, found.get(), openSmEngines, ours, threads, timeout, work);
        } finally {
            if (temporary) {
                // OpenSM's dumps of one run are large (docs/opensm.md), and repeated runs would pile them up in /tmp
                NetlabUpCommand.deleteTree(work);
            }
        }
    }

    private static int compare(Arguments args, Console console, Fabric fabric, OpenSmTools tools,
                               List<String> openSmEngines, List<String> ours, int threads, long timeout, Path work)
            throws IOException {
        List<Row> rows = new ArrayList<>();
        // every OpenSM run assigns the LIDs with the same LMC, so the dump read back gives our engines that LMC too
        List<String> lmc = args.has("lmc") ? List.of("-l", Integer.toString(args.intValue("lmc", 0, 0, Fabric.MAX_LMC)))
                : List.of();
        LidFabric seen = null;
        List<TrafficPattern> patterns = null;
        try (IbsimFabric lab = IbsimFabric.start(tools, fabric, work.resolve("ibsim"), timeout)) {
            // the fat-tree engines are given what OpenSM's documentation asks for: the top level as roots, the end
            // nodes as compute nodes (in ibsim's GUIDs, hence read back by ibnetdiscover before any SM ran)
            Path bare = lab.ibnetdiscover(work.resolve("ibnetdiscover-guids.txt"), timeout);
            OpenSmGuidFiles guidFiles = OpenSmGuidFiles.write(bare, IbnetdiscoverReader.read(bare).index(),
                    work);
            console.err().println("compare: ftree and updn get -a " + guidFiles.roots() + " (the top level: "
                    + guidFiles.rootCount() + " switches) and -u " + guidFiles.computeNodes() + " (the end nodes: "
                    + guidFiles.nodeCount() + " ports)");
            for (String engine : openSmEngines) {
                List<String> options = new ArrayList<>(lmc);
                options.addAll(GUID_FILE_ENGINES.contains(engine) ? guidFiles.options() : List.of());
                IbsimFabric.OpenSmRun run = lab.runOpenSm(engine, null, options, work.resolve("opensm-" + engine),
                        timeout);
                if (seen == null && run.exitCode() == 0) {
                    // the LIDs OpenSM assigned, and the fabric with ibsim's GUIDs, which every dump is keyed by
                    seen = IbnetdiscoverReader.readWithLids(lab.ibnetdiscover(work.resolve("ibnetdiscover.txt"), timeout));
                    patterns = patterns(args, seen.fabric().index());
                }
                rows.add(openSmRow(engine, run, seen, patterns, threads, timeout));
                console.err().println("compare: opensm " + engine + " done");
            }
            if (seen == null) {
                lab.runOpenSm("minhop", null, lmc, work.resolve("opensm-lids"), timeout);
                seen = IbnetdiscoverReader.readWithLids(lab.ibnetdiscover(work.resolve("ibnetdiscover.txt"), timeout));
                patterns = patterns(args, seen.fabric().index());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UsageException("compare: interrupted", e);
        } catch (TopologyException e) {
            throw new UsageException("compare: " + e.getMessage(), e);
        }
        FabricIndex index = seen.fabric().index();
        for (String engine : ours) {
            rows.add(ourRow(engine, index, patterns, threads));
        }
        print(rows, patterns, console.out());
        if (args.has("svg")) {
            Path svg = Path.of(args.require("svg"));
            CongestionSvg.write(svg, "Congestion (max routes on one link): " + fabric, panels(rows, patterns));
            console.err().println("compare: wrote " + svg);
        }
        return ExitCodes.OK;
    }

    private static List<TrafficPattern> patterns(Arguments args, FabricIndex index) {
        List<TrafficPattern> patterns = new ArrayList<>();
        for (String text : args.listValue("patterns", List.of(QualityCommand.DEFAULT_PATTERNS.split(",")))) {
            try {
                patterns.add(TrafficPattern.parse(text));
            } catch (IllegalArgumentException e) {
                throw new UsageException("compare: --patterns: " + e.getMessage(), e);
            }
        }
        if (!args.has("patterns") && !QualityCommand.shiftByDefault(index.leafNodeArray().length >> index.lmc())) {
            patterns.removeIf(p -> p instanceof TrafficPattern.Shift);
        }
        return patterns;
    }

    private static Row openSmRow(String engine, IbsimFabric.OpenSmRun run, LidFabric seen, List<TrafficPattern> patterns,
                                 int threads, long timeout) {
        String name = "opensm " + engine;
        if (run.exitCode() != 0 || seen == null || !Files.exists(run.dump())) {
            String why = run.exitCode() < 0 ? "stopped after " + timeout + " s" : "exit code " + run.exitCode();
            return new Row(name, "OpenSM", why + " (see " + run.logFile() + ")", 0, "", null, null, List.of(), null);
        }
        ForwardingTables tables;
        try {
            tables = OpenSmLfts.read(run.dump(), seen.fabric(), seen.lids());
        } catch (TopologyException e) {
            return new Row(name, "OpenSM", "unreadable dump: " + e.getMessage(), 0, "", null, null, List.of(), null);
        }
        String configured = run.log().configuredBy();
        String note = configured.isEmpty() || configured.equals(engine) ? "" : "fell back to " + configured;
        RoutedFabric routed = RoutedFabric.of(seen.fabric().index(), tables);
        return measured(name, "OpenSM", run.log().routingMillis().orElse(Double.NaN), note, routed,
                LoadedTables.validity(routed), patterns, threads);
    }

    private static Row ourRow(String engine, FabricIndex index, List<TrafficPattern> patterns, int threads) {
        double[] millis = new double[OUR_REPEATS];
        RoutingResult result = null;
        try (RoutingEngine e = RoutingEngines.create(engine, threads)) {
            for (int i = 0; i < OUR_REPEATS; i++) {
                result = e.route(index);
                millis[i] = result.timings().totalMillis();
            }
        } catch (RoutingException ex) {
            return new Row(engine, "ours", "refused: " + ex.getMessage(), 0, "", null, null, List.of(), null);
        }
        Arrays.sort(millis);
        RoutedFabric routed = RoutedFabric.of(index, result.tables());
        return measured(engine, "ours", millis[OUR_REPEATS / 2], "", routed, LoadedTables.validity(routed), patterns,
                threads);
    }

    private static Row measured(String name, String source, double millis, String note, RoutedFabric routed,
                                Validity validity, List<TrafficPattern> patterns, int threads) {
        PathLengths lengths = new PathLengthAnalyzer(routed, threads).analyze();
        CongestionAnalyzer congestion = new CongestionAnalyzer(routed, threads);
        List<PatternCongestion> figures = new ArrayList<>();
        for (TrafficPattern p : patterns) {
            figures.add(congestion.analyze(p));
        }
        return new Row(name, source, null, millis, note, validity, lengths, figures,
                new LidSharingAnalyzer(routed, threads).analyze());
    }

    private static List<CongestionSvg.Panel> panels(List<Row> rows, List<TrafficPattern> patterns) {
        List<CongestionSvg.Panel> panels = new ArrayList<>();
        List<String> names = rows.stream().map(Row::engine).toList();
        for (int p = 0; p < patterns.size(); p++) {
            long[] values = new long[rows.size()];
            for (int r = 0; r < rows.size(); r++) {
                values[r] = rows.get(r).failure() == null ? rows.get(r).patterns().get(p).max() : -1;
            }
            panels.add(new CongestionSvg.Panel(patterns.get(p).name() + " max", names, values));
        }
        return panels;
    }

    private static void print(List<Row> rows, List<TrafficPattern> patterns, PrintStream out) {
        StringBuilder header = new StringBuilder(String.format("%-16s %12s %14s %8s", "engine", "routing ms",
                "unrouted pairs", "max path"));
        for (TrafficPattern p : patterns) {
            header.append(String.format(" %12s", p.name() + " max"));
            if (!(p instanceof TrafficPattern.AllToAll)) {
                header.append(String.format(" %12s", p.name() + " mean"));
            }
        }
        boolean lmc = rows.stream().anyMatch(r -> r.sharing() != null && r.sharing().lids() > 1);
        if (lmc) {
            LidSharingColumns.HEADER.forEach(h -> header.append(String.format(" %12s", h)));
        }
        out.println(header.toString().stripTrailing());
        List<String> notes = new ArrayList<>();
        for (Row r : rows) {
            if (r.failure() != null) {
                out.println(String.format("%-16s %s", r.engine(), r.failure()));
                continue;
            }
            StringBuilder line = new StringBuilder(String.format("%-16s %12s %14d %8s", r.engine(),
                    Double.isNaN(r.millis()) ? "-" : String.format("%.1f", r.millis()), r.validity().unreachablePairs(),
                    r.lengths().max() < 0 ? "-" : Integer.toString(r.lengths().max())));
            for (PatternCongestion c : r.patterns()) {
                line.append(String.format(" %12d", c.max()));
                if (!(c.pattern() instanceof TrafficPattern.AllToAll)) {
                    line.append(String.format(" %12.3f", QualityCommand.rounded(c.mean())));
                }
                if (c.unroutedPairs() > 0) {
                    notes.add(r.engine() + ": " + c.unroutedPairs() + " " + c.pattern() + " pairs dead-end or loop"
                            + " and are not counted");
                }
            }
            if (lmc) {
                LidSharingColumns.cells(r.sharing()).forEach(c -> line.append(String.format(" %12s", c)));
                String note = LidSharingColumns.note(r.engine(), r.sharing());
                if (!note.isEmpty()) {
                    notes.add(note);
                }
            }
            out.println(line);
            if (!r.note().isEmpty()) {
                notes.add(r.engine() + ": " + r.note());
            }
        }
        notes.forEach(out::println);
    }
}
