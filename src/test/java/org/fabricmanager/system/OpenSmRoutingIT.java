package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
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
