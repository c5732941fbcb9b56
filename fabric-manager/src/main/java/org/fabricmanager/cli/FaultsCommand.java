package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Set;

/**
 * {@code fabric-manager faults}: the daemon's current faults ({@code GET /api/v1/faults}) as readable
 * tables for an administrator on the management node: switches the ring declared dead, switches it
 * cannot watch, links down (their peer named), quarantined (flapping) ports, end nodes no route reaches. Like the other admin commands it asks the
 * daemon at {@code --url} (default {@value DaemonClient#DEFAULT_URL}) through {@link DaemonClient}.
 */
final class FaultsCommand implements Command {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    @Override
    public String name() {
        return "faults";
    }

    @Override
    public String summary() {
        return "a running daemon's switch and link faults and quarantined links (REST /api/v1/faults)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager faults [--url URL] [--json]
                  Prints the failure detector's state, the switches declared dead or not watched by the ring,
                  the links down (with the switch or end node at their other end), the end nodes no route
                  reaches any more, the switches and cables drained for maintenance and the ports quarantined
                  for flapping.
                  %s
                  --json                  the daemon's JSON answer instead of the summary
                  Exit code 0 when the daemon answered, 2 when it is unreachable or answers an error.""".formatted(DaemonClient.URL_USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        return DaemonClient.options();
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of(DaemonClient.JSON_OPTION);
    }

    @Override
    public int run(Arguments args, Console console) {
        JsonNode f = DaemonClient.of(args).get("/api/v1/faults");
        if (args.flag(DaemonClient.JSON_OPTION)) {
            console.out().println(DaemonClient.pretty(f));
            return ExitCodes.OK;
        }
        PrintStream out = console.out();
        boolean detector = f.path("detectorEnabled").asBoolean();
        out.printf("failure detector: %s%s; %d reactions since start%s%n", detector ? "on" : "off",
                detector ? " (ring epoch " + f.path("ringEpoch").asLong() + ", " + f.path("ringMembers").asInt() + " members)" : "",
                f.path("reactions").asLong(),
                f.path("pendingEvents").asInt() > 0 ? ", one in progress (" + f.path("pendingEvents").asInt() + " events)" : "");
        if (f.path("ringStarting").asInt() > 0) {
            out.printf("ring starting: %d switches have not answered their configuration yet%n", f.path("ringStarting").asInt());
        }
        if (f.path("ringUnconfirmed").asInt() > 0) {
            out.printf("ring not confirmed: %d switches did not answer their configuration in time and have not since "
                    + "(watched, but their members may still be starting)%n", f.path("ringUnconfirmed").asInt());
        }

        JsonNode switches = f.path("switches");
        out.printf("%nfailed switches: %d%n", switches.size());
        TextTable failed = new TextTable("GUID", "NAME", "SOURCE", "SINCE", "SESSION");
        for (JsonNode s : switches) {
            failed.row(text(s, "guid"), text(s, "name"), text(s, "source"), time(s, "sinceMillis"),
                    s.path("sessionAlive").asBoolean() ? "alive" : "gone");
        }
        print(failed, out);

        JsonNode unwatched = f.path("unwatched");
        if (unwatched.size() > 0) {
            out.printf("%nswitches the ring cannot watch: %d (faults known from their sessions and port status)%n",
                    unwatched.size());
            TextTable table = new TextTable("GUID", "NAME", "REASON");
            for (JsonNode u : unwatched) {
                table.row(text(u, "guid"), text(u, "name"), text(u, "reason"));
            }
            print(table, out);
        }

        JsonNode links = f.path("links");
        out.printf("%nlinks down: %d%n", links.size());
        TextTable down = new TextTable("GUID", "NAME", ">PORT", "PEER", "PEER NAME", "QUARANTINED");
        for (JsonNode l : links) {
            // a node link names its node and destination index, as route and whatif take them
            String peerName = text(l, "peerName");
            if (peerName != null && l.path("peerNode").asBoolean()) {
                peerName = "node " + peerName + " (index " + l.path("peerIndex").asInt() + ")";
            }
            down.row(text(l, "guid"), text(l, "name"), text(l, "port"), text(l, "peerGuid"), peerName,
                    l.path("quarantined").asBoolean() ? "yes" : "no");
        }
        print(down, out);

        JsonNode unreachable = f.path("unreachableNodes");
        int unreachableCount = f.path("nodesUnreachable").asInt();
        out.printf("%nend nodes unreachable: %d%s%n", unreachableCount,
                unreachableCount > unreachable.size() ? " (the first " + unreachable.size() + " listed)" : "");
        TextTable nodes = new TextTable("GUID", "NAME", ">INDEX");
        for (JsonNode n : unreachable) {
            nodes.row(text(n, "guid"), text(n, "name"), text(n, "index"));
        }
        print(nodes, out);

        JsonNode drained = f.path("drained");
        out.printf("%ndrained for maintenance: %d%n", drained.size());
        TextTable d = new TextTable("ELEMENT", "NAME", "PEER", "SINCE");
        for (JsonNode e : drained) {
            d.row(text(e, "element"), text(e, "name"), text(e, "peer"), time(e, "sinceMillis"));
        }
        print(d, out);

        JsonNode quarantined = f.path("quarantined");
        out.printf("%nquarantined ports: %d%n", quarantined.size());
        TextTable q = new TextTable("GUID", ">PORT", ">FLAPS", "SINCE", "STABLE UP SINCE");
        for (JsonNode p : quarantined) {
            q.row(text(p, "guid"), text(p, "port"), text(p, "flaps"), time(p, "sinceMillis"), time(p, "stableUpSinceMillis"));
        }
        print(q, out);
        return ExitCodes.OK;
    }

    /** Tables are indented under their heading; an empty one prints nothing. */
    private static void print(TextTable table, PrintStream out) {
        if (table.size() > 0) {
            table.print(out, "  ");
        }
    }

    /** A field's text, {@code null} (printed "-") when absent or JSON null: a name the daemon does not know. */
    private static String text(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }

    private static String time(JsonNode node, String field) {
        return node.hasNonNull(field) ? TIME.format(Instant.ofEpochMilli(node.get(field).asLong()).atZone(ZoneId.systemDefault()))
                : null;
    }
}
