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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The daemon as OpenSM's live routing engine (docs/opensm.md): ibsim simulates a PGFT, OpenSM runs on it with the
 * plug-in {@code libfabricmanager.so} and {@code routing_engine fabric-manager,minhop}, and the daemon listens on
 * {@code opensm.socket}. The LFTs read back from every simulated switch with {@code ibroute} must equal offline
 * {@code route --lft-format opensm} (the default engine, as the daemon's) of the fabric ibnetdiscover sees, intact,
 * and after a cable is unlinked at ibsim's console the repair of the intact tables ({@code route --previous}, as the
 * daemon repairs), answered as a delta, OpenSM's trap and LFT blocks in the daemon's events; SA answers a path
 * record on the plug-in's hop matrices; with the daemon stopped OpenSM falls back, and a daemon started again takes
 * routing back without a fabric change, with whole tables; then with fake daemons ({@link FakeOpenSmDaemon}) that
 * answer garbage, too late, a huge frame, a delta against tables the plug-in does not hold, a delta out of range, a
 * port a switch does not have, a switch OpenSM does not know or a refusal of each code, OpenSM must fall back to minhop
 * and keep the subnet up, the plug-in asking for no pass again but after a daemon closing unanswered or a MOVING. Skipped when OpenSM, ibsim, infiniband-diags or the
 * plug-in (gcc and OpenSM's headers at build time) are missing.
 */
class OpenSmRoutingIT {
    /** Bounds, not measures: a stuck tool must not hang the build. */
    private static final long TOOL_LIMIT_SECONDS = 120;
    private static final int PLUGIN_TIMEOUT_MS = 15_000;
    private static final Pattern ENTRY = Pattern.compile("0x([0-9a-fA-F]{4}) (\\d{3})\\b.*");
    private static final Pattern HEADER = Pattern.compile("Unicast lids .* guid 0x([0-9a-fA-F]{16}).*");

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Under target/, so that OpenSM's and ibsim's logs stay for a look after a failure. */
    static Path dir;
    static OpenSmTools tools;
    static OpenSmPlugin plugin;

    @BeforeAll
    static void tools() throws IOException {
        OpenSmLab lab = OpenSmLab.require();
        tools = lab.tools();
        plugin = lab.plugin();
        dir = Files.createDirectories(plugin.directory().resolveSibling("opensm-routing-it"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PGFT(2;4,4;1,4;1,1)", "PGFT(3;4,4,4;1,4,4;1,1,1)"})
    void openSmInstallsTheDaemonsTablesAndFallsBackWithoutIt(String spec) throws Exception {
        Path work = dir.resolve(spec.replaceAll("[^0-9]", ""));
        deleteTree(work); // OpenSM appends to its log: a previous run's lines must not count
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(spec));
        Path socket = work.resolve("opensm.sock");
        DaemonConfig config = SystemSupport.config(work.resolve("state"), null).withDiscovery(300, 30_000)
                .withOpenSm(OpenSm.of(socket.toString(), null, null, null));
        FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
        Process opensm = null;
        try (IbsimFabric lab = IbsimFabric.start(tools, fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS)) {
            Path osmDir = work.resolve("opensm");
            Path log = osmDir.resolve("opensm.log");
            opensm = plugin.startOpenSm(lab, socket, PLUGIN_TIMEOUT_MS, osmDir);
            OpenSmLab.awaitLog(log, "routed by the daemon", 1);
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == fabric.switches().size(), "the daemon converged on OpenSM's subnet");
            OpenSmLab.awaitSubnetUp(osmDir);
            LidFabric intact = assertTablesEqualOffline(lab, work.resolve("intact"), null);
            assertThat(intact.fabric().links()).hasSameSizeAs(fabric.links());
            // the engine built OpenSM's hop matrices itself: SA still answers path records between nodes of two leaves
            assertPathRecord(lab, intact, work.resolve("intact"));

            // a cable between two switches pulled at ibsim's console: OpenSM's sweep reaches the daemon
            Link cable = fabric.links().stream().filter(l -> fabric.switchByGuid(l.b()).isPresent()).findFirst().orElseThrow();
            FabricSwitch end = fabric.switchByGuid(cable.a()).orElseThrow();
            long intactVersion = daemon.api().status().get().routing().version();
            lab.console("Unlink \"" + IbsimNet.id(end.name(), end.guid()) + "\"[" + cable.aPort() + "]");
            OpenSmLab.awaitLog(log, "routed by the daemon", 2);
            assertThat(logLines(log, "routed by the daemon").get(1)).as("the answer after the cable: what changed only")
                    .contains("; delta of");
            // the daemon repairs the tables in force after a fault (routing.onFault: repair), then refines the repair and
            // OpenSM routes again to carry it: route --previous offline
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.routing().version() > intactVersion
                    && !s.routing().refinePending(), "the repair refined and carried by OpenSM");
            assertThat(assertTablesEqualOffline(lab, work.resolve("unlinked"), work.resolve("intact").resolve(TABLES)).fabric().links())
                    .as("ibnetdiscover sees the cable gone").hasSize(fabric.links().size() - 1);
            // OpenSM's trap and the LFT blocks it set reach the daemon's events
            FabricManagerDaemon running = daemon;
            SystemSupport.awaitTrue(() -> running.api().milestones(0).get().stream().map(Milestone::message).toList()
                    .containsAll(List.of("OpenSM: trap 128 received")) && running.api().milestones(0).get().stream()
                    .anyMatch(m -> m.kind() == Milestone.Kind.OPENSM_EVENT && m.message().contains("LFT blocks set")),
                    "the daemon's events show OpenSM's trap 128 and the LFT blocks it set", (int) TOOL_LIMIT_SECONDS);

            // the daemon stopped: the next sweep falls back to minhop and the subnet stays up
            daemon.close();
            daemon = null;
            lab.console("ReLink \"" + IbsimNet.id(end.name(), end.guid()) + "\"[" + cable.aPort() + "]");
            OpenSmLab.awaitLog(log, "OpenSM falls back to minhop", 1);
            OpenSmLab.awaitLog(log, "minhop tables configured on all switches", 1);
            assertThat(opensm.isAlive()).as("OpenSM runs on without the daemon").isTrue();
            assertThat(lab.ibnetdiscover(work.resolve("fallback.ibnet"), TOOL_LIMIT_SECONDS)).exists();

            // the daemon back: the plug-in sees it listen and OpenSM re-routes with it, no fabric change needed (the
            // passes so far: the intact tables, the repair, and the refinement of the repair)
            int answered = logLines(log, "routed by the daemon").size();
            int configured = logLines(log, "fabric-manager tables configured on all switches").size();
            daemon = FabricManagerDaemon.start(config, List.of());
            OpenSmLab.awaitLog(log, "asking OpenSM to re-route", 1);
            OpenSmLab.awaitLog(log, "routed by the daemon", answered + 1);
            assertThat(logLines(log, "routed by the daemon").get(answered)).as("a new daemon holds no earlier answer")
                    .contains("; whole tables of");
            OpenSmLab.awaitLog(log, "fabric-manager tables configured on all switches", configured + 1);
            daemon.close();
            daemon = null;

            // fake daemons answering garbage, too late, a huge frame, a port the switch lacks, refusals of each code:
            // OpenSM falls back each time, and only a daemon that closes unanswered or a leadership moving makes the
            // plug-in take the routing back (the late one waits out the plug-in's whole timeout: on the first fabric
            // only, the bound does not depend on it). The take-back last: its re-routes go on while it listens.
            List<FakeOpenSmDaemon.Mode> modes = Stream.of(FakeOpenSmDaemon.Mode.values())
                    .filter(m -> m != FakeOpenSmDaemon.Mode.LATE || spec.startsWith("PGFT(2;")).toList();
            for (int i = 0; i < modes.size(); i++) {
                FakeOpenSmDaemon.Mode mode = modes.get(i);
                int asked = logLines(log, "asking OpenSM to re-route").size();
                int seen = logLines(log, mode.logged).size();
                try (FakeOpenSmDaemon fake = new FakeOpenSmDaemon(socket, mode, PLUGIN_TIMEOUT_MS + 2_000)) {
                    lab.console((i % 2 == 0 ? "Unlink" : "ReLink") + " \"" + IbsimNet.id(end.name(), end.guid()) + "\"["
                            + cable.aPort() + "]");
                    OpenSmLab.awaitLog(log, mode.logged, seen + 1);
                    OpenSmLab.awaitLog(log, "OpenSM falls back to minhop", 2 + i);
                    if (mode.takesBack) {
                        // a daemon going away (a standby releasing the socket to its manager), or a leadership moving
                        // here: once something listens, OpenSM is asked to re-route, as after a restart
                        SystemSupport.awaitTrue(() -> {
                            String text = Files.readString(log, StandardCharsets.ISO_8859_1);
                            return text.indexOf("the daemon listens again on", text.indexOf(mode.logged)) >= 0;
                        }, "OpenSM's log " + log + " shows a take-back after " + mode.logged, (int) TOOL_LIMIT_SECONDS);
                    } else {
                        // the plug-in's channel thread, which takes the routing back, turned twice since the pass
                        // failed (its channel reconnects each second): a take-back would have been asked by then
                        int turns = fake.channels();
                        SystemSupport.awaitTrue(() -> fake.channels() >= turns + 2, "the plug-in's channel back twice "
                                + "on the fake daemon", (int) TOOL_LIMIT_SECONDS);
                        assertThat(logLines(log, "asking OpenSM to re-route")).as(mode + ": a failed pass, not a loop")
                                .hasSize(asked);
                        if (mode == FakeOpenSmDaemon.Mode.INVALID) {
                            // its channel refused too: logged with the code, and reconnected (the turns above)
                            OpenSmLab.awaitLog(log, "ERR FA0D", 1);
                            assertThat(logLines(log, "ERR FA0D").get(0)).as("the channel's refusal in OpenSM's log")
                                    .contains("(code 3 INVALID): a channel frame refused");
                            // refused again at each of the reconnections since: told once a minute, not each time
                            assertThat(fake.channels()).as("channels refused").isGreaterThanOrEqualTo(2);
                            assertThat(logLines(log, "ERR FA0D")).as("the channel's refusals told").hasSize(1);
                        }
                    }
                }
            }
            assertThat(opensm.isAlive()).as("OpenSM survived every bad answer").isTrue();
            assertThat(Files.readString(log, StandardCharsets.ISO_8859_1)).doesNotContain("SUBNET_ERROR");
        } finally {
            if (opensm != null) {
                opensm.destroy();
                opensm.waitFor(10, TimeUnit.SECONDS);
            }
            if (daemon != null) {
                daemon.close();
            }
        }
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

    /** The tables each phase's offline routing leaves in lft-text/1, for the next phase's {@code --previous}. */
    private static final String TABLES = "dmodc.lft";

    /**
     * ibroute's tables of every switch equal the default engine's offline routing of the fabric ibnetdiscover sees
     * now, by LID: a routing from scratch, or with {@code previous} the repair of those tables refined ({@code route
     * --previous --refine}), as the daemon does after a fault.
     */
    static LidFabric assertTablesEqualOffline(IbsimFabric lab, Path work, Path previous) throws Exception {
        Files.createDirectories(work);
        Path ibnet = lab.ibnetdiscover(work.resolve("ibnet.txt"), TOOL_LIMIT_SECONDS);
        LidFabric seen = IbnetdiscoverReader.readWithLids(ibnet);
        Path offline = work.resolve("dmodc.lfts");
        List<String> route = new ArrayList<>(List.of("route", "--topology", ibnet.toString(), "--engine",
                RoutingEngines.DEFAULT));
        if (previous != null) {
            route.addAll(List.of("--previous", previous.toString(), "--refine"));
        }
        List<String> asText = new ArrayList<>(route);
        asText.addAll(List.of("--lft-out", work.resolve(TABLES).toString()));
        FabricProcesses.cli(work, "-Xmx512m", TOOL_LIMIT_SECONDS, asText.toArray(String[]::new)).succeeded();
        route.addAll(List.of("--lft-format", "opensm", "--lft-out", offline.toString()));
        FabricProcesses.cli(work, "-Xmx512m", TOOL_LIMIT_SECONDS, route.toArray(String[]::new)).succeeded();
        Map<String, Map<Integer, Integer>> expected = tables(Files.readAllLines(offline));
        assertThat(expected).hasSize(seen.fabric().switches().size());
        List<String> read = new ArrayList<>();
        for (FabricSwitch s : seen.fabric().switches()) {
            int lid = seen.lids().lid(s.guid()).orElseThrow();
            read.addAll(List.of(lab.ibroute(lid, work.resolve("ibroute-" + lid + ".txt"), TOOL_LIMIT_SECONDS).split("\n")));
        }
        assertThat(tables(read)).as("the LFTs in the simulated switches (ibroute) against offline dmodc, " + work)
                .isEqualTo(expected);
        return seen;
    }

    /** saquery's path record from the first end node to the last (another leaf) names both LIDs. */
    private static void assertPathRecord(IbsimFabric lab, LidFabric seen, Path work) throws Exception {
        List<Integer> lids = seen.fabric().nodes().stream().map(n -> seen.lids().lid(n.guid()).orElseThrow()).sorted().toList();
        int src = lids.get(0);
        int dst = lids.get(lids.size() - 1);
        String record = lab.saquery(List.of("--src-to-dst", src + ":" + dst), work.resolve("saquery.txt"), TOOL_LIMIT_SECONDS);
        assertThat(record).as("saquery --src-to-dst %d:%d", src, dst).contains("PathRecord")
                .containsPattern("dlid\\.+" + dst + "\\b").containsPattern("slid\\.+" + src + "\\b");
    }

    static void deleteTree(Path root) throws IOException {
        if (Files.exists(root)) {
            try (var paths = Files.walk(root)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** OpenSM's log lines that hold {@code text}, in order. */
    private static List<String> logLines(Path log, String text) throws IOException {
        return Files.readAllLines(log, StandardCharsets.ISO_8859_1).stream().filter(l -> l.contains(text)).toList();
    }

    /** Switch GUID -> (LID -> port), from an opensm-lfts.dump or ibroute output. */
    static Map<String, Map<Integer, Integer>> tables(List<String> lines) {
        Map<String, Map<Integer, Integer>> tables = new TreeMap<>();
        Map<Integer, Integer> current = null;
        for (String line : lines) {
            Matcher h = HEADER.matcher(line);
            if (h.matches()) {
                current = tables.computeIfAbsent(h.group(1).toLowerCase(), k -> new TreeMap<>());
                continue;
            }
            Matcher e = ENTRY.matcher(line);
            if (e.matches() && current != null) {
                current.put(Integer.parseInt(e.group(1), 16), Integer.parseInt(e.group(2)));
            }
        }
        return tables;
    }
}
