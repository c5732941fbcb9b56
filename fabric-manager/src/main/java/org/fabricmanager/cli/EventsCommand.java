package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * {@code events}: a running daemon's milestones and fault reactions in order, from
 * {@code GET /api/v1/events?since=SEQ}: sequence number, local time, kind, message, and any figures
 * the event carries (a fault reaction's {@code faultToConvergedMs}, blocks pushed, ...) as key=value.
 */
final class EventsCommand implements Command {
    private static final Set<String> COLUMNS = Set.of("seq", "timeMillis", "kind", "message");
    /** How often {@code --follow} asks for new events. */
    private static final long FOLLOW_POLL_MS = 1_000;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    @Override
    public String name() {
        return "events";
    }

    @Override
    public String summary() {
        return "a running daemon's milestones and fault reactions (REST /api/v1/events)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager events [--url URL] [--since SEQ] [--follow] [--json]
                  Prints the daemon's events in order: sequence number, time, kind, message and figures.
                  %s
                  --since SEQ             only events with a sequence number above SEQ (default 0: all kept)
                  --follow                keep printing new events as they come (polls every second; Ctrl-C ends)
                  --json                  the daemon's JSON instead of the table (with --follow: one event a line)
                  Exit code 0 when the daemon answered, 2 when it is unreachable or answers an error.""".formatted(DaemonClient.URL_USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        return DaemonClient.options("since");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of(DaemonClient.JSON_OPTION, "follow");
    }

    @Override
    public int run(Arguments args, Console console) {
        long since = args.longValue("since", 0);
        if (since < 0) {
            throw new UsageException("events: option --since must be a sequence number (0 or more), got " + since);
        }
        DaemonClient client = DaemonClient.of(args);
        boolean json = args.flag(DaemonClient.JSON_OPTION);
        JsonNode events = client.get("/api/v1/events?since=" + since);
        if (!args.flag("follow")) {
            if (json) {
                console.out().println(DaemonClient.pretty(events));
            } else if (!print(events, console)) {
                console.out().println("no events after " + since);
            }
            return ExitCodes.OK;
        }
        while (true) {
            for (JsonNode e : events) {
                since = Math.max(since, e.path("seq").asLong());
            }
            if (json) {
                events.forEach(e -> console.out().println(e.toString()));
            } else {
                print(events, console);
            }
            console.out().flush();
            try {
                Thread.sleep(FOLLOW_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCodes.OK;
            }
            events = client.get("/api/v1/events?since=" + since);
        }
    }

    /** Prints {@code events} as a table; false when there is none. */
    private static boolean print(JsonNode events, Console console) {
        TextTable table = new TextTable(">SEQ", "TIME", "KIND", "MESSAGE");
        for (JsonNode e : events) {
            StringBuilder message = new StringBuilder(e.path("message").asText(""));
            for (Iterator<Map.Entry<String, JsonNode>> it = e.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (!COLUMNS.contains(f.getKey()) && !f.getValue().isNull()) {
                    message.append(message.isEmpty() ? "" : "  ").append(f.getKey()).append('=')
                            .append(f.getValue().isValueNode() ? f.getValue().asText() : f.getValue().toString());
                }
            }
            table.row(e.path("seq").asLong(), e.has("timeMillis") ? TIME.format(Instant.ofEpochMilli(
                    e.get("timeMillis").asLong()).atZone(ZoneId.systemDefault())) : null, e.path("kind").asText("?"), message);
        }
        if (table.size() == 0) {
            return false;
        }
        table.print(console.out());
        return true;
    }
}
