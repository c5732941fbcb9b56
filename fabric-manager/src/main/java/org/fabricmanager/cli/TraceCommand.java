package org.fabricmanager.cli;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.VcRules;
import org.fabricmanager.routing.analysis.PathTracer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.Trace;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.LidFabric;

/**
 * {@code trace}: follows the forwarding tables of an {@code lft-text/1} file from one node to
 * another through a {@code fabric-topology/1} fabric and prints every hop (switch, output port,
 * what the port leads to), then whether the route arrives, dead-ends (and how) or loops (and where).
 */
final class TraceCommand implements Command {

    @Override
    public String name() {
        return "trace";
    }

    @Override
    public String summary() {
        return "follow the forwarding tables from one node to another, hop by hop";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager trace --topology FILE [--topology-format F] --lft FILE [--lft-format F] --src D --dst D
                  Prints the route from the node with destination index D (--src) to the node with
                  destination index D (--dst): each switch crossed with the output port its table gives.
                  --topology FILE   the fabric (fabric-topology/1, or an ibnetdiscover dump: detected)
                  --topology-format F  fabric-topology or ibnetdiscover, instead of detecting it
                  --lft FILE        its forwarding tables (lft-text/1 or lft-bin/1), e.g. from route --lft-out;
                                    with FILE.vc beside it (vc-text/1) the channel of each hop is shown
                  --lft-format F    lft-text (default) or opensm: an opensm-lfts.dump (or ibroute output),
                                    keyed by the LIDs of the --topology ibnetdiscover dump
                  --src D           destination index of the sending node
                  --dst D           destination index of the receiving node
                  Exit code 0 when the route reaches the destination; 3 when it dead-ends (no route,
                  a port leading nowhere or to another node) or loops; 2 for bad input.""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("topology", "topology-format", "lft", "lft-format", "src", "dst");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) {
        String topologyFile = args.require("topology");
        String lftFile = args.require("lft");
        args.require("src");
        args.require("dst");
        int src = args.intValue("src", -1, 0, Integer.MAX_VALUE);
        int dst = args.intValue("dst", -1, 0, Integer.MAX_VALUE);
        LidFabric loaded = FabricSource.loadWithLids(args);
        Fabric fabric = loaded.fabric();
        ForwardingTables tables = LoadedTables.read(args, loaded);
        FabricIndex index = fabric.index();
        RoutedFabric routed;
        try {
            routed = RoutedFabric.of(index, tables);
        } catch (IllegalArgumentException e) {
            throw new UsageException("trace: " + lftFile + ": " + e.getMessage() + " (" + topologyFile + ")", e);
        }
        requireNode(index, src, "src", topologyFile);
        requireNode(index, dst, "dst", topologyFile);
        if (src == dst) {
            throw new UsageException("trace: --src and --dst are the same node (index " + src + ")");
        }
        Trace trace = new PathTracer(routed).trace(src, dst);
        print(fabric, trace, tables.vcRules().map(r -> channels(index, tables, r, trace)).orElse(null), console.out());
        return trace.delivered() ? ExitCodes.OK : ExitCodes.MISMATCH;
    }

    private static void requireNode(FabricIndex index, int d, String option, String topologyFile) {
        if (d >= index.destinationCount() || index.nodeByDestination(d) == FabricIndex.NONE) {
            throw new UsageException("trace: --" + option + " " + d + ": no node of " + topologyFile
                    + " has destination index " + d);
        }
    }

    static void print(Fabric fabric, Trace trace, PrintStream out) {
        print(fabric, trace, null, out);
    }

    /** Prints the trace; with {@code vcs} (the channel each hop leaves on) a column for them. */
    static void print(Fabric fabric, Trace trace, int[] vcs, PrintStream out) {
        FabricIndex index = fabric.index();
        out.println("trace " + node(fabric, index, trace.source()) + " -> " + node(fabric, index, trace.destination()));
        List<Trace.Hop> hops = trace.hops();
        if (!hops.isEmpty()) {
            out.printf("%-4s %-18s %-12s %4s%s  %s%n", "hop", "switch", "name", "port", vcs == null ? "" : "  vc",
                    "leads to");
        }
        for (int i = 0; i < hops.size(); i++) {
            Trace.Hop hop = hops.get(i);
            String vc = vcs == null ? "" : vcs[i] < 0 ? "   -" : "%4d".formatted(vcs[i]);
            out.printf("%-4d %-18s %-12s %4d%s  %s%n", i + 1, Guids.format(hop.switchGuid()),
                    switchName(fabric, hop.switchGuid()), hop.outPort(), vc, leadsTo(fabric, index, hop));
        }
        out.println(conclusion(fabric, index, trace));
    }

    /**
     * The virtual channel each hop leaves on under {@code rules} (from the rules file beside the
     * tables), {@code -1} where the hop leads nowhere; the rules are indexed like {@code tables}.
     */
    static int[] channels(FabricIndex index, ForwardingTables tables, VcRules rules, Trace trace) {
        Map<Long, Integer> ids = new HashMap<>();
        for (int s = 0; s < tables.switchCount(); s++) {
            ids.put(tables.switchGuid(s), s);
        }
        List<Trace.Hop> hops = trace.hops();
        int[] vcs = new int[hops.size()];
        int vc = 0;
        int inPort = -1;
        for (int i = 0; i < hops.size(); i++) {
            Trace.Hop hop = hops.get(i);
            Integer t = ids.get(hop.switchGuid());
            int out = hop.outPort();
            if (t == null || out < 1 || out > rules.ports(t) || (i > 0 && (inPort < 1 || inPort > rules.ports(t)))) {
                vcs[i] = -1;
                continue;
            }
            vc = i == 0 ? rules.first(t, out) : rules.next(t, inPort, vc, out);
            vcs[i] = vc;
            inPort = out <= index.switchPorts(hop.switchId()) ? index.peerPorts(hop.switchId())[out] : -1;
        }
        return vcs;
    }

    private static String leadsTo(Fabric fabric, FabricIndex index, Trace.Hop hop) {
        int s = hop.switchId();
        int port = hop.outPort();
        if (port == ForwardingTables.NO_ROUTE) {
            return "(no route)";
        }
        if (port < 1 || port > index.switchPorts(s)) {
            return "(no such port: the switch has " + index.switchPorts(s) + ")";
        }
        int node = index.peerNodes(s)[port];
        if (node != FabricIndex.NONE) {
            return "node " + node(fabric, index, index.nodeIndex(node));
        }
        int peer = index.peerSwitches(s)[port];
        if (peer == FabricIndex.NONE) {
            return "(nothing: no cable)";
        }
        long guid = index.switchGuid(peer);
        return Guids.format(guid) + " " + switchName(fabric, guid) + " port " + index.peerPorts(s)[port];
    }

    private static String conclusion(Fabric fabric, FabricIndex index, Trace trace) {
        List<Trace.Hop> hops = trace.hops();
        Trace.Hop last = hops.isEmpty() ? null : hops.get(hops.size() - 1);
        String at = last == null ? "" : Guids.format(last.switchGuid()) + " (" + switchName(fabric, last.switchGuid())
                + ")";
        return switch (trace.outcome()) {
            case DELIVERED -> "delivered: " + hops.size() + (hops.size() == 1 ? " switch" : " switches") + ", "
                    + (hops.size() - 1) + " switch-to-switch " + (hops.size() == 2 ? "link" : "links");
            case NO_ROUTE -> "dead end: switch " + at + " has no route (255) for index " + trace.destination();
            case UNCONNECTED_PORT -> "dead end: port " + last.outPort() + " of switch " + at + " leads nowhere";
            case WRONG_NODE -> "dead end: port " + last.outPort() + " of switch " + at + " leads to another node";
            case LOOP -> {
                Trace.Hop back = hops.get(trace.loopStart());
                yield "loop: switch " + at + " sends the packet back to " + Guids.format(back.switchGuid()) + " ("
                        + switchName(fabric, back.switchGuid()) + "), hop " + (trace.loopStart() + 1);
            }
            case SOURCE_DETACHED -> "dead end: the source node has no link to a switch";
        };
    }

    private static String node(Fabric fabric, FabricIndex index, int d) {
        int pos = index.nodeByDestination(d);
        long guid = index.nodeGuid(pos);
        String name = fabric.nodeByGuid(guid).map(n -> n.name()).orElse("?");
        return name + " (index " + d + ", " + Guids.format(guid) + ")";
    }

    private static String switchName(Fabric fabric, long guid) {
        return fabric.switchByGuid(guid).map(s -> s.name()).orElse("?");
    }
}
