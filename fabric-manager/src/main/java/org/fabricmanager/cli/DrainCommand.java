package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;

/**
 * {@code drain} and {@code undrain}: take a switch or a cable out of a running daemon's routing for maintenance and put
 * it back ({@code POST /api/v1/drain}, {@code /api/v1/undrain}). The daemon routes around a drained element as around a
 * failed one and pushes the tables; it refuses a drain that would cut off end nodes or leave the fabric unroutable
 * (its what-if says so) unless forced. Without {@code --switch} or {@code --link}, lists what is drained and, apart,
 * the links the gray-link policy isolated ({@code GET /api/v1/drains/isolated}).
 */
final class DrainCommand implements Command {
    private final boolean drain;

    /** @param drain {@code drain} when true, {@code undrain} otherwise */
    DrainCommand(boolean drain) {
        this.drain = drain;
    }

    @Override
    public String name() {
        return drain ? "drain" : "undrain";
    }

    @Override
    public String summary() {
        return drain ? "route a running daemon's fabric around a switch or cable for maintenance (REST /api/v1/drain)"
                : "route through a drained switch or cable again (REST /api/v1/undrain)";
    }

    @Override
    public String usage() {
        String what = drain ? """
                  Drains a switch or a cable: the daemon routes around it as if it had failed (the fault path:
                  routing.onFault), pushes the tables, and keeps it drained across restarts and hot-standby
                  takeovers until it is undrained. The switch stays connected and keeps receiving tables.
                  A drain that would cut off end nodes or leave leaf pairs unroutable (the what-if of the
                  routing in force without it says so) is refused unless --force.""" : """
                  Undrains a switch or a cable drained before: the daemon routes through it again and pushes
                  the tables.""";
        String force = drain ? "\n  --force                 drain even when it cuts off end nodes or leaves the fabric unroutable"
                : "";
        return """
                usage: fabric-manager %s [--url URL] [--ca FILE] [--token-file F] [--switch S | --link S:P]%s [--wait] [--json]
                %s
                  %s
                  --token-file F          the daemon's admin token (rest.adminToken), first line of a file
                                          only its owner may read; a drain is an admin action
                  --switch S              the switch, by GUID or name
                  --link S:P              the cable at port P of switch S (GUID or name); either end names it,
                                          e.g. 0x1000000200000001:5 or s2-1:5%s
                %s
                  --json                  the daemon's JSON answer instead of the line
                  Without --switch or --link: lists the drained switches and cables, then apart the links the
                  gray-link policy isolated, with the figures that decided (no token needed; --json: the drains).
                  Exit code 0 when the daemon did it, 1 when --wait ran out, 2 for bad input or when it
                  refused.""".formatted(name(), drain ? " [--force]" : "", what.indent(2).stripTrailing(),
                DaemonClient.URL_USAGE, force, ConvergenceWait.USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        return DaemonClient.options("token-file", "switch", "link");
    }

    @Override
    public Set<String> flagOptions() {
        return drain ? Set.of("force", "wait", DaemonClient.JSON_OPTION) : Set.of("wait", DaemonClient.JSON_OPTION);
    }

    @Override
    public int run(Arguments args, Console console) {
        args.atMostOneOf("switch", "link");
        DaemonClient client = DaemonClient.of(args);
        if (!args.has("switch") && !args.has("link")) {
            if (args.flag(DaemonClient.JSON_OPTION)) {
                console.out().println(DaemonClient.pretty(client.get("/api/v1/drains")));
                return ExitCodes.OK;
            }
            return list(client.get("/api/v1/drains"), client.get("/api/v1/drains/isolated"), console);
        }
        FabricNames names = new FabricNames(name(), () -> client.get("/api/v1/topology"));
        ObjectNode request = new ObjectMapper().createObjectNode();
        if (args.has("switch")) {
            request.put("guid", names.switchGuid(args.require("switch"), "--switch '" + args.require("switch") + "'"));
        } else {
            String l = args.require("link");
            int colon = l.lastIndexOf(':');
            if (colon <= 0) {
                throw new UsageException(name() + ": --link '" + l + "': expected SWITCH:PORT, e.g. 0x1000000200000001:5 or s2-1:5");
            }
            int port;
            try {
                port = Integer.parseInt(l.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new UsageException(name() + ": --link '" + l + "': the port must be a number");
            }
            request.put("guid", names.switchGuid(l.substring(0, colon), "--link '" + l + "'"));
            request.put("port", port);
        }
        if (args.flag("force")) {
            request.put("force", true);
        }
        String token = args.has("token-file") ? WhatIfCommand.token(Path.of(args.require("token-file"))) : null;
        JsonNode r = client.post("/api/v1/" + name(), request.toString(), token);
        if (args.flag(DaemonClient.JSON_OPTION)) {
            console.out().println(r.toString());
            return args.flag("wait") ? ConvergenceWait.await(client, r.path("routingVersion").asLong(), console.err())
                    : ExitCodes.OK;
        }
        console.out().printf("%s %s (%s): %s%n", r.path("result").asText(), r.path("element").asText(),
                r.path("name").asText(), drain ? "routed around from the next routing version"
                        + (r.path("forced").asBoolean() ? " (forced" + (r.path("nodesCutOff").asInt() > 0 ? ", "
                        + r.path("nodesCutOff").asInt() + " end node(s) cut off" : "") + ")" : "")
                        : "routed through again from the next routing version");
        if (args.flag("wait")) {
            return ConvergenceWait.await(client, r.path("routingVersion").asLong(), console.out());
        }
        console.out().println("the re-route follows routing v" + r.path("routingVersion").asLong()
                + "; `fabric-manager status` shows it converge (or --wait)");
        return ExitCodes.OK;
    }

    private int list(JsonNode drained, JsonNode isolated, Console console) {
        TextTable table = new TextTable("ELEMENT", "NAME", "PEER", "SINCE");
        for (JsonNode d : drained) {
            table.row(d.path("element").asText(), d.hasNonNull("name") ? d.get("name").asText() : null,
                    d.hasNonNull("peer") ? d.get("peer").asText() : null,
                    Instant.ofEpochMilli(d.path("sinceMillis").asLong()).toString());
        }
        if (table.size() > 0) {
            table.print(console.out());
        }
        console.out().printf("%d drained%n", drained.size());
        // apart: the gray-link policy's, given back on their own after a quiet probation
        TextTable links = new TextTable("ISOLATED LINK", "NAME", "PEER", "SINCE", ">PROBATION", "DECIDED BY");
        for (JsonNode i : isolated) {
            links.row(i.path("element").asText(), i.hasNonNull("name") ? i.get("name").asText() : null,
                    i.path("peer").asText(), Instant.ofEpochMilli(i.path("sinceMillis").asLong()).toString(),
                    i.path("probationMs").asLong() / 1000 + " s", i.hasNonNull("figures") ? i.get("figures").asText()
                            : "(isolated before this manager started)");
        }
        if (links.size() > 0) {
            console.out().println();
            links.print(console.out());
        }
        console.out().printf("%d isolated by the gray-link policy%s%n", isolated.size(), isolated.isEmpty() ? ""
                : " (given back after their probation healthy; drain --link pins one, undrain --link releases it)");
        return ExitCodes.OK;
    }
}
