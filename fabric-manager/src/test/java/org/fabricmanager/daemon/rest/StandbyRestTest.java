package org.fabricmanager.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The REST server of a hot-standby manager: it tells the group's state and who leads, is never ready as
 * a manager, and sends every other request to the leader (421 with its address) or says none is known (503).
 */
class StandbyRestTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private volatile String leaderId = "n2";
    private volatile String leaderRest = "http://10.0.0.2:7680";
    private volatile String unready;
    private RestServer server;
    private String base;

    @BeforeEach
    void start() throws Exception {
        StandbyEndpoints endpoints = new StandbyEndpoints() {
            @Override
            public Map<String, Object> ha() {
                return Map.of("role", "FOLLOWER", "nodeId", "n1", "term", 4, "peers", List.of());
            }

            @Override
            public String nodeId() {
                return "n1";
            }

            @Override
            public String leaderId() {
                return leaderId;
            }

            @Override
            public String leaderRest() {
                return leaderRest;
            }

            @Override
            public String standbyUnready() {
                return unready;
            }

            @Override
            public String metrics() {
                return "fabric_ha_term 4.0\n";
            }
        };
        server = RestServer.standby(new RestListener("127.0.0.1", 0, null,
                new RestRejections(null, 10_000, System::currentTimeMillis)), endpoints);
        base = "http://127.0.0.1:" + server.start().getPort();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void tellsTheGroupAndWhoLeads() throws Exception {
        HttpResponse<String> ha = send("GET", "/api/v1/ha");
        assertThat(ha.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(ha.body()).path("role").asText()).isEqualTo("FOLLOWER");
        JsonNode status = JSON.readTree(send("GET", "/api/v1/status").body());
        assertThat(status.path("state").asText()).isEqualTo("STANDBY");
        assertThat(status.path("leaderId").asText()).isEqualTo("n2");
        assertThat(status.path("leaderRest").asText()).isEqualTo(leaderRest);
        assertThat(send("GET", "/metrics").body()).contains("fabric_ha_term");
        assertThat(send("GET", "/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void mutationsAndFabricQueriesAreSentToTheLeader() throws Exception {
        for (String[] r : new String[][] {{"POST", "/api/v1/reroute"}, {"POST", "/api/v1/switches/0x10/admit"},
                {"GET", "/api/v1/switches?x=1"}, {"DELETE", "/api/v1/status"}}) {
            HttpResponse<String> res = send(r[0], r[1]);
            assertThat(res.statusCode()).as("%s %s", r[0], r[1]).isEqualTo(421);
            assertThat(res.headers().firstValue("Location")).contains(leaderRest + r[1]);
            assertThat(JSON.readTree(res.body()).path("leaderRest").asText()).isEqualTo(leaderRest);
            assertThat(JSON.readTree(res.body()).path("error").asText()).contains("n1").contains("n2");
        }
        leaderId = null;
        leaderRest = null;
        HttpResponse<String> none = send("POST", "/api/v1/reroute");
        assertThat(none.statusCode()).isEqualTo(503);
        assertThat(none.headers().firstValue("Location")).isEmpty();
        assertThat(JSON.readTree(none.body()).path("error").asText()).contains("no active manager is known");
        assertThat(send("GET", "/nowhere").statusCode()).isEqualTo(404);
    }

    @Test
    void readyOnlyAsAStandby() throws Exception {
        HttpResponse<String> ready = send("GET", "/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(ready.body()).path("reason").asText()).contains("hot standby").contains("n2");
        assertThat(send("GET", "/health/ready-standby").statusCode()).isEqualTo(200);
        unready = "applying the committed state: index 3 of 9";
        HttpResponse<String> lagging = send("GET", "/health/ready-standby");
        assertThat(lagging.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(lagging.body()).path("reason").asText()).isEqualTo(unready);
        assertThat(send("POST", "/health/ready").statusCode()).isEqualTo(405);
    }
}
