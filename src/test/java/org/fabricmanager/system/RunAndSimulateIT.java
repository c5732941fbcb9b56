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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.RoutingStateStore;
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

    private static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    private List<String> jar(String... args) {
        List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx256m", "-jar", System.getProperty("fm.jar")));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void daemonAndSimulatorProcessesConvergeAndTheDaemonStopsOnSigterm() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(org.fabricmanager.routing.RoutingEngines.names().contains("dmodc"),
                "the dmodc engine is not registered in this build");
        Path state = dir.resolve("state");
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                discovery:
                  settleMs: 500
                state:
                  directory: "%s"
                """.formatted(SPEC, state));
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

            sim = new ProcessBuilder(jar("simulate", "--pgft", SPEC, "--connect", "127.0.0.1:" + port))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("simulate.out").toFile()).start();
            JsonNode status = awaitConverged(url);
            assertThat(status.at("/switches/connected").asInt()).isEqualTo(8);
            assertThat(status.at("/routing/engine").asText()).isEqualTo("dmodc");
            assertThat(status.at("/tables/inSync").asInt()).isEqualTo(8);

            sim.destroy();
            assertThat(sim.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(dir.resolve("simulate.out"))).contains("agents connected: 8/8, table v1 applied on 8/8");

            daemon.destroy(); // SIGTERM
            assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).as("daemon stops on SIGTERM").isTrue();
            assertThat(daemon.exitValue()).isIn(0, 143);
            assertThat(new IndexMapStore(state).load().size()).isEqualTo(16);
            assertThat(new RoutingStateStore(state).load()).get().extracting(s -> s.version()).isEqualTo(1L);
            assertThat(Files.readString(dir.resolve("daemon.err"))).contains("tables converged: v1 on 8/8 switches")
                    .contains("fabric-manager stopped");
        } finally {
            if (sim != null) {
                sim.destroyForcibly();
            }
            daemon.destroyForcibly();
        }
    }

    private static JsonNode awaitConverged(String url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/status")).build(),
                    HttpResponse.BodyHandlers.ofString());
            last = json.readTree(r.body());
            if (last.get("state").asText().equals("CONVERGED")) {
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("daemon did not converge; last status " + last);
    }
}
