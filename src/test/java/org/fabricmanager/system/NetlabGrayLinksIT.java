package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.agent.linux.DestinationAddresses;
import org.fabricmanager.agent.linux.Iproute2;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gray links on real packets (docs/operations.md, "Gray links"): in a netlab with {@code --link-health isolate}, the
 * spine's end of a leaf's uplink gets an MTU below the frames a stream of UDP packets sends across it, so the kernel
 * drops them there and counts them (the leaf port's {@code tx dropped}, the spine port's {@code rx dropped}) while
 * the cable stays up. The daemon reads the drops from the Linux switches' counters and isolates the cable: the
 * stream's route leaves it, the packets arrive again and the drops stop. With the MTU back, the cable is given back
 * after its probation and the route crosses it again. Skipped without root, iproute2 or network namespaces.
 */
class NetlabGrayLinksIT {
    private static final String PREFIX = "fmgl";
    private static final String SPEC = "PGFT(2;4,4;1,4;1,1)";
    /** UDP payload: with its headers above {@link #LOW_MTU}, below the nodes' 1,500. */
    private static final int PAYLOAD = 1_200;
    private static final int LOW_MTU = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private NetlabDaemon daemon;

    @Test
    void aCableDroppingLongFramesIsIsolatedAndGivenBackOnceItCarriesThemAgain(@TempDir Path dir) throws Exception {
        NetlabIT.assumeNamespaces();
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        Process lab = new ProcessBuilder(FabricProcesses.java(), "-Xmx1g", "-jar", System.getProperty("fm.jar"), "netlab",
                "up", "--pgft", SPEC, "--prefix", PREFIX, "--http-port", "0", "--no-detector", "--link-health",
                "isolate").redirectErrorStream(true).redirectOutput(dir.resolve("netlab.out").toFile()).start();
        Process stream = null;
        try {
            Path out = dir.resolve("netlab.out");
            Await.until("netlab ready (see " + out + ")", Duration.ofSeconds(300),
                    () -> read(out).contains("ready;") || !lab.isAlive());
            assertThat(lab.isAlive()).as("netlab up is running: %s", read(out)).isTrue();
            daemon = new NetlabDaemon(read(out).lines().filter(l -> l.startsWith("REST: ")).findFirst().orElseThrow()
                    .substring("REST: ".length()).replace("/api/v1/status", ""));
            Map<Integer, String> nodes = new HashMap<>();
            for (String line : Files.readAllLines(Path.of("/run/fabric-manager/netlab-" + PREFIX, "namespaces.txt"))) {
                String[] f = line.split(" ");
                if (f[1].equals("node")) {
                    nodes.put(Integer.parseInt(f[4]), f[0]);
                }
            }
            long v0 = daemon.converged(0);
            // node 0's first hop towards the last node: its leaf's uplink, and the spine's end of that cable
            int src = 0;
            int dst = nodes.size() - 1;
            JsonNode first = daemon.route(src, dst).path("hops").get(0);
            long leaf = Guids.parse(first.path("guid").asText());
            int leafPort = first.path("outPort").asInt();
            Link uplink = fabric.links().stream().filter(l -> l.touches(leaf, leafPort)).findFirst().orElseThrow();
            long spine = uplink.a() == leaf ? uplink.b() : uplink.a();
            int spinePort = uplink.a() == leaf ? uplink.bPort() : uplink.aPort();
            assertThat(fabric.isSwitch(spine)).as("the first hop leaves the leaf upwards").isTrue();
            String leafNs = ns(leaf);
            String spineNs = ns(spine);

            stream = startStream(nodes.get(src), dst);
            long before = dropped(leafNs, "p" + leafPort, "tx");
            ip(spineNs, "link", "set", "p" + spinePort, "mtu", String.valueOf(LOW_MTU));
            long erring = System.nanoTime();
            SystemSupport.awaitTrue(() -> dropped(leafNs, "p" + leafPort, "tx") > before
                    && dropped(spineNs, "p" + spinePort, "rx") > 0, "the kernel counts the long frames dropped", 30);
            JsonNode isolated = Await.value("the uplink isolated", Duration.ofSeconds(60),
                    () -> daemon.get("/api/v1/drains/isolated"), j -> j.isArray() && j.size() > 0);
            long isolatedAt = System.nanoTime();
            long v1 = daemon.converged(v0);
            long convergedAt = System.nanoTime();
            assertThat(isolated).hasSize(1);
            assertThat(uplink.touches(Guids.parse(isolated.get(0).path("guid").asText()),
                    isolated.get(0).path("port").asInt())).as("isolated: %s", isolated).isTrue();
            JsonNode around = daemon.route(src, dst).path("hops").get(0);
            assertThat(around.path("outPort").asInt()).as("node %d's route to %d leaves the isolated uplink", src, dst)
                    .isNotEqualTo(leafPort);
            System.out.printf("netlab: drops' start to isolated %d ms, to converged %d ms%n",
                    (isolatedAt - erring) / 1_000_000, (convergedAt - erring) / 1_000_000);
            // the stream's frames take the other uplink: the destination receives, the gray cable drops no more
            long dropsAround = dropped(leafNs, "p" + leafPort, "tx");
            long received = received(nodes.get(dst));
            SystemSupport.awaitTrue(() -> received(nodes.get(dst)) >= received + 2_000,
                    "the stream arrives around the isolated uplink", 30);
            assertThat(dropped(leafNs, "p" + leafPort, "tx")).as("drops once routed around").isEqualTo(dropsAround);

            ip(spineNs, "link", "set", "p" + spinePort, "mtu", "1500");
            Await.value("the uplink given back", Duration.ofSeconds(60), () -> daemon.get("/api/v1/drains/isolated"),
                    j -> j.isArray() && j.isEmpty());
            daemon.converged(v1);
            assertThat(daemon.route(src, dst).path("hops").get(0).path("outPort").asInt())
                    .as("node %d's route to %d across the uplink again", src, dst).isEqualTo(leafPort);
            assertThat(events("LINK_REINSTATED")).as("given back once").isEqualTo(1);
            assertThat(events("LINK_ISOLATED")).as("isolated once").isEqualTo(1);
        } finally {
            if (stream != null) {
                stream.destroy();
            }
            NetlabDaemon.netlab("down", "--prefix", PREFIX);
            lab.waitFor();
        }
    }

    /** UDP packets of {@link #PAYLOAD} bytes from namespace {@code node} to node {@code dst}, until destroyed. */
    private static Process startStream(String node, int dst) throws IOException {
        String script = "p=$(printf '%" + PAYLOAD + "s'); while :; do for ((k = 0; k < 200; k++)); do echo -n \"$p\""
                + " > /dev/udp/" + DestinationAddresses.ipv4(dst) + "/9; done; sleep 0.01; done";
        return new Iproute2("").start("ip", "netns", "exec", node, "bash", "-c", script);
    }

    private int events(String kind) throws Exception {
        int n = 0;
        for (JsonNode e : daemon.get("/api/v1/events?since=0")) {
            n += e.path("kind").asText().equals(kind) ? 1 : 0;
        }
        return n;
    }

    /** The kernel's dropped count of interface {@code dev} in {@code ns}, {@code rx} or {@code tx}. */
    private static long dropped(String ns, String dev, String direction) throws IOException {
        return stats(ns, dev).path(direction).path("dropped").asLong();
    }

    /** Packets received on node namespace {@code node}'s eth0. */
    private static long received(String node) throws IOException {
        return stats(node, "eth0").path("rx").path("packets").asLong();
    }

    private static JsonNode stats(String ns, String dev) throws IOException {
        Iproute2.Result r = new Iproute2(ns).run("ip", "-s", "-j", "link", "show", dev);
        assertThat(r.ok()).as("ip -s link show %s in %s: %s", dev, ns, r.output()).isTrue();
        return JSON.readTree(r.output()).get(0).path("stats64");
    }

    private static void ip(String ns, String... args) throws IOException {
        Iproute2.Result r = new Iproute2(ns).run("ip", args);
        assertThat(r.ok()).as("ip %s in %s: %s", String.join(" ", args), ns, r.output()).isTrue();
    }

    private static String ns(long guid) {
        return PREFIX + "-s" + Long.toHexString(guid);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
