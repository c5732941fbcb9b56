package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS handshake pacing in the production shape: a {@code run} process with mutual TLS that admits one TLS
 * handshake at a time and gives each agent only 1 s from its TLS handshake to PORT_INFO, and two
 * {@code simulate --pki} processes whose agents all connect at once. The tail of the queue waits far longer
 * than 1 s for its handshake; before the HELLO timer started at the TLS handshake's completion, those
 * agents timed out, reconnected and queued again. Now the fabric converges with about one connection per
 * switch, counted by the daemon's own metrics.
 */
class TlsAdmissionIT {
    static final String SPEC = "PGFT(3;4,4,4;1,4,4;1,1,1)";

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path dir;

    @ParameterizedTest(name = "tlsProvider {0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void aWholeFabricConnectingAtOnceThroughOneHandshakeSlotConvergesWithOneConnectionPerSwitch(String provider)
            throws Exception {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        int n = fabric.switches().size();
        Path pkiDir = dir.resolve("pki");
        PkiDirectory pki = new PkiDirectory(pkiDir);
        pki.init("test CA", Duration.ofDays(2), List.of(), List.of(), Duration.ofDays(2), Clock.systemUTC());
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        pki.switchMaterials(switches, Duration.ofDays(2), Clock.systemUTC());
        List<String> even = new ArrayList<>();
        List<String> odd = new ArrayList<>();
        int i = 0;
        for (FabricSwitch s : fabric.switches()) {
            (i++ % 2 == 0 ? even : odd).add(Guids.format(s.guid()));
        }
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                southbound:
                  handshakeTimeoutMs: 1000
                  tlsHandshakesAtOnce: 1
                  tlsHandshakeTimeoutMs: 20000
                fabric:
                  expectedPgft: "%s"
                state:
                  directory: "%s"
                security:
                  pkiDirectory: "%s"
                  tlsProvider: %s
                """.formatted(SPEC, dir.resolve("state"), pkiDir, provider));
        try (FabricProcesses fp = new FabricProcesses(dir)) {
            fp.startDaemon(config, "-Xmx512m");
            fp.startSimulator("sim-even", "-Xmx384m", List.of("--pgft", SPEC, "--only", String.join(",", even),
                    "--pki", pkiDir.toString(), "--tls-provider", provider));
            fp.startSimulator("sim-odd", "-Xmx384m", List.of("--pgft", SPEC, "--only", String.join(",", odd),
                    "--pki", pkiDir.toString(), "--tls-provider", provider));
            fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED") && s.at("/switches/connected").asInt() == n
                    && s.at("/tables/inSync").asInt() == n, "convergence of " + n + " switches over TLS", 300);

            // both ends report the engine the setting chose
            String engine = provider.equals("openssl") ? "OpenSSL (BoringSSL" : "JDK (SunJSSE)";
            assertThat(Files.readString(dir.resolve("daemon.err"))).contains("engine " + engine);
            assertThat(Files.readString(dir.resolve("sim-even.out"))).contains("TLS engine " + engine);
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(fp.restUrl() + "/metrics"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
            double connections = value(metrics, "fabric_southbound_connections_total", "");
            double timeouts = value(metrics, "fabric_southbound_rejected_total", "reason=\"timeout\"");
            double busy = value(metrics, "fabric_southbound_rejected_total", "reason=\"busy\"");
            double handshakeFailures = value(metrics, "fabric_southbound_rejected_total", "reason=\"handshake\"");
            System.out.printf("%d switches: %.0f connections, %.0f timeouts, %.0f busy, %.0f failed handshakes%n", n,
                    connections, timeouts, busy, handshakeFailures);
            assertThat(connections).as("connections accepted for %d switches", n).isBetween((double) n, 1.2 * n);
            assertThat(timeouts + busy + handshakeFailures).as("connections lost before their session").isLessThanOrEqualTo(0.2 * n);
            assertThat(value(metrics, "fabric_southbound_tls_handshakes", "phase=\"waiting\"")).isZero();
            assertThat(value(metrics, "fabric_southbound_tls_handshakes", "phase=\"active\"")).isZero();
        }
    }

    /** The value of the Prometheus sample {@code name} whose labels include {@code label}, 0 when absent. */
    static double value(String metrics, String name, String label) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$").matcher(metrics);
        while (m.find()) {
            if (label.isEmpty() || (m.group(1) != null && m.group(1).contains(label))) {
                return Double.parseDouble(m.group(2));
            }
        }
        return 0;
    }
}
