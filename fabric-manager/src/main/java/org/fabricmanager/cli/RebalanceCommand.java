package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code rebalance}: has a running daemon route its fabric in full again ({@code POST /api/v1/routing/rebalance}),
 * after repairs moved only what faults forced; only the blocks that change are pushed. With {@code --dry-run}, asks
 * the what-if of a rebalance instead ({@code POST /api/v1/whatif} with {@code {"rebalance":true}}): the entries,
 * blocks and switches it would change and the congestion of the tables in force beside the full routing's.
 */
final class RebalanceCommand implements Command {
    @Override
    public String name() {
        return "rebalance";
    }

    @Override
    public String summary() {
        return "route a running daemon's fabric in full again after repairs (REST /api/v1/routing/rebalance)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager rebalance [--url URL] [--ca FILE] [--token-file F] [--dry-run] [--wait] [--json]
                  Routes the fabric in force in full again, with the engine from scratch, as if it had just
                  been discovered: after faults were repaired (routing.onFault: repair, which moves only the
                  entries a fault forces), the tables become the engine's own again. Only the 64-entry blocks
                  that change are pushed, switch by switch, like after a fault: every route that moves is a
                  flow whose path changes under running jobs, so rebalance when the fabric is quiet.
                  %s
                  --token-file F          the daemon's admin token (rest.adminToken), first line of a file
                                          only its owner may read; a rebalance is an admin action
                  --dry-run               change nothing: print what a rebalance would change (entries, blocks,
                                          switches) and the congestion now and after (the what-if of a rebalance)
                %s
                  --json                  the daemon's JSON answer instead of the lines
                  The daemon answers 429 while the fabric is being routed: ask again once it converged.
                  Exit code 0 when the daemon answered, 1 when --wait ran out, 2 for bad input or when it
                  refused.""".formatted(DaemonClient.URL_USAGE, ConvergenceWait.USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        return DaemonClient.options("token-file");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("dry-run", "wait", DaemonClient.JSON_OPTION);
    }

    @Override
    public int run(Arguments args, Console console) {
        DaemonClient client = DaemonClient.of(args);
        String token = args.has("token-file") ? WhatIfCommand.token(Path.of(args.require("token-file"))) : null;
        boolean dryRun = args.flag("dry-run");
        JsonNode r = dryRun ? client.post("/api/v1/whatif", "{\"rebalance\":true}", token)
                : client.post("/api/v1/routing/rebalance", "", token);
        if (args.flag(DaemonClient.JSON_OPTION)) {
            console.out().println(r.toString());
        } else if (dryRun) {
            estimate(r, console.out());
        } else {
            PrintStream out = console.out();
            out.printf("routing v%d routed in full in %.1f ms, replacing v%d%s%n", r.path("routingVersion").asLong(),
                    r.path("durationMs").asDouble(), r.path("previousVersion").asLong(),
                    r.path("replacedRepair").asBoolean() ? " (a repair)" : "");
            boolean none = r.path("changedBlocks").asLong() == 0;
            out.printf("%s entries in %d blocks on %d switches changed%s%n",
                    r.path("changedEntries").isNumber() ? r.path("changedEntries").asText() : "?",
                    r.path("changedBlocks").asLong(), r.path("switchesTouched").asInt(), none
                            ? ": the tables in force were a full routing's already"
                            : "; `fabric-manager status` shows the push converge (or --wait)");
        }
        if (args.flag("wait") && !dryRun) {
            return ConvergenceWait.await(client, r.path("routingVersion").asLong(),
                    args.flag(DaemonClient.JSON_OPTION) ? console.err() : console.out());
        }
        return ExitCodes.OK;
    }

    private static void estimate(JsonNode r, PrintStream out) {
        out.printf("a rebalance of routing v%d (%s, %s) would change %d entries in %d blocks on %d switches%n",
                r.path("routingVersion").asLong(), r.path("engine").asText("?"),
                r.path("repaired").asBoolean() ? "a repair" : "a full routing already",
                r.path("changedEntries").asLong(), r.path("changedBlocks").asLong(), r.path("switchesTouched").asInt());
        if (!r.path("valid").asBoolean()) {
            out.printf("the full routing leaves %d leaf pairs unreachable%n", r.path("unreachableLeafPairs").asLong());
        }
        WhatIfCommand.congestion(out, "now", r.path("before"), r.path("after"));
        out.printf("routed in %.1f ms, analysed in %.1f ms%n", r.path("routingMs").asDouble(), r.path("analysisMs").asDouble());
    }
}
