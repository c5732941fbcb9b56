package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;

/**
 * {@code status}: the daemon's state as an administrator reads it on the management node, from
 * {@code GET /api/v1/status} of a running daemon: state, switches, OpenSM, routing, tables, last push, discovery.
 */
final class StatusCommand implements Command {
    @Override
    public String name() {
        return "status";
    }

    @Override
    public String summary() {
        return "a running daemon's state, routing and table push (REST /api/v1/status)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager status [--url URL] [--json]
                  Prints the state of a running daemon: switches, routing in force, tables in sync, last push.
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
        JsonNode s = DaemonClient.of(args).get("/api/v1/status");
        if (args.flag(DaemonClient.JSON_OPTION)) {
            console.out().println(DaemonClient.pretty(s));
            return ExitCodes.OK;
        }
        PrintStream out = console.out();
        row(out, "state", s.path("state").asText("?"));
        row(out, "daemon", s.path("daemonId").asText("?") + ", up " + duration(s.path("uptimeMs").asLong()));
        JsonNode build = s.path("build");
        if (build.hasNonNull("version")) {
            row(out, "version", build.get("version").asText() + " (commit " + build.path("commit").asText("unknown") + ")");
        }
        JsonNode sw = s.path("switches");
        row(out, "switches", sw.path("connected").asInt() + " connected"
                + (sw.hasNonNull("expected") ? " of " + sw.get("expected").asInt() + " expected" : ""));
        row(out, "nodes", s.path("nodes").asText("0"));
        JsonNode o = s.path("opensm");
        if (o.isObject()) {
            row(out, "opensm", opensm(o));
        }
        JsonNode r = s.path("routing");
        if (r.path("version").asLong() == 0) {
            row(out, "routing", "not routed yet (engine " + r.path("engine").asText("?") + ")");
        } else {
            row(out, "routing", "v" + r.path("version").asLong() + " by " + r.path("engine").asText("?")
                    + (r.hasNonNull("durationMs") ? " in " + ms(r.get("durationMs").asDouble()) : "")
                    + (r.hasNonNull("valid") ? (r.get("valid").asBoolean() ? ", valid" : ", INVALID") : "")
                    + (r.path("unreachableLeafPairs").asLong() > 0 ? ", " + r.get("unreachableLeafPairs").asLong()
                    + " unreachable leaf pairs" : "")
                    + (r.path("reusedFromState").asBoolean() ? ", reused from the state directory" : "")
                    + (r.hasNonNull("deadlockFree") ? (r.get("deadlockFree").asBoolean()
                    ? ", (link, VC) graph acyclic" : ", (link, VC) graph CYCLIC: can deadlock") : "")
                    + "; " + r.path("computations").asLong() + " computations since start");
        }
        JsonNode t = s.path("tables");
        row(out, "tables", t.path("inSync").asInt() + " in sync, " + t.path("pending").asInt() + " pending, "
                + t.path("failing").asInt() + " failing");
        JsonNode p = s.path("push");
        if (!p.isMissingNode() && !p.isNull() && p.path("version").asLong() > 0) {
            row(out, "last push", "v" + p.path("version").asLong() + ": " + p.path("blocks").asLong() + " blocks, "
                    + p.path("bytes").asLong() + " bytes, " + p.path("acked").asLong() + " acked, "
                    + p.path("retries").asLong() + " retries"
                    + (p.hasNonNull("durationMs") ? ", " + ms(p.get("durationMs").asDouble()) : ""));
            row(out, "pushed total", p.path("totalBlocks").asLong() + " blocks, " + p.path("totalBytes").asLong()
                    + " bytes, " + p.path("totalRetries").asLong() + " retries");
        }
        JsonNode dr = s.path("drained");
        if (dr.path("switches").asInt() + dr.path("links").asInt() > 0) {
            row(out, "drained", dr.path("switches").asInt() + " switch(es), " + dr.path("links").asInt()
                    + " cable(s): routed around (`fabric-manager drain` lists them)");
        }
        JsonNode d = s.path("discovery");
        if (!d.isMissingNode() && !d.isNull()) {
            row(out, "discovery", d.path("verdict").asText("?")
                    + (d.hasNonNull("summary") ? ": " + d.get("summary").asText() : "")
                    + (d.path("linkIssues").asInt() > 0 ? " (" + d.get("linkIssues").asInt() + " link issues)" : ""));
        }
        return ExitCodes.OK;
    }

    /** OpenSM as its plug-in's keepalives show it: up, waiting for it, or lost since when and why. */
    static String opensm(JsonNode o) {
        String state = o.path("state").asText("?");
        String last = o.hasNonNull("lastKeepaliveMs") ? "last keepalive " + duration(o.get("lastKeepaliveMs").asLong())
                + " ago" : "no keepalive yet";
        String detail = (o.hasNonNull("smState") ? "SM " + o.get("smState").asText() + ", " : "") + last
                + (o.path("losses").asLong() > 0 ? ", lost " + o.get("losses").asLong() + " time(s)" : "")
                + (o.path("eventsDropped").asLong() + o.path("countersDropped").asLong() > 0 ? ", plug-in dropped "
                + o.path("eventsDropped").asLong() + " events and " + o.path("countersDropped").asLong()
                + " counter readings" : "");
        return switch (state) {
            case "UP" -> "up (" + detail + ")";
            case "WAITING" -> "waiting for OpenSM's plug-in to connect (" + detail + ")";
            default -> "LOST since " + Instant.ofEpochMilli(o.path("sinceMillis").asLong()) + ": "
                    + o.path("lostReason").asText("?") + "; the switches keep their tables, but nothing can change them ("
                    + detail + ")";
        };
    }

    private static void row(PrintStream out, String label, String value) {
        out.printf("%-13s %s%n", label, value);
    }

    static String ms(double millis) {
        return millis >= 1000 ? String.format(Locale.ROOT, "%.2f s", millis / 1000)
                : String.format(Locale.ROOT, "%.1f ms", millis);
    }

    static String duration(long millis) {
        long s = millis / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m" + s % 60 + "s";
        }
        if (s < 86_400) {
            return s / 3600 + "h" + (s % 3600) / 60 + "m";
        }
        return s / 86_400 + "d" + (s % 86_400) / 3600 + "h";
    }
}
