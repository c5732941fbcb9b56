package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;

/**
 * {@code route --src NODE --dst NODE [--url URL]}: the path a running daemon's tables in force take from one
 * end node (by destination index, GUID or name, {@link FabricNames}) to another ({@code GET /api/v1/route}), one line per switch crossed.
 */
final class RouteQuery {
    static final Set<String> OPTIONS = DaemonClient.options("src", "dst");
    private static final Set<String> OFFLINE = Set.of("topology", "pgft", "hdft", "engine", "threads", "lft-out",
            "degrade-links", "degrade-switches", "seed", "fail-leaves", "fail");
    static final String USAGE = """
            usage: fabric-manager route --src NODE --dst NODE [--url URL]
              Prints the switches a packet from one end node to another crosses with the tables a
              running daemon has in force, and the output port at each. NODE is a destination index,
              a node GUID (0x...) or a node name as the fabric reports it.
              %s""".formatted(DaemonClient.URL_USAGE);

    private RouteQuery() {
    }

    /** Whether the arguments ask a daemon ({@code --url}, {@code --src} or {@code --dst}) rather than route offline. */
    static boolean isQuery(Arguments args) {
        return args.has(DaemonClient.URL_OPTION) || args.has("src") || args.has("dst");
    }

    static int run(Arguments args, Console console) {
        for (String other : OFFLINE) {
            if (args.has(other)) {
                throw new UsageException("route: --src/--dst/--url query a running daemon; --" + other
                        + " belongs to offline routing");
            }
        }
        if (!args.has("src") || !args.has("dst")) {
            throw new UsageException("route: a query of the daemon needs both --src NODE and --dst NODE "
                    + "(destination indices, node GUIDs or node names)");
        }
        DaemonClient client = DaemonClient.of(args);
        FabricNames names = new FabricNames("route", () -> client.get("/api/v1/topology"));
        int src = names.node(args.require("src"), "src");
        int dst = names.node(args.require("dst"), "dst");
        JsonNode r = client.get("/api/v1/route?src=" + src + "&dst=" + dst);
        console.out().printf("%d (%s) -> %d (%s): %s with tables v%d, %d switches%n", src, r.path("srcNode").asText("?"),
                dst, r.path("dstNode").asText("?"), r.path("outcome").asText("?"), r.path("version").asLong(),
                r.path("hops").size());
        TextTable table = new TextTable(">HOP", "GUID", "NAME", ">OUT PORT");
        int hop = 1;
        for (JsonNode h : r.path("hops")) {
            int port = h.path("outPort").asInt();
            table.row(hop++, h.path("guid").asText(), h.path("name").asText(null), port == 255 ? "none" : port);
        }
        if (table.size() > 0) {
            table.print(console.out());
        }
        return ExitCodes.OK;
    }
}
