package org.fabricmanager.system;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.testing.Await;

/**
 * A running netlab's daemon as {@link NetlabIT} reads and drives it: its REST views (status, routes, events) and the
 * CLI of the jar under test (the admin actions with the lab's token, the netlab commands).
 */
final class NetlabDaemon {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String rest;

    /** @param rest the daemon's REST address, {@code http://HOST:PORT} */
    NetlabDaemon(String rest) {
        this.rest = rest;
    }

    String url() {
        return rest;
    }

    JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(rest + path)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    JsonNode route(int src, int dst) throws Exception {
        return get("/api/v1/route?src=" + src + "&dst=" + dst);
    }

    /**
     * Waits until tables newer than {@code after} are computed and installed everywhere, a repair refined when that is
     * due; returns their version.
     */
    long converged(long after) {
        JsonNode s = Await.value("tables newer than v" + after + " installed", Duration.ofSeconds(120),
                () -> get("/api/v1/status"), st -> st.path("state").asText().equals("CONVERGED")
                        && st.path("routing").path("version").asLong() > after
                        && !st.path("routing").path("refinePending").asBoolean()
                        && st.path("tables").path("pending").asInt() == 0 && st.path("tables").path("failing").asInt() == 0);
        return s.path("routing").path("version").asLong();
    }

    /** The sequence number of the last event so far. */
    long lastSeq() throws Exception {
        long last = 0;
        for (JsonNode e : get("/api/v1/events?since=0")) {
            last = Math.max(last, e.path("seq").asLong());
        }
        return last;
    }

    /** The sequence number of the event judging the loss of switch {@code guid}'s session, -1 before it. */
    long lostAt(long since, String guid) throws Exception {
        for (JsonNode e : get("/api/v1/events?since=" + since)) {
            if (e.path("kind").asText().equals("SWITCH_LOST") && e.path("message").asText().contains(guid)) {
                return e.path("seq").asLong();
            }
        }
        return -1;
    }

    /** Runs the CLI of the jar under test ({@link FabricProcesses#cli}); its output, stdout then stderr. */
    static String cli(String... args) throws IOException, InterruptedException {
        return FabricProcesses.cli(null, "", 180, args).all();
    }

    /** {@code fabric-manager netlab ARGS}; its output. */
    static String netlab(String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("netlab"));
        all.addAll(List.of(args));
        return cli(all.toArray(new String[0]));
    }
}
