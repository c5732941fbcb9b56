package org.fabricmanager.system;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.agent.linux.DestinationAddresses;
import org.fabricmanager.agent.linux.Iproute2;
import org.fabricmanager.testing.Await;

/**
 * Real packets through a netlab, for {@link NetlabIT}: UDP probes sent from end node namespaces (bash's
 * {@code /dev/udp}, so nothing but bash and iproute2 is needed), and the packet counters of the nodes' and switches'
 * interfaces read from {@code /proc/PID/net/dev} of a process in each namespace.
 */
final class NetlabProbes implements AutoCloseable {
    private final String prefix;
    /** Node namespace by destination index. */
    private final Map<Integer, String> nodes;
    private final List<String> switches;
    /** A sleeping process in each namespace, whose {@code /proc/PID/net/dev} gives the namespace's counters. */
    private final Map<String, Process> holders = new HashMap<>();

    NetlabProbes(String prefix, Map<Integer, String> nodes, List<String> switches) {
        this.prefix = prefix;
        this.nodes = nodes;
        this.switches = new ArrayList<>(switches);
    }

    /** Stops reading the counters of switch namespace {@code ns} (a killed switch's namespace is gone). */
    void switchesWithout(String ns) {
        switches.remove(ns);
        Process holder = holders.remove(ns);
        if (holder != null) {
            holder.destroy();
        }
    }

    /** Sends {@code count} UDP packets from node {@code src} to each of {@code dsts} (destination indices). */
    void send(int src, List<Integer> dsts, int count) throws IOException {
        StringBuilder targets = new StringBuilder();
        for (int d : dsts) {
            targets.append(' ').append(DestinationAddresses.ipv4(d));
        }
        // bash builtins only: a process per packet (seq, a subshell) made a check of every pair take minutes
        String script = "for d in" + targets + "; do for ((k = 0; k < " + count + "; k++)); do echo -n probe > /dev/udp/$d/9;"
                + " done; done";
        Iproute2.Result r = new Iproute2("").run("ip", "netns", "exec", nodes.get(src), "bash", "-c", script);
        if (!r.ok()) {
            throw new IOException("probes from node " + src + " failed: " + r.firstLine());
        }
    }

    /**
     * Starts a stream of UDP packets from node {@code src} to node {@code dst}: runs of 500 as fast as bash sends them,
     * 10 ms apart, until {@link Stream#stop}.
     */
    Stream stream(int src, int dst) throws IOException {
        Path stop = Files.createTempFile("netlab-stream", ".stop");
        Files.delete(stop);
        String script = "n=0; while [ ! -e " + stop + " ]; do for ((k = 0; k < 500; k++)); do echo -n probe > /dev/udp/"
                + DestinationAddresses.ipv4(dst) + "/9; done; n=$((n + 500)); sleep 0.01; done; echo sent $n";
        return new Stream(new Iproute2("").start("ip", "netns", "exec", nodes.get(src), "bash", "-c", script), stop);
    }

    /** A stream of packets under way ({@link #stream}). */
    record Stream(Process process, Path stopFile) {
        /** Stops the stream; returns the packets it sent. */
        long stop() throws IOException, InterruptedException {
            Files.createFile(stopFile);
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            process.waitFor();
            Files.deleteIfExists(stopFile);
            if (process.exitValue() != 0 || !out.startsWith("sent ")) {
                throw new IOException("the stream failed: " + out);
            }
            return Long.parseLong(out.substring("sent ".length()));
        }
    }

    /** Packets received on each node's eth0, by destination index. */
    Map<Integer, Long> nodeReceived() throws IOException {
        Map<Integer, Long> out = new HashMap<>();
        for (Map.Entry<Integer, String> e : nodes.entrySet()) {
            out.put(e.getKey(), counters(e.getValue()).get("eth0")[0]);
        }
        return out;
    }

    /** Packets sent by each switch port: key "SWITCH-NAMESPACE pN". */
    Map<String, Long> switchSent() throws IOException {
        Map<String, Long> out = new HashMap<>();
        for (String ns : switches) {
            for (Map.Entry<String, long[]> e : counters(ns).entrySet()) {
                if (e.getKey().matches("p[0-9]+")) {
                    out.put(ns + " " + e.getKey(), e.getValue()[1]);
                }
            }
        }
        return out;
    }

    /**
     * Every interface's received and sent packets in {@code ns}, from {@code /proc/PID/net/dev} of a process that
     * lives in it: a file read, where a process per namespace and reading took minutes per check on 2 cores.
     */
    private Map<String, long[]> counters(String ns) throws IOException {
        Process holder = holders.get(ns);
        if (holder == null) {
            Process started = new Iproute2("").start("ip", "netns", "exec", ns, "sleep", "100000");
            holders.put(ns, started);
            Path own = Path.of("/proc/self/ns/net");
            Path its = Path.of("/proc", String.valueOf(started.pid()), "ns", "net");
            Await.until("a process in namespace " + ns, () -> !started.isAlive() || !link(its).equals(link(own)));
            if (!started.isAlive()) {
                throw new IOException("could not start a process in namespace " + ns);
            }
            holder = started;
        }
        Map<String, long[]> out = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(holder.pid()), "net", "dev"))) {
            int colon = line.indexOf(':');
            if (colon < 0 || line.startsWith("Inter-") || line.startsWith(" face")) {
                continue;
            }
            String[] f = line.substring(colon + 1).trim().split("\\s+");
            out.put(line.substring(0, colon).trim(), new long[]{Long.parseLong(f[1]), Long.parseLong(f[9])});
        }
        return out;
    }

    private static String link(Path p) {
        try {
            return Files.readSymbolicLink(p).toString();
        } catch (IOException e) {
            return "";
        }
    }

    String prefix() {
        return prefix;
    }

    @Override
    public void close() {
        holders.values().forEach(Process::destroy);
    }
}
