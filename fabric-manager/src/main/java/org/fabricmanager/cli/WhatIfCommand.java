package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiException;

/**
 * {@code whatif}: asks a running daemon what its engine would do if switches or links failed
 * ({@code POST /api/v1/whatif}): how many table entries and blocks would change on which switches, whether
 * every leaf pair would stay routed, and the congestion under the {@code quality} traffic patterns, next to
 * the figures of the tables in force ({@code GET /api/v1/routing/quality}). Nothing in the fabric changes.
 */
final class WhatIfCommand implements Command {
    /** Longest token file read. */
    private static final int MAX_TOKEN_BYTES = 4096;

    @Override
    public String name() {
        return "whatif";
    }

    @Override
    public String summary() {
        return "what a running daemon's routing would become if switches or links failed (REST /api/v1/whatif)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager whatif [--url URL] [--ca FILE] [--token-file F] [--switch G[,G...]] [--link G:P[,G:P...]] [--json]
                  Asks the daemon to route the fabric in force without these switches and links, with its own
                  engine and destination indices, and to compare with the tables in force. Nothing changes in
                  the fabric: not the routing, its version, the stored routing nor the switches' tables.
                  Prints the entries, 64-entry blocks and switches that would change (among the switches that
                  survive; with routing.onFault: repair, the repair the daemon would install and the least any
                  valid routing changes), whether every leaf pair would stay routed, and the congestion (routes
                  on the busiest switch-to-switch link) under quality's traffic patterns, now and after.
                  `fabric-manager rebalance --dry-run` asks what a rebalance would change instead.
                  %s
                  --token-file F          the daemon's admin token (rest.adminToken), first line of a file
                                          only its owner may read; what-if is an admin action
                  --switch LIST           switches to fail, by GUID or name
                  --link LIST             links to fail, by one end: switch GUID or name and port,
                                          e.g. 0x1000000200000001:5 or s2-1:5
                  --json                  the daemon's JSON answer instead of the table
                  One what-if runs at a time: the daemon answers 429 while another runs.
                  Exit code 0 when the daemon answered, 2 for bad input or when it refused.""".formatted(DaemonClient.URL_USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        return DaemonClient.options("token-file", "switch", "link");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("json");
    }

    @Override
    public int run(Arguments args, Console console) {
        if (!args.has("switch") && !args.has("link")) {
            throw new UsageException("whatif: name at least one --switch or --link to fail");
        }
        DaemonClient client = DaemonClient.of(args);
        FabricNames names = new FabricNames("whatif", () -> client.get("/api/v1/topology"));
        ObjectMapper json = new ObjectMapper();
        ObjectNode request = json.createObjectNode();
        ArrayNode switches = request.putArray("switches");
        for (String g : args.listValue("switch", List.of())) {
            switches.add(names.switchGuid(g, "--switch '" + g + "'"));
        }
        ArrayNode links = request.putArray("links");
        for (String l : args.listValue("link", List.of())) {
            int colon = l.lastIndexOf(':');
            if (colon <= 0) {
                throw new UsageException("whatif: --link '" + l + "': expected SWITCH:PORT, e.g. 0x1000000200000001:5 or s2-1:5");
            }
            int port;
            try {
                port = Integer.parseInt(l.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new UsageException("whatif: --link '" + l + "': the port must be a number");
            }
            ObjectNode link = links.addObject();
            link.put("guid", names.switchGuid(l.substring(0, colon), "--link '" + l + "'"));
            link.put("port", port);
        }
        String token = args.has("token-file") ? token(Path.of(args.require("token-file"))) : null;
        JsonNode result = client.post("/api/v1/whatif", request.toString(), token);
        if (args.flag("json")) {
            console.out().println(result.toString());
            return ExitCodes.OK;
        }
        JsonNode now = client.get("/api/v1/routing/quality");
        print(result, now, console.out());
        return ExitCodes.OK;
    }

    /** The first line of an owner-only token file, as the daemon reads rest.adminTokenFile. */
    static String token(Path file) {
        try {
            PemFiles.checkOwnerOnly(file, "the admin token");
        } catch (PkiException e) {
            throw new UsageException("whatif: --token-file " + e.getMessage());
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_TOKEN_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw new UsageException("whatif: --token-file " + file + ": no such file");
        } catch (IOException e) {
            throw new UsageException("whatif: --token-file " + file + ": " + e.getMessage());
        }
        if (bytes.length > MAX_TOKEN_BYTES) {
            throw new UsageException("whatif: --token-file " + file + ": longer than " + MAX_TOKEN_BYTES + " bytes");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        int end = text.indexOf('\n');
        String token = (end < 0 ? text : text.substring(0, end)).trim();
        if (token.isEmpty()) {
            throw new UsageException("whatif: --token-file " + file + ": the first line is empty");
        }
        return token;
    }

    private static void print(JsonNode r, JsonNode now, PrintStream out) {
        long version = r.path("routingVersion").asLong();
        out.printf("what-if on routing v%d (%s): %d switch(es) and %d link(s) failed%n", version, r.path("engine").asText("?"),
                r.path("failedSwitches").asInt(), r.path("failedLinks").asInt());
        row(out, "changed entries", r.path("changedEntries").asLong() + (r.path("minimumEntries").isNumber()
                ? " (repaired; minimum " + r.path("minimumEntries").asLong() + ")" : ""));
        row(out, "changed blocks", Long.toString(r.path("changedBlocks").asLong()));
        row(out, "switches touched", Integer.toString(r.path("switchesTouched").asInt()));
        row(out, "valid", r.path("valid").asBoolean() ? "yes" : "no (" + r.path("unreachableLeafPairs").asLong()
                + " leaf pairs unreachable)");
        row(out, "deadlock-free", r.path("deadlockFree").asBoolean() ? "yes" : "no");
        row(out, "max path", r.path("maxPathLength").isNull() ? "-" : r.path("maxPathLength").asText());
        JsonNode live = now.path("quality").path("routingVersion").asLong() == version ? now.path("quality").path("patterns")
                : null;
        congestion(out, live == null ? "now: -" : "now", live, r.path("congestion"));
        out.printf("routed in %.1f ms, analysed in %.1f ms%n", r.path("routingMs").asDouble(), r.path("analysisMs").asDouble());
    }

    /**
     * The congestion table of a what-if: each pattern's max and mean {@code after}, beside the same figure of
     * {@code before} ("-" when {@code before} is {@code null} or lacks it).
     */
    static void congestion(PrintStream out, String nowHeader, JsonNode before, JsonNode after) {
        out.printf("%-18s %12s %12s%n", "congestion", nowHeader, "after");
        for (Iterator<Map.Entry<String, JsonNode>> it = after.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            for (String figure : new String[] {"max", "mean"}) {
                JsonNode a = e.getValue().path(figure);
                if (a.isMissingNode() || a.isNull()) {
                    continue;
                }
                JsonNode b = before == null ? null : before.path(e.getKey()).path(figure);
                out.printf("  %-16s %12s %12s%n", e.getKey() + " " + figure,
                        b == null || b.isMissingNode() || b.isNull() ? "-" : b.asText(), a.asText());
            }
        }
    }

    private static void row(PrintStream out, String label, String value) {
        out.printf("%-18s %s%n", label, value);
    }
}
