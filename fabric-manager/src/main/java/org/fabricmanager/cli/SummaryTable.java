package org.fabricmanager.cli;

import java.io.PrintStream;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSummary;

/** Prints a {@link FabricSummary} as the table {@code topology} and {@code demo} show operators. */
final class SummaryTable {
    private SummaryTable() {
    }

    static void print(Fabric fabric, PrintStream out) {
        FabricSummary summary = FabricSummary.of(fabric);
        out.println("fabric" + fabric.pgft().map(p -> " " + p).orElse("") + fabric.hdft().map(h -> " " + h).orElse("")
                + ": " + fabric.switches().size()
                + " switches, " + summary.nodes() + " nodes, " + fabric.links().size() + " links");
        out.printf("%-6s %9s %11s %6s%n", "level", "switches", "links down", "radix");
        for (FabricSummary.Level l : summary.levels()) {
            out.printf("%-6d %9d %11d %6d%n", l.level(), l.switches(), l.linksDown(), l.maxRadix());
        }
        out.printf("nodes: %d (%d attached), switch links: %d, node links: %d%n", summary.nodes(),
                summary.attachedNodes(), summary.switchLinks(), summary.nodeLinks());
        if (summary.unreachedSwitches() > 0) {
            out.printf("switches no leaf reaches: %d%n", summary.unreachedSwitches());
        }
    }
}
