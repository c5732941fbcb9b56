package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.net.InetSocketAddress;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A switch whose agent is gone stays listed with its state: {@code GET /api/v1/switches/{guid}} answers it as
 * DISCONNECTED (not 404 "unknown switch"), {@code switches --not-in-sync} lists it and counts it, also once the fabric
 * was re-routed without it; the daemon's address can come from {@code FABRIC_MANAGER_URL}.
 */
class DepartedSwitchesTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;

    @Test
    void aSwitchWhoseAgentIsGoneIsListedAsDisconnectedAndAnsweredByGuid() throws Exception {
        DaemonConfig config = DaemonConfig.defaults().withDetector(false).withSouthboundBind("127.0.0.1").withPorts(0, 0)
                .withStateDirectory(state).withExpectedPgft(SPEC);
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
             FabricSimulator sim = new FabricSimulator(PgftGenerator.generate(SPEC), AgentSettings.defaults(
                     new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort())), null, 1, null, 1)) {
            sim.start();
            Await.value("convergence", () -> daemon.status().get(), s -> s.state() == DaemonState.CONVERGED);
            long spine = PgftGenerator.switchGuid(2, 1);
            sim.kill(spine, FabricSimulator.KillMode.AGENT);
            Await.value("the re-route without the spine", () -> daemon.status().get(),
                    s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 7);
            String url = daemon.restUrl();

            HttpResponse<String> detail = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(url + "/api/v1/switches/" + Guids.format(spine))).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(detail.statusCode()).as(detail.body()).isEqualTo(200);
            JsonNode d = JSON.readTree(detail.body());
            assertThat(d.get("state").asText()).isEqualTo("DISCONNECTED");
            assertThat(d.get("connected").asBoolean()).isFalse();
            assertThat(d.get("disconnectedSince").asLong()).isPositive();

            List<Views.Switch> all = daemon.switches().get();
            assertThat(all).hasSize(8);
            assertThat(all).filteredOn(s -> s.guid().equals(Guids.format(spine))).singleElement()
                    .extracting(Views.Switch::state).isEqualTo("DISCONNECTED");
            assertThat(all).filteredOn(Views.Switch::connected).extracting(Views.Switch::state).containsOnly("IN_SYNC");

            CliRun bad = CliRun.of("switches", "--url", url, "--not-in-sync");
            assertThat(bad.exitCode()).as(bad.err()).isZero();
            assertThat(bad.out().lines().toList()).hasSize(1 + 1 + 1);
            assertThat(bad.out()).contains(Guids.format(spine)).contains("DISCONNECTED")
                    .endsWith("8 switches, 7 connected, 7 in sync, 1 disconnected\n");

            CliRun json = CliRun.of("switches", "--url", url, "--not-in-sync", "--json");
            assertThat(json.exitCode()).as(json.err()).isZero();
            JsonNode listed = JSON.readTree(json.out());
            assertThat(listed.isArray()).isTrue();
            assertThat(listed).hasSize(1);
            assertThat(listed.get(0).get("guid").asText()).isEqualTo(Guids.format(spine));

            Arguments noUrl = Arguments.parse("switches", List.of(), DaemonClient.options(), java.util.Set.of());
            assertThat(DaemonClient.url(noUrl, Map.of(DaemonClient.URL_VARIABLE, url))).isEqualTo(url);
            assertThat(DaemonClient.url(noUrl, Map.of())).isEqualTo(DaemonClient.DEFAULT_URL);

            sim.revive(spine);
            Await.value("the spine back", () -> daemon.switchDetail(spine).get(), s -> "IN_SYNC".equals(s.state()));
        }
    }
}
