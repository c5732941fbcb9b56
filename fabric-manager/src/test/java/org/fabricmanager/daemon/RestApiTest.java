package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every REST endpoint's status codes and JSON, against a converged daemon with a small simulated fabric. */
class RestApiTest {
    @TempDir
    static Path state;
    static FabricManagerDaemon daemon;
    static FabricSimulator sim;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, DaemonSimulationTest.SPEC), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        sim = new FabricSimulator(PgftGenerator.generate(DaemonSimulationTest.SPEC), new AgentSettings(
                new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort()), 65536, 1000, 5000, 20, 300),
                null, 1, null, 1);
        sim.start();
        DaemonSimulationTest.await(daemon, s -> s.state() == DaemonState.CONVERGED, "convergence");
    }

    @AfterAll
    static void stop() {
        sim.close();
        daemon.close();
    }

    static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(daemon.restUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode ok(String path) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).get().asString().startsWith("application/json");
        return JSON.readTree(r.body());
    }

    static void error(String path, int status, String text) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(status);
        assertThat(JSON.readTree(r.body()).get("error").asText()).contains(text);
    }

    @Test
    void statusHasTheDocumentedShape() throws Exception {
        JsonNode s = ok("/api/v1/status");
        assertThat(s.get("state").asText()).isEqualTo("CONVERGED");
        assertThat(s.at("/switches/expected").asInt()).isEqualTo(8);
        assertThat(s.at("/switches/connected").asInt()).isEqualTo(8);
        assertThat(s.get("nodes").asInt()).isEqualTo(16);
        assertThat(s.at("/routing/engine").asText()).isEqualTo("hop-test");
        assertThat(s.at("/routing/version").asLong()).isEqualTo(1);
        assertThat(s.at("/routing/durationMs").isNumber()).isTrue();
        assertThat(s.at("/routing/valid").asBoolean()).isTrue();
        assertThat(s.at("/tables/inSync").asInt()).isEqualTo(8);
        assertThat(s.at("/tables/pending").asInt()).isZero();
    }

    @Test
    void topologyIsTheLiveFabricWithItsIndices() throws Exception {
        HttpResponse<String> r = get("/api/v1/topology");
        assertThat(r.statusCode()).isEqualTo(200);
        Fabric live = FabricJson.parse(r.body());
        assertThat(live).isEqualTo(PgftGenerator.generate(DaemonSimulationTest.SPEC));
    }

    @Test
    void switchesSwitchAndLft() throws Exception {
        JsonNode list = ok("/api/v1/switches");
        assertThat(list.size()).isEqualTo(8);
        assertThat(list.get(0).get("guid").asText()).isEqualTo("0x1000000100000000");
        assertThat(list.get(0).get("connected").asBoolean()).isTrue();
        assertThat(list.get(0).get("inSync").asBoolean()).isTrue();

        String leaf = Guids.format(PgftGenerator.switchGuid(1, 0));
        JsonNode one = ok("/api/v1/switches/" + leaf);
        assertThat(one.get("name").asText()).isEqualTo("s1-0");
        assertThat(one.get("portList").size()).isEqualTo(8);
        assertThat(one.at("/portList/0/peerKind").asText()).isEqualTo("NODE");
        assertThat(one.at("/portList/0/link").asText()).isEqualTo("IN_USE");

        JsonNode lft = ok("/api/v1/switches/" + leaf + "/lft");
        assertThat(lft.get("guid").asText()).isEqualTo(leaf);
        assertThat(lft.get("version").asLong()).isEqualTo(1);
        assertThat(lft.get("entries").size()).isEqualTo(16);
        assertThat(lft.at("/entries/0").asInt()).isEqualTo(1);
        assertThat(lft.at("/entries/3").asInt()).isEqualTo(4);
        byte[] agent = sim.agent(PgftGenerator.switchGuid(1, 0)).table().entries();
        for (int d = 0; d < 16; d++) {
            assertThat(lft.get("entries").get(d).asInt()).isEqualTo(agent[d] & 0xff);
        }
        // lenient GUIDs are accepted
        assertThat(get("/api/v1/switches/0x1000000100000000/").statusCode()).isEqualTo(200);
    }

    @Test
    void routeListsTheHops() throws Exception {
        JsonNode r = ok("/api/v1/route?src=0&dst=15");
        assertThat(r.get("outcome").asText()).isEqualTo("DELIVERED");
        assertThat(r.get("hops").size()).isEqualTo(3);
        assertThat(r.at("/hops/0/guid").asText()).isEqualTo("0x1000000100000000");
        assertThat(r.at("/hops/2/guid").asText()).isEqualTo("0x1000000100000003");
        assertThat(r.at("/hops/2/outPort").asInt()).isEqualTo(4);
        assertThat(r.get("srcNode").asText()).isEqualTo("0x2000000000000000");
    }

    @Test
    void errorsAreJsonWithTheRightStatus() throws Exception {
        error("/api/v1/switches/0x1234", 404, "unknown switch");
        error("/api/v1/switches/0x1234/lft", 404, "unknown switch");
        error("/api/v1/switches/zz", 400, "bad GUID");
        error("/api/v1/route?src=0", 400, "missing query parameter 'dst'");
        error("/api/v1/route?src=-1&dst=2", 400, "non-negative integer");
        error("/api/v1/route?src=a&dst=2", 400, "non-negative integer");
        error("/api/v1/route?src=0&dst=999", 404, "no node has index 999");
        error("/api/v1/route?src=3&dst=3", 400, "same destination index 3");
        error("/api/v1/nothing", 404, "no such endpoint");
        error("/metrics-not-here", 404, "no such endpoint");
        HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create(daemon.restUrl() + "/api/v1/status"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void eventsListTheMilestones() throws Exception {
        JsonNode events = ok("/api/v1/events?since=0");
        assertThat(events.size()).isGreaterThan(3);
        assertThat(events.get(0).get("kind").asText()).isEqualTo("STARTED");
        long last = events.get(events.size() - 1).get("seq").asLong();
        assertThat(ok("/api/v1/events?since=" + last).size()).isZero();
        error("/api/v1/events?since=x", 400, "must be an integer");
    }

    @Test
    void discoveryReportsTheCheck() throws Exception {
        JsonNode d = ok("/api/v1/discovery");
        assertThat(d.at("/check/verdict").asText()).isEqualTo("INTACT");
        assertThat(d.get("linkIssueCount").asInt()).isZero();
    }
}
