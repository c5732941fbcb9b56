package org.fabricmanager.cli;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.fabricmanager.opensm.OpenSmTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.VcText;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code route}: computes the forwarding tables of a fabric with one engine and writes them as
 * {@code lft-text/1} (to a file, or stdout), with the phase timings and the validity on stderr.
 * A fabric where some leaf pairs have no route is still routed as far as possible, but the
 * command says which pairs and exits with 2. With {@code --src}/{@code --dst} (and {@code --url}) it
 * asks a running daemon for one path instead ({@link RouteQuery}).
 */
final class RouteCommand implements Command {

    @Override
    public String name() {
        return "route";
    }

    @Override
    public String summary() {
        return "compute forwarding tables (lft-text/1) with dmodc or another engine";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager route (--topology FILE | --pgft SPEC [--degrade-links F] [--degrade-switches K] [--seed S]
                                             | --hdft SPEC [--fail-leaves K | --fail GUID,...] [--seed S])
                                            [--engine %s] [--threads T] [--lft-out FILE] [--lft-format lft-text|lft-bin|opensm]
                                            [--verify | --previous LFT [--refine]]
                  Routes the fabric and writes its tables as lft-text/1 to FILE (default: stdout);
                  phase timings and validity go to stderr.
                %s
                  --engine NAME            routing engine (default %s; vtftr for a fabric expected to be an HDFT)
                  --threads T              routing threads (default: available processors, %d here)
                  --lft-out FILE           write the tables to FILE instead of stdout, and the engine's
                                           virtual-channel rules, if any (vtftr), to FILE.vc (lft-text only)
                  --verify                 instead of writing tables, route with dmodc and with dmodc-plain (the
                                           paper's algorithm written plainly) and compare every entry; exit
                                           code 3 when any differs (the first %d are named)
                  --previous LFT           repair LFT (the tables in force, lft-text or lft-bin) for this fabric
                                           instead of routing it afresh, as the daemon does after a change
                                           (routing.onFault: repair): only entries whose route crosses a failed
                                           element, or that lose or gain every path, get a new port, and an
                                           element that came back takes back the routes a full routing gives it
                                           (engines that repair: dmodc); stderr gives the changed entries, the
                                           minimum any valid routing changes and the entries taken back
                  --refine                 with --previous: the entries the repair moved at the ports of the
                                           engine's full routing, as a daemon with routing.rebalance.refineAfter
                                           installs them once the repair converged (dmodc-home; the same entries
                                           change)
                  --lft-format F           lft-text (default); lft-bin (lft-bin/1: the same tables as bytes, read
                                           back by --previous, trace and quality in a fraction of the time; needs
                                           --lft-out); or opensm: OpenSM's opensm-lfts.dump, keyed by LID
                                           (the dump's LIDs, or the plan of docs/opensm.md), switch LIDs routed
                                           MinHop, for opensm -R file -U FILE
                  Exit code 0 when every leaf pair is routed; 2 for bad input, an engine that refuses
                  the fabric (dmodk on a degraded one) or a disconnected fabric (tables are still
                  written, unreachable entries are 255).
                %s""".formatted(String.join("|", RoutingEngines.names()),
                FabricSource.USAGE.indent(2).stripTrailing(), RoutingEngines.DEFAULT, Runtime.getRuntime().availableProcessors(),
                RouteVerify.EXAMPLES, RouteQuery.USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        Set<String> options = new HashSet<>(FabricSource.OPTIONS);
        options.addAll(Set.of("engine", "threads", "lft-out", "lft-format", "previous"));
        options.addAll(RouteQuery.OPTIONS);
        return options;
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("verify", "refine");
    }

    @Override
    public int run(Arguments args, Console console) throws IOException {
        // --src/--dst ask a running daemon, at --url or the default address like every admin command
        if (RouteQuery.isQuery(args)) {
            return RouteQuery.run(args, console);
        }
        int threads = args.intValue("threads", Runtime.getRuntime().availableProcessors(), 1, 1024);
        String format = args.valueOr("lft-format", "lft-text");
        if (!format.equals("lft-text") && !format.equals("lft-bin") && !format.equals("opensm")) {
            throw new UsageException("route: --lft-format must be lft-text, lft-bin or opensm, got '" + format + "'");
        }
        if (format.equals("lft-bin") && !args.has("lft-out")) {
            throw new UsageException("route: --lft-format lft-bin writes bytes: it needs --lft-out FILE");
        }
        if (args.flag("refine") && !args.has("previous")) {
            throw new UsageException("route: --refine goes with --previous");
        }
        LidFabric loaded = FabricSource.loadWithLids(args);
        Fabric fabric = loaded.fabric();
        // refuse a fabric OpenSM cannot address before spending time on routing it
        LidPlan lids = format.equals("opensm") ? FabricSource.lidsOf(loaded, "route") : null;
        String engineName = args.valueOr("engine", fabric.hdft().isPresent() ? QualityCommand.HDFT_ENGINE
                : RoutingEngines.DEFAULT);
        FabricIndex index = fabric.index();
        if (index.leafCount() == 0) {
            throw new UsageException("route: the fabric has no leaf switch (no node is linked to a switch): nothing to route");
        }
        if (args.flag("verify")) {
            if (args.has("engine") || args.has("lft-out") || args.has("lft-format")) {
                throw new UsageException("route: --verify compares dmodc with dmodc-plain and writes no tables:"
                        + " it takes no --engine, --lft-out or --lft-format");
            }
            RouteVerify.Report report = RouteVerify.verify(index, threads);
            RouteVerify.lines(report).forEach(console.out()::println);
            return report.differing() == 0 ? ExitCodes.OK : ExitCodes.MISMATCH;
        }
        RoutingResult result;
        if (args.has("previous")) {
            result = RouteRepair.repair(Path.of(args.require("previous")), index, engineName, threads,
                    args.flag("refine"), console);
        } else {
            try (RoutingEngine engine = RoutingEngines.create(engineName, threads)) {
                result = engine.route(index);
            } catch (RoutingException e) {
                throw new UsageException("route: " + e.getMessage(), e);
            }
        }
        String out = args.value("lft-out").orElse(null);
        if (lids != null) {
            writeOpenSm(fabric, result, lids, out, console);
        } else if (out != null) {
            try {
                Path rules = VcText.writeWithTables(result.tables(), result.engine(), Path.of(out),
                        format.equals("lft-bin"));
                if (rules != null) {
                    console.err().println("route: virtual-channel rules (" + VcText.FORMAT + ") written to " + rules);
                }
            } catch (UncheckedIOException e) {
                throw new UsageException("route: --lft-out " + e.getMessage(), e);
            }
        } else {
            Writer w = new OutputStreamWriter(console.out(), StandardCharsets.UTF_8);
            LftText.write(result.tables(), result.engine(), w);
        }
        console.err().println("route: " + RoutingSummary.timings(result, index, threads));
        if (lids != null) {
            console.err().println("route: opensm format: " + lids.size() + " LIDs, largest " + lids.maxLid()
                    + (loaded.lids() == null ? " (LID plan: switches from 1 by GUID, then nodes by index)" : " (from the dump)"));
        }
        int unplugged = index.nodeCount() - index.leafNodeArray().length;
        if (unplugged > 0) {
            console.err().println("route: " + unplugged + " nodes have no link: their entries are 255");
        }
        console.err().println("route: " + RoutingSummary.validity(result.validity(), index));
        result.tables().vcRules().ifPresent(rules -> console.err().println("route: the tables need "
                + rules.summary() + (out != null ? "" : " (stdout holds the ports only; --lft-out F writes the rules to F"
                + VcText.SUFFIX + ")")));
        return result.validity().isValid() ? ExitCodes.OK : ExitCodes.BAD_INPUT;
    }

    private static void writeOpenSm(Fabric fabric, RoutingResult result, LidPlan lids, String out, Console console)
            throws IOException {
        try {
            if (out != null) {
                OpenSmTables.write(fabric, result.tables(), lids, Path.of(out));
            } else {
                Writer w = new OutputStreamWriter(console.out(), StandardCharsets.UTF_8);
                OpenSmTables.write(fabric, result.tables(), lids, w);
            }
        } catch (UncheckedIOException e) {
            throw new UsageException("route: --lft-out " + e.getMessage(), e);
        } catch (TopologyException e) {
            throw new UsageException("route: " + e.getMessage(), e);
        }
    }
}
