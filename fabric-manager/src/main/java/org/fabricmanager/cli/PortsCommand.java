package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.fabricmanager.topology.Guids;

/**
 * {@code ports --switch SWITCH}: a switch's port counters as its agent last reported them
 * ({@code GET /api/v1/switches/{guid}/ports}), one line per port, errors and drops marked; like
 * {@code perfquery}/{@code ibqueryerrors} for this fabric. The switch is named by GUID or by its name. The links of
 * its ports the daemon judges suspect or bad, or holds isolated ({@code GET /api/v1/links/health}), are marked and
 * listed below the table with the figures that decided.
 */
final class PortsCommand implements Command {
    private static final String SWITCH = "switch";
    private static final String ERRORS = "errors";

    @Override
    public String name() {
        return "ports";
    }

    @Override
    public String summary() {
        return "a switch's port counters: packets, bytes, errors, drops (REST /api/v1/switches/GUID/ports)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager ports --switch SWITCH [--url URL] [--errors] [--json]
                  Prints the traffic and error counters of each port of a switch, as its agent last reported them
                  ("-" where the switch does not measure one). Ports with errors or drops are marked with '!'; a
                  value that rose more than a port can count since the daemon's previous poll is marked '?', explained
                  below the table and left out of the daemon's totals. A port whose link the daemon judges suspect
                  or bad from its counters, or holds isolated (gray links), is marked so and listed below the table
                  with the figures that decided.
                  --switch SWITCH         the switch's GUID (0x...) or name
                  %s
                  --errors                only ports with errors or drops, or a link judged suspect, bad or isolated
                  --json                  the daemon's JSON answer instead of the table
                  Exit code 0 when the daemon answered, 2 when the switch is unknown, the daemon unreachable or
                  it answers an error.""".formatted(DaemonClient.URL_USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        return DaemonClient.options(SWITCH);
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of(ERRORS, DaemonClient.JSON_OPTION);
    }

    @Override
    public int run(Arguments args, Console console) {
        DaemonClient client = DaemonClient.of(args);
        String guid = guid(client, args.require(SWITCH));
        JsonNode view = client.get("/api/v1/switches/" + guid + "/ports");
        if (args.flag(DaemonClient.JSON_OPTION)) {
            console.out().println(DaemonClient.pretty(view));
            return ExitCodes.OK;
        }
        PrintStream out = console.out();
        String name = view.hasNonNull("name") ? " (" + view.get("name").asText() + ")" : "";
        if (view.path("ports").isEmpty()) {
            out.printf("switch %s%s: no port counters %s%n", view.path("guid").asText(), name,
                    view.path("reporting").asBoolean() ? "yet (the daemon asks every "
                            + view.path("intervalMs").asLong() / 1000 + " s)" : "(its agent reports none)");
            return ExitCodes.OK;
        }
        out.printf("switch %s%s: counters reported %.1f s ago%s%n", view.path("guid").asText(), name,
                view.path("ageMs").asLong() / 1000.0, view.path("reporting").asBoolean() ? "" : " (not reporting now)");
        Map<Integer, JsonNode> health = linkHealth(client.get("/api/v1/links/health"), Guids.parse(guid));
        TextTable table = new TextTable(">PORT", ">RX PACKETS", ">TX PACKETS", ">RX BYTES", ">TX BYTES", ">RX ERR",
                ">TX ERR", ">RX DROP", ">TX DROP", "");
        int troubled = 0;
        List<String> implausible = new ArrayList<>();
        for (JsonNode p : view.path("ports")) {
            p.path("implausible").properties().forEach(e -> implausible.add("port " + p.path("port").asText() + " "
                    + e.getKey() + ": " + e.getValue().asText()));
            boolean trouble = positive(p, "rxErrors") || positive(p, "txErrors") || positive(p, "rxDrops")
                    || positive(p, "txDrops");
            troubled += trouble ? 1 : 0;
            JsonNode link = health.get(p.path("port").asInt());
            if (args.flag(ERRORS) && !trouble && link == null) {
                continue;
            }
            String mark = (trouble ? "!" : "") + (link == null ? "" : (trouble ? " " : "") + state(link));
            table.row(p.path("port").asText(), n(p, "rxPackets"), n(p, "txPackets"), n(p, "rxBytes"), n(p, "txBytes"),
                    n(p, "rxErrors"), n(p, "txErrors"), n(p, "rxDrops"), n(p, "txDrops"), mark);
        }
        if (table.size() > 0) {
            table.print(out);
        }
        out.printf("%d ports, %d with errors or drops%n", view.path("ports").size(), troubled);
        for (String line : implausible) {
            out.println("? " + line);
        }
        health.forEach((port, l) -> out.println("port " + port + ": link " + l.path("link").asText() + " "
                + describe(l)));
        return ExitCodes.OK;
    }

    /** The links of switch {@code guid} in {@code GET /api/v1/links/health}, by its port, in port order. */
    static Map<Integer, JsonNode> linkHealth(JsonNode links, long guid) {
        Map<Integer, JsonNode> out = new TreeMap<>();
        for (JsonNode l : links) {
            for (String end : l.path("link").asText().split("-")) {
                int colon = end.lastIndexOf(':');
                if (colon > 0 && Guids.parse(end.substring(0, colon)) == guid) {
                    out.put(Integer.parseInt(end.substring(colon + 1)), l);
                }
            }
        }
        return out;
    }

    /** A link's state in one word: isolated, or its level. */
    static String state(JsonNode link) {
        return link.path("isolated").asBoolean() ? "isolated"
                : link.hasNonNull("level") ? link.get("level").asText().toLowerCase(Locale.ROOT) : "not judged";
    }

    /** What the daemon says of a link, with the figures that decided. */
    static String describe(JsonNode l) {
        String now = l.hasNonNull("figures") ? l.get("figures").asText() : "not judged since this manager started";
        if (l.path("isolated").asBoolean()) {
            return "isolated by the gray-link policy since " + Instant.ofEpochMilli(l.path("sinceMillis").asLong())
                    + " (given back after " + l.path("probationMs").asLong() / 1000 + " s healthy); decided by: "
                    + (l.hasNonNull("isolatedFigures") ? l.get("isolatedFigures").asText()
                    : "(isolated before this manager started)") + "; now " + state(l) + ": " + now;
        }
        return state(l) + (l.hasNonNull("advice") ? ", not isolated (" + l.get("advice").asText() + ")" : "") + ": "
                + now;
    }

    /** The GUID of {@code spec}: itself when it is one, else the switch of that name in the daemon's list. */
    static String guid(DaemonClient client, String spec) {
        try {
            return Guids.format(Guids.parse(spec));
        } catch (RuntimeException notAGuid) {
            for (JsonNode s : client.get("/api/v1/switches")) {
                if (spec.equals(s.path("name").asText(null))) {
                    return s.path("guid").asText();
                }
            }
            throw new UsageException("ports: no switch named '" + spec + "' (give its GUID, 0x followed by 16 hex digits,"
                    + " or its name as `fabric-manager switches` lists it)");
        }
    }

    private static boolean positive(JsonNode p, String field) {
        return p.hasNonNull(field) && p.get(field).bigIntegerValue().signum() > 0;
    }

    private static String n(JsonNode p, String field) {
        if (!p.hasNonNull(field)) {
            return "-";
        }
        String value = String.format(Locale.ROOT, "%,d", p.get(field).bigIntegerValue());
        return p.path("implausible").has(field) ? value + "?" : value;
    }
}
