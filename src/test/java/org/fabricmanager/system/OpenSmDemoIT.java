package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
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
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code demo --opensm} as a process, read through its REST API (docs/opensm.md). Skipped when OpenSM, ibsim,
 * infiniband-diags or the plug-in are missing.
 */
class OpenSmDemoIT {
    /** Bounds, not measures: a stuck tool must not hang the build. */
    private static final long TOOL_LIMIT_SECONDS = 120;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Under target/, so that the demo's output stays for a look after a failure. */
    static Path dir;

    @BeforeAll
    static void lab() throws IOException {
        OpenSmLab lab = OpenSmLab.require();
        dir = Files.createDirectories(lab.plugin().directory().resolveSibling("opensm-demo-it"));
    }

    /**
     * {@code demo --opensm} as an operator runs it: ibsim, OpenSM with the plug-in and the daemon from one command, on
     * ibsim's socket of the environment's {@code IBSIM_SOCKNAME}. Converged on OpenSM's subnet, a leaf's ports show the
     * counters OpenSM's performance manager reads; its uplink taken down through the demo's endpoint (typed at ibsim's
     * console) reaches the daemon as OpenSM's sweep: a REACTION in the events naming that port, and the leaf's table no
     * longer uses it; {@code mode=agent} is refused. SIGTERM stops it, its ibsim and OpenSM with it, and removes its
     * temporary directory.
     */
    @Test
    void demoOpenSmRoutesOpenSmsSubnetReactsToACableDownAndLeavesNothingBehind() throws Exception {
        Path work = Files.createDirectories(dir.resolve("demo"));
        Path output = work.resolve("demo.out");
        String sockName = "fm-it-demo-" + ProcessHandle.current().pid();
        ProcessBuilder pb = new ProcessBuilder(FabricProcesses.java(), "-Xmx384m", "-jar", System.getProperty("fm.jar"),
                "demo", "--opensm", "--pgft", "PGFT(2;4,4;1,4;1,1)", "--http-port", "0").directory(work.toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("IBSIM_SOCKNAME", sockName);
        Process demo = pb.start();
        List<ProcessHandle> children = new ArrayList<>();
        try {
            // the diagnostics line comes after the REST address: wait for it, not just the address
            Await.value("the demo's diagnostics line in " + output, Duration.ofSeconds(TOOL_LIMIT_SECONDS),
                    () -> line(output, "diagnostics on this subnet"), l -> l != null || !demo.isAlive());
            String base = line(output, "REST: ");
            assertThat(base).as("the demo runs: " + Files.readString(output)).isNotNull();
            base = base.substring("REST: ".length(), base.indexOf("/api/v1/status"));
            String out = Files.readString(output);
            assertThat(out).contains("socket " + sockName + " (IBSIM_SOCKNAME)").contains("IBSIM_SOCKNAME=" + sockName
                    + " ibroute LID");
            Path temporary = Path.of(out.replaceAll("(?s).*state in (\\S+) \\(temporary\\).*", "$1"));
            assertThat(temporary).as("the demo's temporary directory").isDirectory();
            children.addAll(demo.descendants().toList());
            assertThat(children.stream().map(c -> c.info().command().orElse("")).toList())
                    .anyMatch(c -> c.endsWith("/ibsim")).anyMatch(c -> c.endsWith("/opensm"));
            JsonNode status = json(base + "/api/v1/status", null);
            assertThat(status.path("state").asText()).isEqualTo("CONVERGED");
            assertThat(status.path("switches").path("connected").asInt()).isEqualTo(8);

            // a leaf away from OpenSM's own (s1-0 holds its port), its first uplink (ports 1-4: nodes, 5-8: spines)
            String leaf = null;
            for (JsonNode s : json(base + "/api/v1/switches", null)) {
                if (s.path("name").asText().startsWith("s1-1_")) {
                    leaf = s.path("guid").asText();
                }
            }
            assertThat(leaf).as("leaf s1-1 among the daemon's switches").isNotNull();
            JsonNode before = json(base + "/api/v1/switches/" + leaf + "/lft", null);
            assertThat(ports(before)).as("the leaf's entries, intact").contains(5, 6);
            // OpenSM's performance manager reads the leaf's ports: each port counted, OpenSM's own MADs among them
            String countersUrl = base + "/api/v1/switches/" + leaf + "/ports";
            JsonNode counters = Await.value("every port of " + leaf + " counted by OpenSM's performance manager",
                    Duration.ofSeconds(TOOL_LIMIT_SECONDS), () -> json(countersUrl, null), c -> c.path("reporting")
                            .asBoolean() && c.path("ports").size() == 8 && allCounted(c.path("ports")));
            assertThat(counters.path("totals").path("rxPackets").asLong() + counters.path("totals").path("txPackets")
                    .asLong()).as("packets through " + leaf).isPositive();
            JsonNode refused = json(base + "/api/v1/sim/switches/" + leaf + "/kill?mode=agent", 400);
            assertThat(refused.path("error").asText()).contains("mode=agent has no meaning under OpenSM");
            long seen = json(base + "/api/v1/events?since=0", null).size();
            json(base + "/api/v1/sim/links/down?guid=" + leaf + "&port=5", 200);

            String events = base + "/api/v1/events?since=" + seen;
            JsonNode reaction = Await.value("a REACTION to the cable at " + leaf + "/5 in " + events,
                    Duration.ofSeconds(TOOL_LIMIT_SECONDS), () -> {
                        for (JsonNode e : json(events, null)) {
                            if (e.path("kind").asText().equals("REACTION") && e.path("message").asText().contains("port 5 down")) {
                                return e;
                            }
                        }
                        return null;
                    }, e -> e != null);
            assertThat(reaction.path("message").asText()).contains("s1-1_");
            String lft = base + "/api/v1/switches/" + leaf + "/lft";
            JsonNode after = Await.value("the table of " + leaf + " without port 5", Duration.ofSeconds(TOOL_LIMIT_SECONDS),
                    () -> json(lft, null), t -> t.path("version").asLong() > before.path("version").asLong()
                            && t.path("inSync").asBoolean());
            assertThat(ports(after)).as("the leaf's entries after its cable on port 5 went down").doesNotContain(5).contains(6);

            demo.destroy(); // SIGTERM
            assertThat(demo.waitFor(TOOL_LIMIT_SECONDS, TimeUnit.SECONDS)).as("the demo stops on SIGTERM").isTrue();
            SystemSupport.awaitTrue(() -> children.stream().noneMatch(ProcessHandle::isAlive),
                    "the demo's ibsim and OpenSM gone", 30);
            assertThat(temporary).as("the demo's temporary directory, socket and logs").doesNotExist();
        } finally {
            // a failure anywhere above must not leave the demo's ibsim behind (it keeps a core busy): its children
            // are taken while the demo still runs, as SIGKILL gives it no chance to stop them
            children.addAll(demo.descendants().toList());
            demo.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Every port of a {@code /ports} answer has its packets counted. */
    private static boolean allCounted(JsonNode ports) {
        for (JsonNode p : ports) {
            if (!p.path("rxPackets").isNumber() || !p.path("txPackets").isNumber()) {
                return false;
            }
        }
        return true;
    }

    /** The output port of each entry of a {@code /lft} answer. */
    private static List<Integer> ports(JsonNode lft) {
        List<Integer> ports = new ArrayList<>();
        lft.path("entries").forEach(p -> ports.add(p.asInt()));
        return ports;
    }

    /** The first line of {@code file} that starts with {@code prefix}, or null. */
    private static String line(Path file, String prefix) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElse(null);
    }

    /** GET {@code url} (or POST, expecting {@code postStatus}) and its JSON body. */
    private static JsonNode json(String url, Integer postStatus) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        HttpResponse<String> r = HTTP.send(postStatus == null ? b.GET().build() : b.POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(postStatus == null ? 200 : postStatus);
        return JSON.readTree(r.body());
    }
}
