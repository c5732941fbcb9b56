package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar as operators run it: {@code run --config} in one process, {@code simulate} in another,
 * REST reports convergence, SIGTERM stops the daemon cleanly with its state on disk.
 */
class RunAndSimulateIT {
    static final String SPEC = "PGFT(2;4,4;1,4;1,1)";

    @TempDir
    Path dir;

    /**
     * One client for the whole test, so that its polls reuse one keep-alive connection. A client per request left
     * each poll's connection open until the daemon's idle timeout; a convergence slow enough on a loaded machine
     * filled the daemon's per-peer connection cap ({@code rest.maxConnections} / 4), and the daemon then closed the
     * next connection as soon as accepted, which failed the first request made outside the poll.
     */
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private List<String> jar(String... args) {
        List<String> cmd = new ArrayList<>(List.of(FabricProcesses.java(), "-Xmx256m", "-jar", System.getProperty("fm.jar")));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void daemonAndSimulatorProcessesConvergeAndTheDaemonStopsOnSigterm() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(org.fabricmanager.routing.engines.RoutingEngines.names().contains("dmodc"),
                "the dmodc engine is not registered in this build");
        Path state = dir.resolve("state");
        Path config = dir.resolve("fabric-manager.yaml");
        // the operator's PKI: a CA and the daemon's certificate, then one certificate per switch
        Path pki = dir.resolve("pki");
        FabricProcesses.cli(dir, "-Xmx256m", 60, "pki", "init", "--dir", pki.toString()).succeeded();
        FabricProcesses.cli(dir, "-Xmx256m", 60, "pki", "issue", "--dir", pki.toString(), "--pgft", SPEC).succeeded();
        assertThat(pki.resolve("switches")).isDirectoryContaining(p -> p.getFileName().toString().endsWith(".key"));
        // Discovery ends as soon as every expected switch is present; the long settle window only
        // keeps a restarted daemon from routing a partial fabric while agents are still in their
        // reconnect backoff on a loaded machine (which would, rightly, make it compute anew).
        // A small REST connection cap (4 per peer) makes a client that leaves connections open fail here at once
        // (the test and the CLI hold one each), rather than only when a slow convergence fills the default cap.
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                discovery:
                  settleMs: 15000
                  maxWaitMs: 30000
                rest:
                  maxConnections: 16
                state:
                  directory: "%s"
                security:
                  pkiDirectory: "%s"
                """.formatted(SPEC, state, pki));
        Process daemon = new ProcessBuilder(jar("run", "--config", config.toString(), "--southbound-port", "0",
                "--http-port", "0")).redirectError(dir.resolve("daemon.err").toFile()).start();
        Process sim = null;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8));
            String southbound = out.readLine();
            String rest = out.readLine();
            assertThat(southbound).as("first line of run's stdout (stderr: %s)", dir.resolve("daemon.err")).startsWith("southbound ");
            assertThat(rest).startsWith("rest http://127.0.0.1:");
            int port = Integer.parseInt(southbound.substring(southbound.lastIndexOf(':') + 1));
            assertThat(port).isPositive();
            String url = rest.substring("rest ".length());

            sim = new ProcessBuilder(jar("simulate", "--pgft", SPEC, "--connect", "127.0.0.1:" + port, "--pki", pki.toString()))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("simulate.out").toFile()).start();
            JsonNode status = awaitConverged(url);
            assertThat(status.at("/switches/connected").asInt()).isEqualTo(8);
            assertThat(status.at("/routing/engine").asText()).isEqualTo(RoutingEngines.DEFAULT);
            assertThat(status.at("/tables/inSync").asInt()).isEqualTo(8);
            assertThat(get(url + "/health/ready").statusCode()).isEqualTo(200);
            assertThat(get(url + "/metrics").body()).contains("fabric_switches_connected 8.0")
                    .as("no connection of this test refused by the daemon's connection cap")
                    .doesNotContain("fabric_rest_rejected_total{status=\"503\"");

            // the admin CLI of the packaged jar against the daemon process
            String adminOut = FabricProcesses.cli(dir, "-Xmx256m", 30, "status", "--url", url).succeeded().all();
            assertThat(adminOut).containsPattern("(?m)^state +CONVERGED$").contains("8 in sync, 0 pending");

            // SIGTERM with every agent still connected: stop accepting, persist, exit in time
            daemon.destroy();
            assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).as("daemon stops on SIGTERM").isTrue();
            assertThat(daemon.exitValue()).isIn(0, 143);
            assertThat(new IndexMapStore(state).load().size()).isEqualTo(16);
            assertThat(new RoutingStateStore(state).load()).get().extracting(s -> s.version()).isEqualTo(1L);
            try (var files = Files.list(state)) {
                assertThat(files.map(f -> f.getFileName().toString())).as("no half-written file left")
                        .noneMatch(n -> n.endsWith(".tmp"));
            }
            assertThat(Files.readString(dir.resolve("daemon.err"))).contains("mutual TLS 1.3")
                    .contains("tables converged: v1 on 8/8 switches")
                    .contains("fabric-manager stopping (state CONVERGED)").containsPattern("fabric-manager stopped in \\d+ ms");

            // the state on disk is usable: a restart on the same port reuses the stored routing, and the
            // agents (which reconnect by themselves) converge on it without a new computation
            daemon = new ProcessBuilder(jar("run", "--config", config.toString(), "--southbound-port", String.valueOf(port),
                    "--http-port", "0")).redirectError(dir.resolve("daemon2.err").toFile()).start();
            BufferedReader out2 = new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out2.readLine()).as("restart (stderr: %s)", dir.resolve("daemon2.err")).isEqualTo(southbound);
            String url2 = out2.readLine().substring("rest ".length());
            JsonNode again = awaitConverged(url2);
            assertThat(again.at("/routing/version").asLong()).isEqualTo(1);
            assertThat(again.at("/routing/reusedFromState").asBoolean()).isTrue();
            assertThat(again.at("/routing/computations").asLong()).isZero();

            sim.destroy();
            assertThat(sim.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(dir.resolve("simulate.out"))).contains("agents connected: 8/8, tables held: 8/8 (newest v1)");
            daemon.destroy();
            assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).as("restarted daemon stops on SIGTERM").isTrue();
            assertThat(daemon.exitValue()).isIn(0, 143);
        } finally {
            if (sim != null) {
                sim.destroyForcibly();
            }
            daemon.destroyForcibly();
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode awaitConverged(String url) {
        ObjectMapper json = new ObjectMapper();
        return Await.value("the daemon at " + url + " CONVERGED", Duration.ofSeconds(60),
                () -> json.readTree(get(url + "/api/v1/status").body()), s -> s.path("state").asText().equals("CONVERGED"));
    }
}
