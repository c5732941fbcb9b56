package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGHUP to a real {@code run} process: the daemon stays up (it used to exit with 129), applies the flap
 * knobs and a new log level, names what needs a restart, and keeps everything on an invalid file. A daemon
 * started with SIGHUP ignored (under nohup) cannot catch it, and says so at start.
 */
class SighupReloadIT {
    @TempDir
    Path dir;

    @Test
    void sighupReloadsWhatItSafelyCanAndTheDaemonStaysUp() throws Exception {
        // A child inherits an ignored SIGHUP, and the JVM then cannot catch it (the next test covers that case).
        Assumptions.assumeFalse(hangupIgnoredHere(),
                "SIGHUP is ignored in this process tree (run under nohup?): a daemon started from here cannot catch it");
        int threshold = DaemonConfig.defaults().faults().flapThreshold();
        Path config = dir.resolve("fabric-manager.yaml");
        Path err = dir.resolve("daemon.err");
        Process daemon = start(List.of(), threshold);
        try {
            String url = restUrl(daemon);

            Files.writeString(config, yaml(threshold + 3, 900));
            Files.writeString(dir.resolve("logback.xml"), logback("DEBUG"));
            hangUp(daemon);
            String line = awaitLine(err, "SIGHUP: reloaded");
            assertThat(line).contains("faults.flapThreshold: " + threshold + " -> " + (threshold + 3))
                    .contains("needs a restart: discovery")
                    .contains("org.fabricmanager.daemon inherited -> DEBUG");
            assertThat(daemon.isAlive()).isTrue();
            assertThat(get(url + "/health/live").statusCode()).isEqualTo(200);

            Files.writeString(config, "faults:\n  flapThreshold: 0\n");
            hangUp(daemon);
            String refused = awaitLine(err, "the running configuration is kept");
            assertThat(refused).contains("faults.flapThreshold");
            assertThat(daemon.isAlive()).isTrue();
            assertThat(get(url + "/health/live").statusCode()).isEqualTo(200);
        } finally {
            stop(daemon);
        }
    }

    @Test
    void aDaemonStartedWithSighupIgnoredSaysThatReloadIsUnavailableAndStaysUp() throws Exception {
        // nohup starts the daemon with SIGHUP ignored, as an operator's `nohup fabric-manager run &` would
        Process daemon = start(List.of("nohup"), DaemonConfig.defaults().faults().flapThreshold());
        try {
            String url = restUrl(daemon);
            assertThat(awaitLine(dir.resolve("daemon.err"), "SIGHUP is ignored in this process")).startsWith("WARN")
                    .contains("reload by SIGHUP is unavailable");
            hangUp(daemon);
            assertThat(get(url + "/health/live").statusCode()).isEqualTo(200);
            assertThat(daemon.isAlive()).isTrue();
        } finally {
            stop(daemon);
        }
    }

    /**
     * Writes the configuration (flap threshold {@code threshold}) and an INFO logback file into the test's folder and
     * starts {@code run} with them, ports chosen at start and stderr to daemon.err, after {@code prefix} (a command
     * such as nohup).
     */
    private Process start(List<String> prefix, int threshold) throws Exception {
        Path config = dir.resolve("fabric-manager.yaml");
        Path logback = dir.resolve("logback.xml");
        Files.writeString(config, yaml(threshold, 300));
        Files.writeString(logback, logback("INFO"));
        List<String> command = new java.util.ArrayList<>(prefix);
        command.addAll(List.of(FabricProcesses.java(), "-Xmx256m", "-Dlogback.configurationFile=" + logback, "-jar",
                System.getProperty("fm.jar"), "run", "--config", config.toString(), "--southbound-port", "0",
                "--http-port", "0"));
        return new ProcessBuilder(command).redirectError(dir.resolve("daemon.err").toFile()).start();
    }

    /** The REST address {@code run} prints, after its southbound address. */
    private String restUrl(Process daemon) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).as("stderr: %s", dir.resolve("daemon.err")).startsWith("southbound ");
        return out.readLine().substring("rest ".length());
    }

    private static void stop(Process daemon) throws InterruptedException {
        daemon.destroy();
        if (!daemon.waitFor(20, TimeUnit.SECONDS)) {
            daemon.destroyForcibly();
        }
    }

    /** Whether this JVM was started with SIGHUP ignored (the SigIgn mask of /proc/self/status, SIGHUP its lowest bit). */
    private static boolean hangupIgnoredHere() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & 1L) != 0;
            }
        }
        return false;
    }

    private String yaml(int flapThreshold, int discoverySettleMs) {
        return """
                faults:
                  flapThreshold: %d
                discovery:
                  settleMs: %d
                state:
                  directory: "%s"
                security:
                  insecure: true
                """.formatted(flapThreshold, discoverySettleMs, dir.resolve("state"));
    }

    private static String logback(String daemonLevel) {
        String daemonLogger = daemonLevel.equals("INFO") ? "" : "  <logger name=\"org.fabricmanager.daemon\" level=\""
                + daemonLevel + "\"/>\n";
        return """
                <configuration>
                  <statusListener class="ch.qos.logback.core.status.NopStatusListener"/>
                  <appender name="ERR" class="ch.qos.logback.core.ConsoleAppender">
                    <target>System.err</target>
                    <encoder><pattern>%%-5level %%logger{0} - %%msg%%n</pattern></encoder>
                  </appender>
                  <logger name="io.netty" level="WARN"/>
                %s  <root level="INFO"><appender-ref ref="ERR"/></root>
                </configuration>
                """.formatted(daemonLogger);
    }

    private static void hangUp(Process p) throws Exception {
        FabricProcesses.signal(p.pid(), "HUP");
    }

    /** The first line of {@code file} containing {@code text} that was not returned before. */
    private final java.util.Set<String> seen = new java.util.HashSet<>();

    private String awaitLine(Path file, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (String l : lines) {
                if (l.contains(text) && seen.add(l)) {
                    return l;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no line with '" + text + "' in " + file + ":\n" + Files.readString(file));
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
