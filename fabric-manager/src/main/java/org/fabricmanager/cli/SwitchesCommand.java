package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Locale;
import java.util.Set;

/**
 * {@code switches}: every switch a running daemon knows, one line each (GUID, name, connection,
 * ports up, table version and whether it holds the current tables, keepalive RTT), from
 * {@code GET /api/v1/switches}.
 */
final class SwitchesCommand implements Command {
    @Override
    public String name() {
        return "switches";
    }

    @Override
    public String summary() {
        return "a running daemon's switches: connection, ports, table in sync (REST /api/v1/switches)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager switches [--url URL] [--not-in-sync] [--json]
                  Prints one line per switch the daemon knows.
                  %s
                  --not-in-sync           only switches that are dead, disconnected or do not hold the current tables
                  --json                  the daemon's JSON (the switches listed) instead of the table
                  Exit code 0 when the daemon answered, 2 when it is unreachable or answers an error.""".formatted(DaemonClient.URL_USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        return DaemonClient.options();
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("not-in-sync", DaemonClient.JSON_OPTION);
    }

    @Override
    public int run(Arguments args, Console console) {
        JsonNode list = DaemonClient.of(args).get("/api/v1/switches");
        boolean onlyBad = args.flag("not-in-sync");
        TextTable table = new TextTable("GUID", "NAME", "STATE", "CONNECTED", "ADDRESS", ">PORTS UP", ">TABLE", "IN SYNC",
                ">RTT ms");
        int connected = 0;
        int inSync = 0;
        int dead = 0;
        int disconnected = 0;
        int drained = 0;
        ArrayNode listed = JsonNodeFactory.instance.arrayNode();
        for (JsonNode s : list) {
            boolean c = s.path("connected").asBoolean();
            boolean sync = s.path("inSync").asBoolean();
            String state = text(s, "state");
            connected += c ? 1 : 0;
            inSync += sync ? 1 : 0;
            dead += "DEAD".equals(state) ? 1 : 0;
            disconnected += "DISCONNECTED".equals(state) ? 1 : 0;
            boolean isDrained = s.path("drained").asBoolean();
            drained += isDrained ? 1 : 0;
            if (onlyBad && c && sync) {
                continue;
            }
            listed.add(s);
            table.row(s.path("guid").asText(), text(s, "name"), isDrained ? state + " (drained)" : state, c ? "yes" : "NO",
                    text(s, "address"),
                    portsUp(s),
                    s.hasNonNull("tableVersion") ? "v" + s.get("tableVersion").asLong() : null, sync ? "yes" : "NO",
                    s.hasNonNull("rttMs") ? String.format(Locale.ROOT, "%.2f", s.get("rttMs").asDouble()) : null);
        }
        if (args.flag(DaemonClient.JSON_OPTION)) {
            console.out().println(DaemonClient.pretty(listed));
            return ExitCodes.OK;
        }
        if (table.size() > 0) {
            table.print(console.out());
        }
        console.out().printf("%d switches, %d connected, %d in sync%s%s%s%n", list.size(), connected, inSync,
                dead == 0 ? "" : ", " + dead + " dead", disconnected == 0 ? "" : ", " + disconnected + " disconnected",
                drained == 0 ? "" : ", " + drained + " drained");
        return ExitCodes.OK;
    }

    /** {@code 15/16}; a switch that is not connected has no port status: {@code -/16}. */
    private static String portsUp(JsonNode s) {
        if (!s.hasNonNull("ports")) {
            return null;
        }
        return (s.hasNonNull("portsUp") ? String.valueOf(s.get("portsUp").asInt()) : "-") + "/" + s.get("ports").asInt();
    }

    private static String text(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }
}
