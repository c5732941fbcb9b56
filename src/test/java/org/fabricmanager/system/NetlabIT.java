package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.linux.Iproute2;
import org.fabricmanager.testing.Await;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real packets through the daemon's tables: {@code netlab up} builds PGFT(3;4,4,4;1,4,4;1,1,1) (48 switches, 64
 * nodes) out of network namespaces with Linux agents programming the bridges. After convergence every ordered pair
 * of nodes exchanges UDP packets, and for a sample of pairs the switch ports the packets leave by (their packet
 * counters) are exactly the hops of the daemon's route. The same after a cable between levels is cut (re-routed),
 * after it comes back (the intact routes again), after a top switch is killed and after another dies silently (only
 * the ring failure detector can see it: the lab's δ is 2 s). A cable drained with the lab's admin token while a pair
 * streams across it loses none of the stream, and carries no packet once drained. The daemon is CONVERGED, and the
 * kill's reaction recorded, while the killed switch's lost session is judged, though its agent refused tables. A
 * commit the kernel refuses (the bridge removed under its agent) is not acknowledged and the daemon shows the switch
 * out of sync with the error. The daemon serves a switch's port counters as its kernel counts them.
 * {@code netlab down} stops the running lab, which removes every namespace. Needs root and iproute2; skips otherwise.
 */
class NetlabIT {
    private static final String PREFIX = "fmit";
    private static final String SPEC = "PGFT(3;4,4,4;1,4,4;1,1,1)";
    private static final int SWITCHES = 48;
    private static final int NODES = 64;
    /** Probes per pair in a path check: far above any stray packet, so the path's ports stand out. */
    private static final int PATH_PROBES = 30;
    private static final long SEED = 37;
    /** Packets that arrive of the stream a drain is made under before the drain, and again after its push. */
    private static final int STREAM_MARK = 2_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final long startNanos = System.nanoTime();
    private NetlabDaemon daemon;

    @Test
    void packetsFollowTheDaemonsTablesThroughCutsAndDeaths(@TempDir Path dir) throws Exception {
        assumeNamespaces();
        Process lab = new ProcessBuilder(FabricProcesses.java(), "-Xmx1g", "-jar", System.getProperty("fm.jar"), "netlab",
                "up", "--pgft", SPEC, "--prefix", PREFIX, "--http-port", "0").redirectErrorStream(true)
                .redirectOutput(dir.resolve("netlab.out").toFile()).start();
        try {
            Path out = dir.resolve("netlab.out");
            Await.until("netlab ready (see " + out + ")", Duration.ofSeconds(300),
                    () -> read(out).contains("ready;") || !lab.isAlive());
            assertThat(lab.isAlive()).as("netlab up is running: %s", read(out)).isTrue();
            daemon = new NetlabDaemon(read(out).lines().filter(l -> l.startsWith("REST: ")).findFirst().orElseThrow()
                    .substring("REST: ".length()).replace("/api/v1/status", ""));
            String token = read(out).lines().filter(l -> l.startsWith("admin token: ")).findFirst().orElseThrow()
                    .substring("admin token: ".length()).split(" ")[0];
            Map<Integer, String> nodes = new HashMap<>();
            List<String> switches = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of("/run/fabric-manager/netlab-" + PREFIX, "namespaces.txt"))) {
                String[] f = line.split(" ");
                if (f[1].equals("switch")) {
                    switches.add(f[0]);
                } else if (f[1].equals("node")) {
                    nodes.put(Integer.parseInt(f[4]), f[0]);
                }
            }
            phase("netlab ready");
            assertThat(switches).hasSize(SWITCHES);
            assertThat(nodes).hasSize(NODES);
            try (NetlabProbes probes = new NetlabProbes(PREFIX, nodes, switches)) {
                List<int[]> sample = samplePairs();
                long v0 = daemon.converged(0);
                assertEveryPairReachable(probes, "intact");
                Map<String, Set<String>> intact = assertPathsAreTheRoutes(probes, sample, "intact");
                phase("intact checked");

                // a cable between the leaves and the second level, on the path of the first sampled pair
                JsonNode firstHop = daemon.route(sample.get(0)[0], sample.get(0)[1]).path("hops").get(0);
                String leaf = ns(firstHop.path("guid").asText());
                String port = "p" + firstHop.path("outPort").asInt();
                ip(leaf, "link", "set", port, "down");
                long v1 = daemon.converged(v0);
                assertThat(hops(daemon.route(sample.get(0)[0], sample.get(0)[1]))).doesNotContain(leaf + " " + port);
                assertEveryPairReachable(probes, "cable " + leaf + " " + port + " cut");
                assertPathsAreTheRoutes(probes, sample, "cable " + leaf + " " + port + " cut");
                phase("cut checked");

                ip(leaf, "link", "set", port, "up");
                long v2 = daemon.converged(v1);
                Map<String, Set<String>> restored = assertPathsAreTheRoutes(probes, sample, "cable back");
                assertThat(restored).as("the intact routes once the cable is back").isEqualTo(intact);
                phase("cable back checked");

                long v3 = assertDrainLosesNothing(probes, sample, token, v2);
                phase("drain checked");

                // a top switch dies: its bridge goes first (renamed, so that its agent refuses every table until its
                // session ends, and its ports keep their carrier), then its links and bridge are deleted
                String top = switches.stream().filter(s -> s.startsWith(PREFIX + "-s10000003")).findFirst().orElseThrow();
                long killSeq = daemon.lastSeq();
                ip(top, "link", "set", "br0", "down");
                ip(top, "link", "set", "br0", "name", "gone0");
                FabricProcesses.cli(null, "", 60, "netlab", "kill-switch", "--prefix", PREFIX, "--guid",
                        "0x" + top.substring(PREFIX.length() + 2)).succeeded();
                assertConvergedWhileItsLossIsJudged(killSeq, top);
                v3 = daemon.converged(v3);
                probes.switchesWithout(top);
                assertEveryPairReachable(probes, top + " killed");
                assertPathsAreTheRoutes(probes, sample, top + " killed");
                phase("kill checked");

                // another top switch dies silently: its bridge stops forwarding, its agent and ring member freeze, its
                // links stay up, so only the ring can see it
                String silent = switches.stream().filter(s -> s.startsWith(PREFIX + "-s10000003") && !s.equals(top))
                        .findFirst().orElseThrow();
                String silentGuid = "0x" + silent.substring(PREFIX.length() + 2);
                FabricProcesses.cli(null, "", 60, "netlab", "kill-switch", "--prefix", PREFIX, "--guid", silentGuid, "--silent")
                        .succeeded();
                Await.value("the ring declares " + silent + " dead", Duration.ofSeconds(60),
                        () -> daemon.get("/api/v1/switches/" + silentGuid), d -> !d.path("connected").asBoolean(true));
                daemon.converged(v3);
                for (int[] pair : sample) {
                    assertThat(hops(daemon.route(pair[0], pair[1]))).as("route %d -> %d", pair[0], pair[1])
                            .noneMatch(h -> h.startsWith(silent + " "));
                }
                probes.switchesWithout(silent);
                assertPathsAreTheRoutes(probes, sample, silent + " silent");
                phase("silent death checked");

                // a commit the kernel refuses: the bridge of a leaf is removed, then a cable of that leaf is cut
                String broken = switches.stream().filter(s -> s.startsWith(PREFIX + "-s10000001") && !s.equals(leaf))
                        .findFirst().orElseThrow();
                ip(broken, "link", "del", "br0");
                ip(broken, "link", "set", "p5", "down");
                String guid = "0x" + broken.substring(PREFIX.length() + 2);
                JsonNode detail = Await.value("the daemon shows " + broken + " refusing its table", Duration.ofSeconds(60),
                        () -> daemon.get("/api/v1/switches/" + guid), d -> !d.path("inSync").asBoolean(true)
                                && d.path("lastPushError").asText("").contains("APPLY_FAILED"));
                assertThat(detail.path("lastPushError").asText()).contains("br0");
                JsonNode status = daemon.get("/api/v1/status");
                assertThat(status.path("tables").path("inSync").asInt()).isLessThan(SWITCHES - 1);
                phase("refused commit checked");

                // last, when the daemon has polled every switch several times since the intact probes went through
                assertCountersAreTheKernels(firstHop.path("guid").asText(), firstHop.path("outPort").asInt());
            }

            String again = NetlabDaemon.netlab("up", "--pgft", SPEC, "--prefix", PREFIX, "--http-port", "0");
            assertThat(again).as("a second netlab up of a running lab").contains("the lab " + PREFIX + " is running (pid "
                    + lab.pid() + ")");
            assertThat(lab.isAlive()).isTrue();
            // netlab down stops the running lab (which removes its namespaces on SIGTERM), then whatever is left
            String down = NetlabDaemon.netlab("down", "--prefix", PREFIX);
            assertThat(down).contains("netlab " + PREFIX + ": stopped its netlab up (pid " + lab.pid() + ")");
            assertThat(lab.waitFor(10, TimeUnit.SECONDS)).as("netlab up ended by netlab down").isTrue();
            assertThat(lab.exitValue()).as("by SIGTERM, through its shutdown").isEqualTo(128 + 15);
            assertThat(namespaces()).as("namespaces left after netlab down").isEmpty();
            assertThat(Path.of("/run/fabric-manager/netlab-" + PREFIX)).doesNotExist();
            phase("netlab down checked");
        } finally {
            if (lab.isAlive()) {
                lab.destroy();
                if (!lab.waitFor(60, TimeUnit.SECONDS)) {
                    lab.destroyForcibly();
                }
            }
            NetlabDaemon.netlab("down", "--prefix", PREFIX);
            phase("netlab stopped and removed");
        }
    }

    /**
     * A cable on the path of the first sampled pair, drained with the lab's admin token while the pair streams
     * packets across it, from before the drain until after its tables are installed: every packet arrives (the tables
     * change while the cable is still up), and once drained the cable carries none of any pair's probes, both ways.
     *
     * @return the version of the tables that route around the cable
     */
    private long assertDrainLosesNothing(NetlabProbes probes, List<int[]> sample, String token, long after)
            throws Exception {
        int[] pair = sample.get(0);
        JsonNode hop = daemon.route(pair[0], pair[1]).path("hops").get(1); // from the second level up to a top switch
        String guid = hop.path("guid").asText();
        int port = hop.path("outPort").asInt();
        JsonNode peer = null;
        for (JsonNode p : daemon.get("/api/v1/switches/" + guid).path("portList")) {
            peer = p.path("port").asInt() == port ? p : peer;
        }
        Set<String> cable = Set.of(ns(guid) + " p" + port, ns(peer.path("peerGuid").asText()) + " p"
                + peer.path("peerPort").asInt());
        long received = probes.nodeReceived().get(pair[1]);
        NetlabProbes.Stream stream = probes.stream(pair[0], pair[1]);
        Await.until("the stream flowing", () -> received(probes, pair[1]) > received + STREAM_MARK);
        String drain = NetlabDaemon.cli("drain", "--url", daemon.url(), "--token-file", token, "--link", guid + ":" + port);
        assertThat(drain).as("drain with the lab's token").startsWith("drained link ");
        long v = daemon.converged(after);
        long installed = probes.nodeReceived().get(pair[1]);
        Await.until("the stream flowing on the tables without the cable",
                () -> received(probes, pair[1]) > installed + STREAM_MARK);
        long sent = stream.stop();
        long arrived = probes.nodeReceived().get(pair[1]) - received;
        System.out.printf("NetlabIT: %d -> %d streamed %d packets across the drain of %s, %d arrived%n", pair[0],
                pair[1], sent, cable, arrived);
        assertThat(arrived).as("packets of %d -> %d that arrived, of %d sent", pair[0], pair[1], sent)
                .isGreaterThanOrEqualTo(sent);

        Map<String, Long> before = probes.switchSent();
        assertEveryPairReachable(probes, "cable " + cable + " drained");
        assertPathsAreTheRoutes(probes, sample, "cable " + cable + " drained");
        Map<String, Long> then = probes.switchSent();
        for (String end : cable) {
            assertThat(then.get(end) - before.get(end)).as("packets sent by %s, drained", end).isZero();
        }
        assertThat(NetlabDaemon.cli("undrain", "--url", daemon.url(), "--token-file", token, "--link", guid + ":" + port))
                .startsWith("undrained link ");
        return daemon.converged(v);
    }

    /**
     * The killed switch's session ends once its agent sees its links gone, and its loss is judged two keepalive
     * periods later: meanwhile the daemon is CONVERGED on the tables that route around it (no route depends on that
     * judgement), and the fault reaction to its cables ended before it, though its agent refused tables while it could.
     */
    private void assertConvergedWhileItsLossIsJudged(long since, String top) throws Exception {
        String guid = String.format("0x%016x", Long.parseUnsignedLong(top.substring(PREFIX.length() + 2), 16));
        Await.value("CONVERGED without " + top + "'s session", Duration.ofSeconds(60), () -> daemon.get("/api/v1/status"),
                s -> s.path("switches").path("connected").asInt() == SWITCHES - 1
                        && s.path("state").asText().equals("CONVERGED"));
        assertThat(daemon.lostAt(since, guid)).as("the loss of %s judged already: CONVERGED only after it", top).isNegative();
        long lost = Await.value("the loss of " + top + " judged", Duration.ofSeconds(60), () -> daemon.lostAt(since, guid),
                seq -> seq > 0);
        List<String> before = new ArrayList<>();
        for (JsonNode e : daemon.get("/api/v1/events?since=" + since)) {
            if (!e.path("kind").asText().equals("REACTION")) {
                continue;
            }
            if (e.path("seq").asLong() < lost) {
                before.add(e.path("details").path("faultToConvergedMs").asText() + " ms");
            } else {
                assertThat(e.path("details").path("triggers").toString()).as("a reaction after the loss was judged: %s",
                        e.path("message").asText()).doesNotContain("port-status");
            }
        }
        System.out.printf("NetlabIT: %s killed: reactions before its loss was judged: %s%n", top, before);
        assertThat(before).as("the reaction to the cables of %s, before its loss was judged", top).isNotEmpty();
    }

    private static long received(NetlabProbes probes, int node) {
        try {
            return probes.nodeReceived().get(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every ordered pair, four sources at a time with 1, 2, 4 and 8 packets: each node's count names its senders. */
    private void assertEveryPairReachable(NetlabProbes probes, String when) throws Exception {
        List<String> missing = new ArrayList<>();
        for (int first = 0; first < NODES; first += 4) {
            Map<Integer, Long> before = probes.nodeReceived();
            List<Thread> senders = new ArrayList<>();
            List<Exception> failures = new ArrayList<>();
            for (int j = 0; j < 4 && first + j < NODES; j++) {
                int src = first + j;
                int weight = 1 << j;
                List<Integer> dsts = new ArrayList<>();
                for (int d = 0; d < NODES; d++) {
                    if (d != src) {
                        dsts.add(d);
                    }
                }
                Thread t = new Thread(() -> {
                    try {
                        probes.send(src, dsts, weight);
                    } catch (IOException e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                t.start();
                senders.add(t);
            }
            for (Thread t : senders) {
                t.join();
            }
            assertThat(failures).isEmpty();
            Map<Integer, Long> after = probes.nodeReceived();
            for (int d = 0; d < NODES; d++) {
                long got = after.get(d) - before.get(d);
                for (int j = 0; j < 4 && first + j < NODES; j++) {
                    if (first + j != d && (got & (1L << j)) == 0) {
                        missing.add((first + j) + "->" + d);
                    }
                }
            }
        }
        // a pair the weighted rounds missed (a stray packet scrambles a node's sum) is sent to on its own
        List<String> unreached = new ArrayList<>();
        for (String pair : missing) {
            int src = Integer.parseInt(pair.substring(0, pair.indexOf('-')));
            int dst = Integer.parseInt(pair.substring(pair.indexOf('>') + 1));
            long before = probes.nodeReceived().get(dst);
            probes.send(src, List.of(dst), 3);
            if (probes.nodeReceived().get(dst) - before < 3) {
                unreached.add(pair);
            }
        }
        assertThat(unreached).as("pairs without delivery (%s; %d missed by the weighted rounds)", when, missing.size())
                .isEmpty();
    }

    /**
     * For each sampled pair, the switch ports that sent the pair's probes are the hops of the daemon's route.
     *
     * @return the ports by pair
     */
    private Map<String, Set<String>> assertPathsAreTheRoutes(NetlabProbes probes, List<int[]> sample, String when)
            throws Exception {
        Map<String, Set<String>> paths = new HashMap<>();
        for (int[] pair : sample) {
            Set<String> expected = hops(daemon.route(pair[0], pair[1]));
            Map<String, Long> before = probes.switchSent();
            probes.send(pair[0], List.of(pair[1]), PATH_PROBES);
            Map<String, Long> after = probes.switchSent();
            Set<String> seen = new TreeSet<>();
            for (Map.Entry<String, Long> e : after.entrySet()) {
                if (e.getValue() - before.getOrDefault(e.getKey(), 0L) >= PATH_PROBES) {
                    seen.add(e.getKey());
                }
            }
            assertThat(seen).as("ports that carried %d -> %d (%s, seed %d)", pair[0], pair[1], when, SEED)
                    .isEqualTo(expected);
            paths.put(pair[0] + "->" + pair[1], seen);
        }
        return paths;
    }

    /** Eight pairs from a fixed seed: a spread of same-leaf, same-pod and cross-pod pairs. */
    private static List<int[]> samplePairs() {
        Random r = new Random(SEED);
        List<int[]> pairs = new ArrayList<>();
        pairs.add(new int[]{0, NODES - 1});
        while (pairs.size() < 8) {
            int a = r.nextInt(NODES);
            int b = r.nextInt(NODES);
            if (a != b) {
                pairs.add(new int[]{a, b});
            }
        }
        return pairs;
    }

    /** Prints how long the test has run at each phase's end (to its output file): where its time goes. */
    private void phase(String what) {
        System.out.printf("NetlabIT: %s at %.1f s%n", what, (System.nanoTime() - startNanos) / 1e9);
    }

    /** The route's hops as "SWITCH-NAMESPACE pN". */
    private static Set<String> hops(JsonNode route) {
        Set<String> out = new TreeSet<>();
        for (JsonNode h : route.path("hops")) {
            out.add(ns(h.path("guid").asText()) + " p" + h.path("outPort").asInt());
        }
        return out;
    }

    private static String ns(String guid) {
        return PREFIX + "-s" + Long.toHexString(Long.parseUnsignedLong(guid.substring(2), 16));
    }

    /**
     * The daemon serves a Linux switch's port counters as its kernel counts them: the port the probes of the first
     * sampled pair left by has sent packets, and what the daemon shows is never ahead of the kernel's count now.
     */
    private void assertCountersAreTheKernels(String guid, int port) throws Exception {
        JsonNode view = Await.value("port counters of " + guid, Duration.ofSeconds(30),
                () -> daemon.get("/api/v1/switches/" + guid + "/ports"),
                v -> v.path("ports").size() >= port && v.path("ports").get(port - 1).path("txPackets").asLong() > 0);
        assertThat(view.path("reporting").asBoolean()).isTrue();
        JsonNode reported = view.path("ports").get(port - 1);
        JsonNode kernel = JSON.readTree(new Iproute2(ns(guid)).run("ip", "-s", "-j", "link", "show", "p" + port).output())
                .get(0).path("stats64");
        assertThat(reported.path("txPackets").asLong()).as("%s p%d", guid, port).isPositive()
                .isLessThanOrEqualTo(kernel.path("tx").path("packets").asLong());
        assertThat(reported.path("rxBytes").asLong()).isLessThanOrEqualTo(kernel.path("rx").path("bytes").asLong());
    }

    private static void ip(String ns, String... args) throws IOException {
        Iproute2.Result r = new Iproute2(ns).run("ip", args);
        assertThat(r.ok()).as("ip %s in %s: %s", String.join(" ", args), ns, r.output()).isTrue();
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static List<String> namespaces() throws IOException {
        List<String> ours = new ArrayList<>();
        for (String line : new Iproute2("").run("ip", "netns", "list").output().split("\n")) {
            if (line.startsWith(PREFIX + "-")) {
                ours.add(line.split(" ")[0]);
            }
        }
        return ours;
    }

    /** Root, iproute2 and the right to make a namespace with a bridge; else the test is skipped with the reason. */
    static void assumeNamespaces() throws IOException {
        RealParts.require(System.getProperty("os.name", "").startsWith("Linux"), "netlab needs Linux");
        boolean root = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
        RealParts.require(root, "netlab needs root (network namespaces, veth pairs, bridges)");
        String probe = PREFIX + "-probe";
        try {
            Iproute2.Result made = new Iproute2("").run("ip", "netns", "add", probe);
            RealParts.require(made.ok(), "cannot make a network namespace: " + made.firstLine());
            Iproute2.Result bridge = new Iproute2(probe).run("ip", "link", "add", "br0", "type", "bridge");
            RealParts.require(bridge.ok(), "cannot make a bridge in a namespace: " + bridge.firstLine());
        } catch (IOException e) {
            RealParts.missing("iproute2 is missing (apt-get install iproute2): " + e.getMessage());
        } finally {
            try {
                new Iproute2("").run("ip", "netns", "del", probe);
            } catch (IOException e) {
                // no iproute2: nothing was made
            }
        }
    }
}
