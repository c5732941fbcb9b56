package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
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
        // the spine's agent dies silently below: noticed at a 2 s idle deadline rather than the default 10 s
        config = config.withSouthbound(config.southbound().withKeepalive(300, 2_000));
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
             FabricSimulator sim = new FabricSimulator(PgftGenerator.generate(SPEC), AgentSettings.defaults(
                     new InetSocketAddress("127.0.0.1", daemon.southboundAddress().getPort())), null, 1, null, 1)) {
            sim.start();
            Await.value("convergence", () -> daemon.api().status().get(), s -> s.state() == DaemonState.CONVERGED);
            List<org.fabricmanager.daemon.api.Milestone> before = daemon.api().milestones(0).get();
            long last = before.get(before.size() - 1).seq();
            ByteArrayOutputStream followed = new ByteArrayOutputStream();
            AtomicInteger followCode = new AtomicInteger(-1);
            Thread follow = new Thread(() -> followCode.set(new Main(new PrintStream(followed, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run(new String[] {
                    "events", "--url", daemon.restUrl(), "--follow", "--json", "--since", String.valueOf(last)})));
            follow.start();
            long spine = PgftGenerator.switchGuid(2, 1);
            sim.kill(spine, FabricSimulator.KillMode.AGENT);
            Await.value("the re-route without the spine", () -> daemon.api().status().get(),
                    s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 7);
            String url = daemon.restUrl();

            HttpResponse<String> detail = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(url + "/api/v1/switches/" + Guids.format(spine))).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(detail.statusCode()).as(detail.body()).isEqualTo(200);
            JsonNode d = JSON.readTree(detail.body());
            assertThat(d.get("state").asText()).isEqualTo("DISCONNECTED");
            assertThat(d.get("connected").asBoolean()).isFalse();
            assertThat(d.get("disconnectedSince").asLong()).isPositive();

            List<Views.Switch> all = daemon.api().switches().get();
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

            Arguments noUrl = CliTree.arguments(new SwitchesCommand(), List.of());
            Path restConfig = state.resolve("fm.yaml");
            java.nio.file.Files.writeString(restConfig, "rest:\n  bind: 0.0.0.0\n  port: 7999\n");
            assertThat(DaemonClient.url(noUrl, Map.of(DaemonClient.URL_VARIABLE, url), restConfig)).isEqualTo(url);
            assertThat(DaemonClient.url(noUrl, Map.of(), restConfig)).as("the configuration's REST address")
                    .isEqualTo("http://127.0.0.1:7999");
            assertThat(DaemonClient.url(noUrl, Map.of(), state.resolve("none.yaml"))).isEqualTo(DaemonClient.DEFAULT_URL);
            CliRun fromEnv = CliRun.of("switches", "--json");
            assertThat(fromEnv.exitCode()).as("no --url, no variable in this JVM: the default address, or the "
                    + "installed configuration's").isIn(0, 2);

            // events --follow printed the loss as it came, one JSON event a line, only those after --since
            String lines = Await.value("the loss, followed", () -> followed.toString(StandardCharsets.UTF_8),
                    t -> t.contains("SWITCH_LOST"));
            for (String line : lines.lines().toList()) {
                assertThat(JSON.readTree(line).get("seq").asLong()).isGreaterThan(last);
            }
            follow.interrupt();
            follow.join(10_000);
            assertThat(follow.isAlive()).as("--follow ends when interrupted").isFalse();
            assertThat(followCode.get()).isZero();

            sim.revive(spine);
            Await.value("the spine back", () -> daemon.api().switchDetail(spine).get(), s -> "IN_SYNC".equals(s.state()));
        }
    }
}
