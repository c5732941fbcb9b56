package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.testing.PluginFrames;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} of an OpenSM-only site as docs/opensm.md configures it: the {@code opensm} section and
 * {@code southbound.enabled: false}, no TLS files and no {@code security.insecure}. It starts and answers REST, holds
 * no listening TCP socket but REST's (read from {@code /proc}: the sockets among its descriptors that
 * {@code /proc/net/tcp} and {@code tcp6} list as listening), runs no southbound thread, logs no WARN about a
 * plaintext southbound, and serves OpenSM's socket, where a subnet is answered with tables. Needs no OpenSM: the test
 * speaks the plug-in's protocol itself.
 */
class OpenSmOnlyRunIT {
    private static final String SPEC = "PGFT(2;4,4;1,4;1,1)";
    /** The kernel's state of a listening TCP socket in {@code /proc/net/tcp}. */
    private static final String TCP_LISTEN = "0A";

    @TempDir
    Path dir;

    @Test
    void runWithOpenSmAloneStartsWithoutASouthbound() throws Exception {
        Path socket = dir.resolve("opensm.sock");
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                southbound:
                  enabled: false
                opensm:
                  socket: "%s"
                state:
                  directory: "%s"
                """.formatted(socket, dir.resolve("state")));
        try (FabricProcesses fm = new FabricProcesses(dir)) {
            fm.startDaemonWithoutSouthbound(config, "-Xmx256m");
            JsonNode status = fm.awaitStatus(s -> s.has("state"), "REST answers", 60);
            assertThat(status.path("state").asText()).isNotEmpty();
            long pid = fm.daemon().pid();
            int restPort = URI.create(fm.restUrl()).getPort();

            assertThat(listeningTcpPorts(pid)).as("the daemon's listening TCP ports: REST's alone").containsExactly(restPort);
            assertThat(threadNames(pid)).as("threads of the southbound or its session tickets")
                    .noneMatch(t -> t.startsWith("fm-southbound") || t.startsWith("fm-ticket-keys"));
            assertThat(socket).as("OpenSM's socket").exists();

            Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
            Await.value("OpenSM's subnet answered with tables", Duration.ofSeconds(60),
                    () -> PluginFrames.exchange(socket, PluginFrames.subnet(1, fabric)),
                    a -> a != null && a.type() == OpenSmWire.TABLES);
            JsonNode routed = fm.awaitStatus(s -> s.at("/switches/connected").asInt() == fabric.switches().size(),
                    "OpenSM's " + fabric.switches().size() + " switches in the status", 30);
            assertThat(routed.at("/routing/version").asLong()).isPositive();

            String log = Files.readString(dir.resolve("daemon.err"), StandardCharsets.UTF_8);
            assertThat(log).as("the daemon's log (INFO and up)").contains("southbound disabled (southbound.enabled: false)")
                    .contains("started: no southbound, REST on ").doesNotContain("WITHOUT TLS")
                    .doesNotContain("security.insecure");
            // a loaded host may log other WARNs (a JVM pause): none may be about the southbound or its security
            assertThat(log.lines().filter(l -> l.contains(" WARN ") && (l.contains("SouthboundSecurity")
                    || l.contains("southbound") || l.contains("TLS")))).as("WARN lines of the southbound").isEmpty();
        }
    }

    /** The local ports of the listening TCP sockets (v4 and v6) among {@code pid}'s file descriptors. */
    static Set<Integer> listeningTcpPorts(long pid) throws IOException {
        Set<String> inodes = new TreeSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        Set<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                String[] f = line.trim().split("\\s+");
                if (f[3].equals(TCP_LISTEN) && inodes.contains(f[9])) {
                    ports.add(Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }

    /** The names of {@code pid}'s threads, as the kernel keeps them (15 characters). */
    static List<String> threadNames(long pid) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    names.add(Files.readString(task.resolve("comm")).trim());
                } catch (IOException e) {
                    // ended meanwhile
                }
            }
        }
        return names;
    }
}
