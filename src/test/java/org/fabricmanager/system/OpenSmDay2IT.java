package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An administrator's day-2 actions under OpenSM (docs/opensm.md, "Drains, rebalances and in sync"): the daemon routes
 * OpenSM's subnet under ibsim through the plug-in; a drain of a leaf uplink, its undrain and a rebalance after a repair
 * each reach the simulated switches through a routing pass the daemon asks for, and the daemon calls them CONVERGED
 * only once OpenSM set them: at that moment {@code ibroute} reads no end-node LID out of the drained port, then the
 * port back in use, then every switch's table equal to offline Dmodc of the fabric as it is. A cable's unlink is routed
 * by the daemon while silent local connections hold every place of its socket: the routing pass gets in by closing
 * one of them (the daemon's line for it, and its close before the socket's 2 s deadline for a first frame). Skipped
 * when OpenSM, ibsim, infiniband-diags or the plug-in are missing.
 */
class OpenSmDay2IT {
    private static final long TOOL_LIMIT_SECONDS = OpenSmLab.TOOL_LIMIT_SECONDS;
    private static final Pattern ENTRY = Pattern.compile("0x([0-9a-fA-F]{4}) (\\d{3})\\b.*");
    /** The connections OpenSM's socket admits at once (OpenSmSocket): the plug-in's channel takes one. */
    private static final int PLACES = 4;
    /** OpenSmSocket's deadline for a connection's first frame: a silent connection is closed then at the latest. */
    private static final long FIRST_FRAME_MS = 2_000;
    /** Cables pulled at most until one's routing pass comes while the silent connections hold their places. */
    private static final int PULLS = 3;

    static OpenSmLab tools;
    static Path dir;

    @BeforeAll
    static void tools() throws Exception {
        tools = OpenSmLab.require();
        dir = Files.createDirectories(tools.plugin().directory().resolveSibling("opensm-day2-it"));
    }

    @Test
    void drainUndrainAndRebalanceReachOpenSmsSwitchesBeforeTheDaemonCallsThemInSync() throws Exception {
        Path work = dir.resolve("pgft-3-4-4-4");
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
        Path socket = work.resolve("opensm.sock");
        DaemonConfig config = OpenSmLab.daemonConfig(work.resolve("state"), socket);
        Process opensm = null;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
             IbsimFabric lab = IbsimFabric.start(tools.tools(), fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS)) {
            opensm = tools.plugin().startOpenSm(lab, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, work.resolve("opensm"));
            Views.Status start = SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == fabric.switches().size(), "the daemon converged on OpenSM's subnet");
            LidFabric seen = IbnetdiscoverReader.readWithLids(lab.ibnetdiscover(work.resolve("ibnet.txt"), TOOL_LIMIT_SECONDS));
            // a leaf away from OpenSM's own port (on s1-0), and its first uplink
            FabricSwitch leaf = seen.fabric().switches().stream().filter(s -> s.name().startsWith("s1-1_")).findFirst()
                    .orElseThrow();
            int uplink = seen.fabric().links().stream().filter(l -> l.a() == leaf.guid()
                    && seen.fabric().switchByGuid(l.b()).isPresent()).mapToInt(Link::aPort).min().orElseThrow();
            int leafLid = seen.lids().lid(leaf.guid()).orElseThrow();
            Set<Integer> nodeLids = new HashSet<>();
            seen.fabric().nodes().forEach(n -> nodeLids.add(seen.lids().lid(n.guid()).orElseThrow()));
            Path reads = Files.createDirectories(work.resolve("ibroute"));
            assertThat(nodeLidsOut(lab, leafLid, uplink, nodeLids, reads)).as("end-node LIDs out of the uplink, intact")
                    .isNotEmpty();

            long drainedAt = System.nanoTime();
            daemon.drain(new DrainRequest(leaf.guid(), uplink, false)).get(30, TimeUnit.SECONDS);
            Views.Status drained = convergedAfter(daemon, start.routing().version(), "the drain of " + leaf.name() + ":" + uplink);
            double drainMs = (System.nanoTime() - drainedAt) / 1e6;
            assertThat(nodeLidsOut(lab, leafLid, uplink, nodeLids, reads))
                    .as("end-node LIDs ibroute reads out of the drained port once the daemon calls it in sync").isEmpty();

            daemon.undrain(new DrainRequest(leaf.guid(), uplink, false)).get(30, TimeUnit.SECONDS);
            Views.Status undrained = convergedAfter(daemon, drained.routing().version(), "the undrain");
            assertThat(nodeLidsOut(lab, leafLid, uplink, nodeLids, reads)).as("the uplink in use again").isNotEmpty();

            Views.Status repaired = silentPlacesDoNotKeepThePassOut(daemon, lab, fabric, socket, undrained, work);
            long rebalancedAt = System.nanoTime();
            assertThat(daemon.rebalance().get(60, TimeUnit.SECONDS).routingVersion()).isGreaterThan(repaired.routing().version());
            convergedAfter(daemon, repaired.routing().version(), "the rebalance");
            double rebalanceMs = (System.nanoTime() - rebalancedAt) / 1e6;
            OpenSmRoutingIT.assertTablesEqualOffline(lab, work.resolve("rebalanced"), null);
            System.out.printf("drain to in sync %.0f ms, rebalance to in sync %.0f ms%n", drainMs, rebalanceMs);
        } finally {
            OpenSmLab.stop(opensm);
        }
    }

    /**
     * A cable between two switches pulled at ibsim's console while silent local connections hold every place of the
     * socket that the plug-in's channel leaves: the trap's routing pass gets in by closing one of them, before the
     * socket's deadline for a first frame would have closed it, and the daemon routes the pass (repaired). A pass that
     * comes after that deadline (a slow machine) shows nothing: then another cable is pulled, {@value #PULLS} at most.
     * Returns the status once the last pull is routed.
     */
    private static Views.Status silentPlacesDoNotKeepThePassOut(FabricManagerDaemon daemon, IbsimFabric lab, Fabric fabric,
                                                                Path socket, Views.Status before, Path work) throws Exception {
        SystemSupport.await(daemon, s -> s.opensm() != null && "UP".equals(s.opensm().state()),
                "OpenSM's plug-in's channel open (it holds one place of the socket)");
        List<Link> cables = fabric.links().stream().filter(l -> fabric.switchByGuid(l.b()).isPresent()).toList();
        Views.Status routed = before;
        try (SystemSupport.LogCapture logs = new SystemSupport.LogCapture()) {
            for (int pull = 1; pull <= PULLS; pull++) {
                // cables far apart: no switch loses every uplink
                Link cable = cables.get(5 + 40 * (pull - 1));
                FabricSwitch end = fabric.switchByGuid(cable.a()).orElseThrow();
                logs.clear();
                List<SilentConnections.Closed> closes;
                long pulling;
                try (SilentConnections silent = SilentConnections.open(socket, PLACES - 1)) {
                    pulling = System.nanoTime();
                    lab.console("Unlink \"" + IbsimNet.id(end.name(), end.guid()) + "\"[" + cable.aPort() + "]");
                    routed = convergedAfter(daemon, routed.routing().version(), "the repair of pulled cable " + pull);
                    closes = silent.awaitAllClosed(Duration.ofSeconds(30));
                }
                List<String> lines = logs.messages();
                SilentConnections.Closed evicted = closes.stream().filter(c -> c.ageMs() < FIRST_FRAME_MS).findFirst()
                        .orElse(null);
                System.out.printf("pull %d: the silent connections closed %s ms after they opened%n", pull,
                        closes.stream().map(c -> "%.0f".formatted(c.ageMs())).toList());
                if (evicted == null) {
                    // the pass came once the deadline had freed the places: nothing shown, pull another cable
                    continue;
                }
                assertThat(evicted.closedNanos()).as("closed once the cable was pulled: not by another silent connection")
                        .isGreaterThan(pulling);
                int eviction = indexOf(lines, "OpenSM provider: closed a connection that had sent nothing: " + PLACES
                        + " were open", 0);
                assertThat(eviction).as("the daemon's line for the silent connection it closed, in %s", lines)
                        .isNotNegative();
                assertThat(indexOf(lines, "answered in", eviction)).as("the pass answered after it, in %s", lines)
                        .isGreaterThan(eviction);
                assertThat(lines).as("no channel of the plug-in reconnected meanwhile")
                        .noneMatch(l -> l.contains("a new channel of OpenSM's plug-in"));
                assertThat(Files.readString(work.resolve("opensm").resolve("opensm.log"), StandardCharsets.ISO_8859_1))
                        .as("OpenSM never fell back nor probed the socket").doesNotContain("OpenSM falls back")
                        .doesNotContain("the daemon listens again");
                return routed;
            }
        }
        throw new AssertionError("no routing pass of " + PULLS + " pulled cables came while the silent connections"
                + " held the socket's places (each came after their " + FIRST_FRAME_MS + " ms deadline)");
    }

    /** The index of the first of {@code lines} from {@code from} on that holds {@code text}, or -1. */
    private static int indexOf(List<String> lines, String text, int from) {
        for (int i = Math.max(0, from); i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }

    /** The status once the daemon is CONVERGED on a routing newer than {@code version}, every switch in sync. */
    private static Views.Status convergedAfter(FabricManagerDaemon daemon, long version, String what) {
        return SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.routing() != null
                && s.routing().version() > version, "CONVERGED after " + what);
    }

    /** The end-node LIDs that switch {@code lid}'s table, as ibroute reads it, sends out of {@code port}. */
    private static Set<Integer> nodeLidsOut(IbsimFabric lab, int lid, int port, Set<Integer> nodeLids, Path reads)
            throws Exception {
        Set<Integer> out = new HashSet<>();
        for (String line : lab.ibroute(lid, reads.resolve(lid + "-" + System.nanoTime() + ".txt"), TOOL_LIMIT_SECONDS)
                .split("\n")) {
            Matcher e = ENTRY.matcher(line);
            if (e.matches() && Integer.parseInt(e.group(2)) == port && nodeLids.contains(Integer.parseInt(e.group(1), 16))) {
                out.add(Integer.parseInt(e.group(1), 16));
            }
        }
        return out;
    }
}
