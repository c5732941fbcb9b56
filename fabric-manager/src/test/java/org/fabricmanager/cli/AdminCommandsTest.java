package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code status}, {@code switches}, {@code events}, {@code route --url} against a real daemon on loopback. */
class AdminCommandsTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path state;
    static FabricManagerDaemon daemon;
    static FabricSimulator sim;
    static Fabric fabric;
    static String url;

    @BeforeAll
    static void start() throws Exception {
        DaemonConfig config = DaemonConfig.defaults().withDetector(false).withSouthboundBind("127.0.0.1").withPorts(0, 0)
                .withStateDirectory(state).withExpectedPgft(SPEC);
        daemon = FabricManagerDaemon.start(config, List.of());
        fabric = PgftGenerator.generate(SPEC);
        sim = new FabricSimulator(fabric, AgentSettings.defaults(new InetSocketAddress("127.0.0.1",
                daemon.southboundAddress().getPort())), null, 1, null, 1);
        sim.start();
        Await.value("convergence", () -> daemon.api().status().get(), s -> s.state() == DaemonState.CONVERGED);
        url = daemon.restUrl();
    }

    @AfterAll
    static void stop() {
        sim.close();
        daemon.close();
    }

    static JsonNode rest(String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    static CliRun ok(String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as("%s: %s", String.join(" ", args), run.err()).isZero();
        assertThat(run.err()).isEmpty();
        return run;
    }

    static void fails(String error, String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err()).as("one line on stderr").contains(error).doesNotContain("\tat ").hasLineCount(1);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void statusSummarisesTheDaemon() {
        String out = ok("status", "--url", url).out();
        assertThat(out).containsPattern("(?m)^state +CONVERGED$")
                .containsPattern("(?m)^switches +8 connected of 8 expected$")
                .containsPattern("(?m)^nodes +16$")
                .containsPattern("(?m)^routing +v1 by dmodc-home in [0-9.]+ m?s, valid; 1 computations since start$")
                .containsPattern("(?m)^tables +8 in sync, 0 pending, 0 failing$")
                .containsPattern("(?m)^last push +v1: 8 blocks, [0-9]+ bytes, 8 acked, 0 retries")
                .containsPattern("(?m)^discovery +INTACT");
    }

    @Test
    void switchesListsEverySwitchOnceWithItsState() throws Exception {
        String out = ok("switches", "--url", url + "/").out();
        List<String> lines = out.lines().toList();
        assertThat(lines.get(0)).startsWith("GUID").contains("NAME", "CONNECTED", "PORTS UP", "TABLE", "IN SYNC");
        assertThat(lines).hasSize(1 + 8 + 1);
        for (FabricSwitch s : fabric.switches()) {
            String guid = Guids.format(s.guid());
            assertThat(lines).filteredOn(l -> l.startsWith(guid + " ")).singleElement().asString()
                    .contains(s.name()).containsPattern("  yes  .*  (\\d+)/\\1  +v1  yes  ");
        }
        assertThat(lines.get(9)).isEqualTo("8 switches, 8 connected, 8 in sync");
        assertThat(ok("switches", "--url", url, "--not-in-sync").out()).isEqualTo("8 switches, 8 connected, 8 in sync\n");
    }

    @Test
    void statusFaultsAndEventsPrintTheDaemonsJsonWithJson() throws Exception {
        JsonNode status = JSON.readTree(ok("status", "--url", url, "--json").out());
        assertThat(status.get("state").asText()).isEqualTo("CONVERGED");
        assertThat(status.get("switches").get("connected").asInt()).isEqualTo(8);
        JsonNode faults = JSON.readTree(ok("faults", "--url", url, "--json").out());
        assertThat(faults.has("linkFaults") || faults.has("detectorEnabled")).as(faults.toString()).isTrue();
        JsonNode events = JSON.readTree(ok("events", "--url", url, "--json").out());
        assertThat(events.isArray()).isTrue();
        assertThat(events).hasSize(rest("/api/v1/events").size());
    }

    @Test
    void eventsPrintsTheMilestonesInOrderAndHonoursSince() throws Exception {
        JsonNode events = rest("/api/v1/events");
        String out = ok("events", "--url", url).out();
        List<String> lines = out.lines().toList();
        assertThat(lines.get(0)).matches(" *SEQ  TIME +KIND +MESSAGE");
        assertThat(lines).hasSize(1 + events.size());
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            assertThat(lines.get(1 + i)).matches(" *" + e.get("seq").asLong() + "  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}  "
                    + e.get("kind").asText() + " +.*").endsWith(e.get("message").asText());
        }
        assertThat(out).contains("CONVERGED").contains("tables converged: v1 on 8/8 switches");
        long last = events.get(events.size() - 1).get("seq").asLong();
        assertThat(ok("events", "--url", url, "--since", String.valueOf(last)).out()).isEqualTo("no events after " + last + "\n");
        assertThat(ok("events", "--url", url, "--since", String.valueOf(last - 1)).out().lines()).hasSize(2);
    }

    @Test
    void routeUrlPrintsTheDaemonsPath() throws Exception {
        JsonNode path = rest("/api/v1/route?src=0&dst=15");
        String out = ok("route", "--url", url, "--src", "0", "--dst", "15").out();
        List<String> lines = out.lines().toList();
        assertThat(lines.get(0)).startsWith("0 (" + path.get("srcNode").asText() + ") -> 15 ("
                + path.get("dstNode").asText() + "): " + path.get("outcome").asText() + " with tables v1, "
                + path.get("hops").size() + " switches");
        assertThat(path.get("hops").size()).isEqualTo(3);
        assertThat(lines).hasSize(2 + 3);
        for (int i = 0; i < 3; i++) {
            JsonNode h = path.get("hops").get(i);
            assertThat(lines.get(2 + i).trim()).matches((i + 1) + "  " + h.get("guid").asText() + "  "
                    + h.get("name").asText() + " +" + h.get("outPort").asInt());
        }
        // the same end nodes by name and by GUID, as the daemon's fabric lists them
        JsonNode nodes = rest("/api/v1/topology").get("nodes");
        JsonNode first = null;
        JsonNode last = null;
        for (JsonNode n : nodes) {
            first = n.get("index").asInt() == 0 ? n : first;
            last = n.get("index").asInt() == 15 ? n : last;
        }
        assertThat(ok("route", "--url", url, "--src", first.get("name").asText(), "--dst", last.get("guid").asText()).out())
                .isEqualTo(out);
    }

    @Test
    void errorsAreOneLineWithExitCode2() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        fails("status: cannot reach the daemon at http://127.0.0.1:" + closed + ": connection refused",
                "status", "--url", "http://127.0.0.1:" + closed);
        fails("switches: cannot reach the daemon", "switches", "--url", "http://127.0.0.1:" + closed);
        fails("events: cannot reach the daemon", "events", "--url", "http://127.0.0.1:" + closed);
        fails("status: option --url: 'localhost:7680' is not a daemon address (expected http://HOST:PORT)",
                "status", "--url", "localhost:7680");
        fails("route: the daemon at " + url + " answered 404: ", "route", "--url", url, "--src", "0", "--dst", "999");
        fails("route: the daemon at " + url + " answered 400: src and dst are the same", "route", "--url", url,
                "--src", "3", "--dst", "3");
        fails("route: a query of the daemon needs both --src NODE and --dst NODE", "route", "--url", url, "--src", "3");
        fails("route: a query of the daemon needs both --src NODE and --dst NODE", "route", "--dst", "3");
        fails("route: --dst 'no-such-node': no end node of the fabric has this name", "route", "--url", url,
                "--src", "0", "--dst", "no-such-node");
        fails("route: --src/--dst/--url query a running daemon; --pgft belongs to offline routing", "route", "--url", url,
                "--pgft", "PGFT(2;4,4;1,4;1,1)", "--src", "0", "--dst", "1");
        fails("events: option --since must be a sequence number", "events", "--url", url, "--since", "-1");
    }
}
