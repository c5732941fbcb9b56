package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;

/**
 * {@code fabric-manager faults --url URL}: the daemon's current faults ({@code GET /api/v1/faults}) as
 * readable tables for an administrator on the management node: switches the ring declared dead,
 * links down, quarantined (flapping) ports.
 */
public final class FaultsCommand implements Command {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "faults";
    }

    @Override
    public String summary() {
        return "show a running daemon's switch and link faults and quarantined links";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager faults [--url URL]
                  --url URL   the daemon's REST base URL (default http://127.0.0.1:7680)
                """;
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("url");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        String base = args.valueOr("url", "http://127.0.0.1:7680");
        URI uri;
        try {
            uri = URI.create(base.replaceAll("/+$", "") + "/api/v1/faults");
        } catch (IllegalArgumentException e) {
            throw new UsageException("faults: option --url: bad URL '" + base + "'", e);
        }
        HttpResponse<String> r;
        try {
            r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build().send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UsageException("faults: cannot reach the daemon at " + base + ": " + e.getMessage(), e);
        }
        if (r.statusCode() != 200) {
            throw new UsageException("faults: " + uri + " answered HTTP " + r.statusCode() + ": " + r.body());
        }
        JsonNode f = JSON.readTree(r.body());
        var out = console.out();
        out.printf("failure detector: %s%s; %d reactions since start%s%n",
                f.path("detectorEnabled").asBoolean() ? "on" : "off",
                f.path("detectorEnabled").asBoolean() ? " (ring epoch " + f.path("ringEpoch").asLong() + ", "
                        + f.path("ringMembers").asInt() + " members)" : "",
                f.path("reactions").asLong(),
                f.path("pendingEvents").asInt() > 0 ? ", one in progress (" + f.path("pendingEvents").asInt() + " events)" : "");
        if (f.path("ringStarting").asInt() > 0) {
            out.printf("ring starting: %d switches have not answered their configuration yet%n",
                    f.path("ringStarting").asInt());
        }
        out.printf("%nfailed switches: %d%n", f.path("switches").size());
        if (f.path("switches").size() > 0) {
            out.printf("  %-20s %-12s %-6s %s%n", "GUID", "NAME", "SOURCE", "SESSION");
            for (JsonNode s : f.path("switches")) {
                out.printf("  %-20s %-12s %-6s %s%n", s.path("guid").asText(), s.path("name").asText(),
                        s.path("source").asText(), s.path("sessionAlive").asBoolean() ? "alive" : "gone");
            }
        }
        if (f.path("unwatched").size() > 0) {
            out.printf("%nswitches the ring cannot watch: %d (faults known from their sessions and port status)%n",
                    f.path("unwatched").size());
            out.printf("  %-20s %-12s %s%n", "GUID", "NAME", "REASON");
            for (JsonNode u : f.path("unwatched")) {
                out.printf("  %-20s %-12s %s%n", u.path("guid").asText(), u.path("name").asText(), u.path("reason").asText());
            }
        }
        out.printf("%nlinks down: %d%n", f.path("links").size());
        if (f.path("links").size() > 0) {
            out.printf("  %-20s %-12s %5s  %-20s %s%n", "GUID", "NAME", "PORT", "PEER", "QUARANTINED");
            for (JsonNode l : f.path("links")) {
                out.printf("  %-20s %-12s %5d  %-20s %s%n", l.path("guid").asText(), l.path("name").asText(),
                        l.path("port").asInt(), l.path("peerGuid").asText(), l.path("quarantined").asBoolean() ? "yes" : "");
            }
        }
        out.printf("%nquarantined ports: %d%n", f.path("quarantined").size());
        if (f.path("quarantined").size() > 0) {
            out.printf("  %-20s %5s %6s  %s%n", "GUID", "PORT", "FLAPS", "STABLE UP SINCE");
            for (JsonNode q : f.path("quarantined")) {
                out.printf("  %-20s %5d %6d  %s%n", q.path("guid").asText(), q.path("port").asInt(),
                        q.path("flaps").asInt(), q.path("stableUpSinceMillis").isNull() || q.path("stableUpSinceMillis")
                                .isMissingNode() ? "-" : java.time.Instant.ofEpochMilli(q.path("stableUpSinceMillis").asLong()));
            }
        }
        return ExitCodes.OK;
    }
}
