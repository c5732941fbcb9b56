package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

/**
 * An administrator's day-2 actions under OpenSM (docs/opensm.md, "Drains, rebalances and in sync"): the daemon routes
 * OpenSM's subnet under ibsim through the plug-in; a drain of a leaf uplink, its undrain and a rebalance after a repair
 * each reach the simulated switches through a routing pass the daemon asks for, and the daemon calls them CONVERGED
 * only once OpenSM set them: at that moment {@code ibroute} reads no end-node LID out of the drained port (and
 * {@code /api/v1/discovery} says the uplink is drained, not missing), then the port back in use, then every switch's
 * table equal to offline Dmodc of the fabric as it is. A cable's unlink (missing, not drained) is routed by the daemon.
 * The rebalance's pass gets in while silent local connections hold every place of the socket that the plug-in's
 * channel leaves: the daemon closes the oldest of them for it (its log says so) well before their first-frame deadline
 * would have, and answers the pass; OpenSM never falls back. Skipped when OpenSM, ibsim, infiniband-diags or the
 * plug-in are missing.
 */
class OpenSmDay2IT {
    private static final long TOOL_LIMIT_SECONDS = OpenSmLab.TOOL_LIMIT_SECONDS;
    private static final Pattern ENTRY = Pattern.compile("0x([0-9a-fA-F]{4}) (\\d{3})\\b.*");
    /** The places of the daemon's OpenSM socket (OpenSmSocket.MAX_CONNECTIONS, 4) less the plug-in's channel. */
    private static final int PLACES_BESIDE_THE_CHANNEL = 3;
    /** The daemon closes a connection that sent nothing for this long (OpenSmSocket.FIRST_FRAME_MS). */
    private static final long FIRST_FRAME_MS = 2_000;
    /** The daemon's and the plug-in's least time between two passes asked (PassRequests, FM_REROUTE_MIN_MS). */
    private static final long PASS_INTERVAL_MS = 1_000;

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
        DaemonConfig config = OpenSmLab.daemonConfig(work.resolve("state"), socket)
                .withExpectedPgft(fabric.pgft().orElseThrow());
        Process opensm = null;
        try (SystemSupport.LogCapture logs = new SystemSupport.LogCapture();
             FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
             IbsimFabric lab = IbsimFabric.start(tools.tools(), fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS)) {
            opensm = tools.plugin().startOpenSm(lab, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, work.resolve("opensm"));
            Views.Status start = SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == fabric.switches().size(), "the daemon converged on OpenSM's subnet");
            OpenSmLab.awaitSubnetUp(work.resolve("opensm"));
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
            daemon.api().drain(new DrainRequest(leaf.guid(), uplink, false)).get(30, TimeUnit.SECONDS);
            Views.Status drained = convergedAfter(daemon, start.routing().version(), "the drain of " + leaf.name() + ":" + uplink);
            double drainMs = (System.nanoTime() - drainedAt) / 1e6;
            assertThat(nodeLidsOut(lab, leafLid, uplink, nodeLids, reads))
                    .as("end-node LIDs ibroute reads out of the drained port once the daemon calls it in sync").isEmpty();
            JsonNode drainedCheck = discoveryCheck(daemon);
            assertThat(drainedCheck.path("verdict").asText()).as("the drained uplink is there: " + drainedCheck)
                    .isEqualTo("INTACT");
            assertThat(drainedCheck.path("summary").asText()).endsWith(": 1 link drained");
            assertThat(drainedCheck.path("drainedLinkCount").asInt()).isEqualTo(1);

            daemon.api().undrain(new DrainRequest(leaf.guid(), uplink, false)).get(30, TimeUnit.SECONDS);
            Views.Status undrained = convergedAfter(daemon, drained.routing().version(), "the undrain");
            assertThat(nodeLidsOut(lab, leafLid, uplink, nodeLids, reads)).as("the uplink in use again").isNotEmpty();

            // a cable between two switches pulled at ibsim's console: OpenSM's sweep finds it and the daemon routes it
            Link cable = fabric.links().stream().filter(l -> fabric.switchByGuid(l.b()).isPresent()).skip(5).findFirst()
                    .orElseThrow();
            FabricSwitch end = fabric.switchByGuid(cable.a()).orElseThrow();
            lab.console("Unlink \"" + IbsimNet.id(end.name(), end.guid()) + "\"[" + cable.aPort() + "]");
            convergedAfter(daemon, undrained.routing().version(), "the repair of the unlinked cable");
            assertThat(discoveryCheck(daemon).path("summary").asText()).as("an unlinked cable is missing")
                    .startsWith("DEGRADED ").endsWith(": 1 missing link");

            // a rebalance routes in full, its pass asked of the plug-in while silent local connections hold every
            // place of the socket the plug-in's channel leaves: the pass takes the place of the oldest of them
            Views.Status quiet = awaitQuiet(daemon, logs);
            int firstEvent = logs.events().size();
            long rebalancedAt = System.nanoTime();
            Evicted evicted;
            double rebalanceMs;
            try (SilentConnections silent = new SilentConnections(socket, PLACES_BESIDE_THE_CHANNEL)) {
                assertThat(daemon.api().rebalance().get(60, TimeUnit.SECONDS).routingVersion())
                        .isGreaterThan(quiet.routing().version());
                convergedAfter(daemon, quiet.routing().version(), "the rebalance");
                rebalanceMs = (System.nanoTime() - rebalancedAt) / 1e6;
                evicted = silent.awaitAllClosed();
            }
            List<String> after = logs.events().subList(firstEvent, logs.events().size()).stream()
                    .map(ILoggingEvent::getFormattedMessage).toList();
            int eviction = indexOf(after, "closed a connection that had sent nothing");
            int answered = indexOf(after, "OpenSM subnet ");
            System.out.printf("silent connections closed by the daemon after %s ms (evicted: %s)%n",
                    evicted.agesMs(), evicted.early());
            assertThat(evicted.early()).as("silent connections the daemon closed before the %d ms first-frame"
                    + " deadline, ages %s ms", FIRST_FRAME_MS, evicted.agesMs()).isPositive();
            assertThat(eviction).as("the eviction's log line after the rebalance, in %s", after).isNotNegative();
            assertThat(answered).as("the rebalance's pass answered after the eviction, in %s", after)
                    .isGreaterThan(eviction);
            assertThat(Files.readString(work.resolve("opensm").resolve("opensm.log"), StandardCharsets.ISO_8859_1))
                    .as("OpenSM never fell back").doesNotContain("OpenSM falls back");
            OpenSmRoutingIT.assertTablesEqualOffline(lab, work.resolve("rebalanced"), null);
            System.out.printf("drain to in sync %.0f ms, rebalance to in sync %.0f ms%n", drainMs, rebalanceMs);
        } finally {
            OpenSmLab.stop(opensm);
        }
    }

    /**
     * The status once the daemon is CONVERGED, every switch in sync, no refinement due, and its last pass answered at
     * least {@value #PASS_INTERVAL_MS} ms ago: a pass asked now is asked at once (the daemon asks at most one a second
     * after the last, and the plug-in re-routes at most once a second).
     */
    private static Views.Status awaitQuiet(FabricManagerDaemon daemon, SystemSupport.LogCapture logs) {
        return SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.routing() != null
                && !s.routing().refinePending() && s.tables().inSync() == s.switches().connected()
                && System.currentTimeMillis() - lastAnswerMs(logs) >= PASS_INTERVAL_MS, "the daemon quiet");
    }

    /** When the daemon last logged a pass of OpenSM answered (ms since the epoch), or 0. */
    private static long lastAnswerMs(SystemSupport.LogCapture logs) {
        List<ILoggingEvent> events = logs.events();
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i).getFormattedMessage().startsWith("OpenSM subnet ")) {
                return events.get(i).getTimeStamp();
            }
        }
        return 0;
    }

    /** The index of the first of {@code lines} that holds {@code text}, or -1. */
    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }

    /** How long each silent connection lived until the daemon closed it, and how many it closed before the deadline. */
    private record Evicted(List<Long> agesMs, int early) {
    }

    /**
     * Local connections to the plug-in's socket that never send a byte, each watched by a thread that notes when the
     * daemon closes it. A close before {@link #FIRST_FRAME_MS} of age can only be an eviction: the first-frame
     * deadline starts once the daemon admitted the connection, after it opened here.
     */
    private static final class SilentConnections implements AutoCloseable {
        private final List<SocketChannel> open = new ArrayList<>();
        private final List<Long> closedAfterMs = new CopyOnWriteArrayList<>();
        private final ExecutorService watchers = Executors.newCachedThreadPool();

        SilentConnections(Path socket, int count) throws IOException {
            for (int i = 0; i < count; i++) {
                SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                long opened = System.nanoTime();
                open.add(ch);
                watchers.execute(() -> {
                    try {
                        while (ch.read(ByteBuffer.allocate(1)) >= 0) {
                            // the daemon sends a silent connection nothing: read on to its end
                        }
                    } catch (AsynchronousCloseException e) {
                        return; // closed here
                    } catch (IOException e) {
                        // reset by the daemon: closed there all the same
                    }
                    closedAfterMs.add((System.nanoTime() - opened) / 1_000_000);
                });
            }
        }

        /** Once the daemon closed every one (evicted, or at its first-frame deadline). */
        Evicted awaitAllClosed() {
            Await.until("the daemon closed the " + open.size() + " silent connections", Duration.ofSeconds(30),
                    () -> closedAfterMs.size() == open.size());
            List<Long> ages = closedAfterMs.stream().sorted().toList();
            return new Evicted(ages, (int) ages.stream().filter(ms -> ms < FIRST_FRAME_MS).count());
        }

        @Override
        public void close() throws IOException {
            for (SocketChannel ch : open) {
                ch.close();
            }
            watchers.shutdownNow();
        }
    }

    /** The status once the daemon is CONVERGED on a routing newer than {@code version}, every switch in sync. */
    private static Views.Status convergedAfter(FabricManagerDaemon daemon, long version, String what) {
        return SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.routing() != null
                && s.routing().version() > version, "CONVERGED after " + what);
    }

    /** The check against the expected PGFT, as {@code GET /api/v1/discovery} gives it. */
    private static JsonNode discoveryCheck(FabricManagerDaemon daemon) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(daemon.restUrl()
                + "/api/v1/discovery")).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body()).path("check");
    }

    /** The end-node LIDs that switch {@code lid}'s table, as ibroute reads it, sends out of {@code port}. */
    static Set<Integer> nodeLidsOut(IbsimFabric lab, int lid, int port, Set<Integer> nodeLids, Path reads)
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
