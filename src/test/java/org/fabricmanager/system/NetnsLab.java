package org.fabricmanager.system;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Network namespaces on one bridge for system tests that need a network they can cut: each host (a manager, the
 * agents' simulator) in its own namespace with one address on {@value #SUBNET}.0/24, the bridge in the test's own
 * namespace at {@value #SUBNET}.254 so that the test reaches every host. A partition is a pair of blackhole
 * routes (both directions), so it needs nothing but iproute2. Needs root; {@link #unavailable()} says why not.
 * Names start with the prefix given, short enough for interface names; {@link #close()} and a later lab with the
 * same prefix remove what a crashed run left.
 */
final class NetnsLab implements AutoCloseable {
    static final String SUBNET = "10.213.77";

    private final String prefix;
    private final List<String> hosts = new ArrayList<>();

    private NetnsLab(String prefix) {
        this.prefix = prefix;
    }

    /** Why namespaces cannot be made here, or {@code null} when they can. */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        if (!Files.isExecutable(Path.of("/usr/sbin/ip")) && !Files.isExecutable(Path.of("/sbin/ip"))
                && !Files.isExecutable(Path.of("/usr/bin/ip"))) {
            return "no ip command: install Debian's iproute2";
        }
        try {
            Result r = run(List.of("ip", "netns", "add", "fmprobe"));
            run(List.of("ip", "netns", "del", "fmprobe"));
            return r.code == 0 ? null : "cannot make a network namespace: " + r.output.strip();
        } catch (IOException e) {
            return "cannot run ip: " + e.getMessage();
        }
    }

    /** A lab with the bridge up and nothing else; leftovers of an earlier run with this prefix are removed first. */
    static NetnsLab open(String prefix) throws IOException {
        NetnsLab lab = new NetnsLab(prefix);
        lab.removeLeftovers();
        lab.must("ip", "link", "add", lab.bridge(), "type", "bridge");
        lab.must("ip", "addr", "add", SUBNET + ".254/24", "dev", lab.bridge());
        lab.must("ip", "link", "set", lab.bridge(), "up");
        return lab;
    }

    private String bridge() {
        return prefix + "br";
    }

    /** The namespace of host {@code n} (1..253), with its address {@link #address(int)} on the bridge. */
    String addHost(int n) throws IOException {
        String ns = prefix + n;
        String outside = prefix + "v" + n;
        must("ip", "netns", "add", ns);
        hosts.add(ns);
        must("ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", ns);
        must("ip", "link", "set", outside, "master", bridge());
        must("ip", "link", "set", outside, "up");
        must("ip", "-n", ns, "addr", "add", address(n) + "/24", "dev", "eth0");
        must("ip", "-n", ns, "link", "set", "eth0", "up");
        must("ip", "-n", ns, "link", "set", "lo", "up");
        return ns;
    }

    static String address(int n) {
        return SUBNET + "." + n;
    }

    /** The command line that runs {@code command} inside host {@code n}'s namespace. */
    List<String> inside(int n, List<String> command) {
        List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", prefix + n));
        out.addAll(command);
        return out;
    }

    /** Hosts {@code a} and {@code b} no longer reach each other (either way); the rest of the network stays. */
    void cut(int a, int b) throws IOException {
        must("ip", "-n", prefix + a, "route", "add", "blackhole", address(b) + "/32");
        must("ip", "-n", prefix + b, "route", "add", "blackhole", address(a) + "/32");
    }

    /** Undoes {@link #cut(int, int)}. */
    void heal(int a, int b) throws IOException {
        must("ip", "-n", prefix + a, "route", "del", "blackhole", address(b) + "/32");
        must("ip", "-n", prefix + b, "route", "del", "blackhole", address(a) + "/32");
    }

    @Override
    public void close() throws IOException {
        removeLeftovers();
    }

    private void removeLeftovers() throws IOException {
        Result list = run(List.of("ip", "netns", "list"));
        for (String line : list.output.split("\n")) {
            String ns = line.split(" ")[0].strip();
            if (ns.startsWith(prefix) && ns.substring(prefix.length()).chars().allMatch(Character::isDigit)
                    && ns.length() > prefix.length()) {
                run(List.of("ip", "netns", "pids", ns)).output.lines().forEach(pid -> {
                    try {
                        run(List.of("kill", "-9", pid.strip()));
                    } catch (IOException e) {
                        // gone already
                    }
                });
                run(List.of("ip", "netns", "del", ns));
            }
        }
        // a namespace outlives `ip netns del` until its last process has exited, and with it the veth end in this
        // namespace: delete those ends here (either end takes the pair), so that the next lab can make them again
        for (String line : run(List.of("ip", "-o", "link", "show")).output.split("\n")) {
            String[] fields = line.split(":\\s+|@");
            String name = fields.length > 1 ? fields[1].strip() : "";
            if (name.startsWith(prefix + "v") && name.substring(prefix.length() + 1).chars().allMatch(Character::isDigit)
                    && name.length() > prefix.length() + 1) {
                run(List.of("ip", "link", "del", name));
            }
        }
        run(List.of("ip", "link", "del", bridge()));
        hosts.clear();
    }

    private void must(String... command) throws IOException {
        Result r = run(List.of(command));
        if (r.code != 0) {
            throw new IOException(String.join(" ", command) + ": exit " + r.code + ": " + r.output.strip());
        }
    }

    private record Result(int code, String output) {
    }

    private static Result run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": still running after 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new Result(p.exitValue(), out);
    }
}
