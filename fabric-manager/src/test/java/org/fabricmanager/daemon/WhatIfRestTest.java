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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.QualityFigures;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TableQuality;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/v1/whatif} and {@code GET /api/v1/routing/quality} on a converged demo-sized fabric
 * routed by dmodc: what-if counts equal repairing the tables the daemon serves for the degraded fabric offline
 * ({@code routing.onFault: repair}, what {@code route --previous} does) and comparing with them, and leave the routing version and tables as they were; the quality equals
 * {@link TableQuality} (what {@code quality --lft} computes) on the served tables; the token and request
 * checks answer 401/403/400/405.
 */
class WhatIfRestTest {
    static final String TOKEN = "what-if-token-0123456789";

    @TempDir
    static Path state;
    static FabricManagerDaemon daemon;
    static FabricSimulator sim;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, DaemonSimulationTest.SPEC)
                .withAdminToken(TOKEN), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()));
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

    @Test
    void whatIfCountsEqualAnOfflineRepairAndChangeNothing() throws Exception {
        Fabric live = FabricJson.parse(get("/api/v1/topology").body());
        long version = json("/api/v1/status").at("/routing/version").asLong();
        long computations = daemon.computations().get(5, TimeUnit.SECONDS);
        ForwardingTables served = servedTables(live);
        assertThat(daemon.api().status().get(5, TimeUnit.SECONDS).routing().engine()).isEqualTo("dmodc-home");

        long spine = PgftGenerator.switchGuid(2, 1);
        JsonNode r = ok(whatIf("{\"switches\":[\"" + Guids.format(spine) + "\"]}", TOKEN));
        assertCounts(r, served, live.withoutSwitches(List.of(spine)));
        assertThat(r.get("routingVersion").asLong()).isEqualTo(version);
        assertThat(r.get("engine").asText()).isEqualTo("dmodc-home");
        assertThat(r.get("valid").asBoolean()).isTrue();
        assertThat(r.at("/congestion/all2all/max").isIntegralNumber()).isTrue();

        long leaf = PgftGenerator.switchGuid(1, 2);
        Link up = live.links().stream().filter(l -> l.a() == leaf && live.isSwitch(l.b())
                || l.b() == leaf && live.isSwitch(l.a())).findFirst().orElseThrow();
        int port = up.a() == leaf ? up.aPort() : up.bPort();
        JsonNode link = ok(whatIf("{\"links\":[{\"guid\":\"" + Guids.format(leaf) + "\",\"port\":" + port + "}]}", TOKEN));
        assertCounts(link, served, live.withoutLinks(List.of(up)));

        assertThat(json("/api/v1/status").at("/routing/version").asLong()).as("routing version").isEqualTo(version);
        assertThat(daemon.computations().get(5, TimeUnit.SECONDS)).as("no routing computed").isEqualTo(computations);
        assertThat(servedTables(live).sameAs(served)).as("tables in force").isTrue();
        assertThat(json("/api/v1/status").get("state").asText()).isEqualTo("CONVERGED");
    }

    @Test
    void whatIfNeedsTheTokenAndAWellFormedRequest() throws Exception {
        String spine = "{\"switches\":[\"" + Guids.format(PgftGenerator.switchGuid(2, 0)) + "\"]}";
        assertError(whatIf(spine, null), 401, "Authorization");
        assertError(whatIf(spine, "wrong-token-0123456789"), 403, "wrong admin token");
        assertError(whatIf("{\"switches\":[\"0x42\"]}", TOKEN), 400, "switch 0x0000000000000042 is not in the fabric");
        assertError(whatIf("{\"links\":[{\"guid\":\"" + Guids.format(PgftGenerator.switchGuid(1, 0)) + "\",\"port\":99}]}",
                TOKEN), 400, "has ports 1..8");
        assertError(whatIf("{\"switches\":", TOKEN), 400, "not JSON");
        assertError(whatIf("{}", TOKEN), 400, "name at least one switch or link");
        assertError(whatIf("{\"rebalance\":true,\"switches\":[\"0x1\"]}", TOKEN), 400, "takes no failures");
        assertError(whatIf("{\"rebalance\":\"yes\"}", TOKEN), 400, "'rebalance' must be true or false");
        HttpResponse<String> getWhatIf = get("/api/v1/whatif");
        assertThat(getWhatIf.statusCode()).isEqualTo(405);
        assertThat(getWhatIf.headers().firstValue("allow")).contains("POST");
    }

    @Test
    void qualityEqualsTheAnalysisOfTheServedTables() throws Exception {
        JsonNode view = awaitQuality();
        Fabric live = FabricJson.parse(get("/api/v1/topology").body());
        ForwardingTables served = servedTables(live);
        RoutedFabric routed = RoutedFabric.of(live.index(), served);
        List<TrafficPattern> patterns = TableQuality.defaultPatterns(routed.attachedCount());
        QualityFigures expected = new TableQuality(routed, 1).measure(patterns);
        JsonNode q = view.get("quality");
        assertThat(view.get("routingVersion").asLong()).isEqualTo(q.get("routingVersion").asLong());
        assertThat(view.get("stale").asBoolean()).isFalse();
        assertThat(q.get("valid").asBoolean()).isEqualTo(expected.validity().isValid());
        assertThat(q.get("unreachableLeafPairs").asLong()).isEqualTo(expected.validity().unreachablePairs());
        assertThat(q.get("deadlockFree").asBoolean()).isEqualTo(expected.deadlockFree());
        assertThat(q.get("virtualChannels").asInt()).isEqualTo(expected.virtualChannels());
        assertThat(q.get("maxPathLength").asInt()).isEqualTo(expected.maxPathLength());
        assertThat(q.get("patternsMeasured").asText()).isEqualTo("shift,random:10:1,all2all");
        for (PatternCongestion c : expected.patterns()) {
            JsonNode p = q.at("/patterns/" + c.pattern().name());
            assertThat(p.get("max").asLong()).as(c.pattern().name()).isEqualTo(c.max());
            if (!(c.pattern() instanceof TrafficPattern.AllToAll)) {
                assertThat(p.get("mean").asDouble()).as(c.pattern().name()).isEqualTo(Math.round(c.mean() * 1000.0) / 1000.0);
            }
        }
        String metrics = get("/metrics").body();
        long all2all = q.at("/patterns/all2all/max").asLong();
        assertThat(metrics).contains("fabric_routing_congestion_max{pattern=\"all2all\"} " + (double) all2all);
        assertThat(metrics).contains("fabric_routing_quality_version " + (double) q.get("routingVersion").asLong());
    }

    private static JsonNode awaitQuality() {
        return Await.value("quality measured", Duration.ofSeconds(60), () -> json("/api/v1/routing/quality"),
                view -> !view.get("quality").isNull() && !view.get("stale").asBoolean());
    }

    /** The tables the daemon serves, switch by switch, as {@code GET /api/v1/switches/{guid}/lft} reads them. */
    private static ForwardingTables servedTables(Fabric fabric) throws Exception {
        long[] guids = new long[fabric.index().switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = fabric.index().switchGuid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, fabric.index().destinationCount());
        for (int s = 0; s < guids.length; s++) {
            JsonNode entries = json("/api/v1/switches/" + Guids.format(guids[s]) + "/lft").get("entries");
            for (int d = 0; d < entries.size(); d++) {
                b.set(s, d, entries.get(d).asInt());
            }
        }
        return b.build();
    }

    private static void assertCounts(JsonNode r, ForwardingTables served, Fabric degraded) {
        ForwardingTables after;
        try (DmodcEngine engine = new DmodcEngine(1)) {
            // routing.onFault: repair (the default): the repair of the tables in force, as the daemon would install it
            after = engine.repair(served, degraded.index()).result().tables();
        }
        long entries = 0;
        long blocks = 0;
        int touched = 0;
        for (int s = 0; s < after.switchCount(); s++) {
            int p = 0;
            while (served.switchGuid(p) != after.switchGuid(s)) {
                p++;
            }
            long row = 0;
            java.util.Set<Integer> rowBlocks = new java.util.HashSet<>();
            for (int d = 0; d < after.destinationCount(); d++) {
                if (after.port(s, d) != served.port(p, d)) {
                    row++;
                    rowBlocks.add(d / LftBlock.SIZE);
                }
            }
            entries += row;
            blocks += rowBlocks.size();
            touched += row > 0 ? 1 : 0;
        }
        assertThat(entries).as("a failure moves routes").isPositive();
        assertThat(r.get("changedEntries").asLong()).as("changedEntries of %s", r).isEqualTo(entries);
        assertThat(r.get("changedBlocks").asLong()).isEqualTo(blocks);
        assertThat(r.get("switchesTouched").asInt()).isEqualTo(touched);
        assertThat(r.get("repaired").asBoolean()).isTrue();
        assertThat(r.get("minimumEntries").asLong()).isPositive().isLessThanOrEqualTo(entries);
    }

    private static HttpResponse<String> whatIf(String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(daemon.restUrl() + "/api/v1/whatif"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode ok(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static void assertError(HttpResponse<String> r, int status, String text) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(JSON.readTree(r.body()).get("error").asText()).contains(text);
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(daemon.restUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(String path) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }
}
