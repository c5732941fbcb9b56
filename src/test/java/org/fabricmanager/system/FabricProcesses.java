package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.fabricmanager.testing.Await;

/**
 * The production shape on loopback, for system tests and benchmarks: the daemon as a {@code run} process
 * of the packaged jar, and simulated agents as one or more {@code simulate} processes, each with its own
 * stdin for fault injection ({@code --commands}), as they would run on separate hosts. Everything is
 * stopped by {@link #close}. Process output goes to files in the work directory.
 */
final class FabricProcesses implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final HttpClient http;
    private final List<Process> processes = new ArrayList<>();
    private Process daemon;
    private String restUrl;
    private int southboundPort;

    /** A simulate process and the writer of its stdin. */
    record Simulator(String name, Process process, PrintWriter commands) {
        void command(String line) {
            commands.println(line);
            commands.flush();
        }

        long pid() {
            return process.pid();
        }
    }

    FabricProcesses(Path dir) {
        this(dir, null);
    }

    /** @param ssl how to trust an HTTPS daemon's certificate ({@code null}: the JDK's trusted CAs) */
    FabricProcesses(Path dir, javax.net.ssl.SSLContext ssl) {
        this.dir = dir;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        this.http = (ssl == null ? b : b.sslContext(ssl)).build();
    }

    /** The switches' GUIDs dealt round-robin into {@code n} lists, one per {@code simulate --only} process. */
    static List<List<String>> split(org.fabricmanager.topology.Fabric fabric, int n) {
        List<List<String>> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(new ArrayList<>());
        }
        int next = 0;
        for (org.fabricmanager.topology.FabricSwitch s : fabric.switches()) {
            parts.get(next++ % n).add(org.fabricmanager.topology.Guids.format(s.guid()));
        }
        return parts;
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The JVM command: {@code heap} may hold several options separated by spaces (e.g. a JFR recording), and may start
     * with {@code cpus=LIST}, which runs the JVM under {@code taskset -c LIST} (a benchmark that keeps the daemon off
     * the cores of the simulated agents, as on a real fabric where they run on the switches), and with {@code nice=N},
     * which runs it under {@code nice -n N} (simulated agents that yield the shared cores to the daemon whenever it
     * needs them, and use them otherwise). Not on a host where the daemon keeps both cores busy for many seconds: on
     * the 2-vCPU PVM host of 2026-11-25 {@code nice=10} starved the agents through the daemon's start (echoes
     * unanswered, sessions idled out, ring members started minutes late and declared dead; docs/operations.md, "Sizing").
     */
    private static List<String> jar(String heap, List<String> args) {
        List<String> cmd = new ArrayList<>();
        List<String> options = heap.isBlank() ? new ArrayList<>() : new ArrayList<>(List.of(heap.trim().split("\\s+")));
        while (!options.isEmpty() && (options.get(0).startsWith("cpus=") || options.get(0).startsWith("nice="))) {
            String o = options.remove(0);
            cmd.addAll(o.startsWith("cpus=") ? List.of("taskset", "-c", o.substring("cpus=".length()))
                    : List.of("nice", "-n", o.substring("nice=".length())));
        }
        cmd.add(java());
        cmd.addAll(options);
        cmd.addAll(List.of("-jar", System.getProperty("fm.jar")));
        cmd.addAll(args);
        return cmd;
    }

    /** One run of a CLI command of the jar ({@link #cli}): its arguments, exit status, stdout and stderr. */
    record CliResult(List<String> args, int exit, String out, String err) {
        /** stdout then stderr: for failure messages, and for checks that do not mind which stream a line went to. */
        String all() {
            return out + err;
        }

        /** This run, once asserted to have exited 0 (the message names the command and holds what it printed). */
        CliResult succeeded() {
            assertThat(exit).as("%s: %s", String.join(" ", args), all()).isZero();
            return this;
        }
    }

    /**
     * Runs {@code java HEAP -jar fm.jar ARGS} to its end, as an operator runs a command: in {@code dir} ({@code null}:
     * this JVM's working directory), with the JVM options {@code heap} ({@code ""}: none, as in {@link #jar}). Fails
     * naming the command, with what it printed, when it outlives {@code limitSeconds}. Its output goes through files,
     * not pipes, so that a command that hangs cannot hang the test past the limit.
     */
    static CliResult cli(Path dir, String heap, long limitSeconds, String... args) throws IOException, InterruptedException {
        List<String> command = jar(heap, List.of(args));
        Path tmp = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"));
        Path out = Files.createTempFile(tmp, args[0] + "-", ".out");
        Path err = Files.createTempFile(tmp, args[0] + "-", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            Process p = (dir == null ? pb : pb.directory(dir.toFile())).start();
            boolean ended = p.waitFor(limitSeconds, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            CliResult result = new CliResult(List.of(args), ended ? p.exitValue() : -1,
                    Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
            if (!ended) {
                throw new AssertionError(String.join(" ", command) + " did not end within " + limitSeconds + " s; it printed:\n"
                        + result.all());
            }
            return result;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Starts {@code run --config CONFIG} on free ports and waits for the addresses it prints. */
    /**
     * Writes {@code dir/fabric-manager.yaml} for a daemon without TLS that expects {@code spec}, keeps its state in
     * {@code dir/state} and runs the ring detector on loopback with heartbeats every {@code deltaMs}.
     */
    static Path ringConfig(Path dir, String spec, int deltaMs) throws IOException {
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                state:
                  directory: "%s"
                security:
                  insecure: true
                faults:
                  settleMs: 50
                  detector:
                    enabled: true
                    etaMs: 200
                    deltaMs: %d
                    bind: "127.0.0.1"
                    port: 0
                """.formatted(spec, dir.resolve("state"), deltaMs));
        return config;
    }

    void startDaemon(Path config, String heap) throws IOException {
        startDaemon(config, heap, 0);
    }

    /**
     * As {@link #startDaemon(Path, String)}, the southbound on {@code southboundPort} (0: a free one): a daemon
     * restarted on the port of its previous run, where its agents reconnect.
     */
    void startDaemon(Path config, String heap, int southboundPort) throws IOException {
        start(jar(heap, List.of("run", "--config", config.toString(), "--southbound-port", String.valueOf(southboundPort),
                "--http-port", "0")));
        if (this.southboundPort == 0) {
            throw new IllegalStateException("the daemon printed no southbound line; see " + dir.resolve("daemon.err"));
        }
    }

    /**
     * Starts {@code run --config CONFIG} of a daemon without a southbound ({@code southbound.enabled: false}, which takes
     * no {@code --southbound-port}) on a free REST port, and waits for the REST address it prints: the only line.
     */
    void startDaemonWithoutSouthbound(Path config, String heap) throws IOException {
        start(jar(heap, List.of("run", "--config", config.toString(), "--http-port", "0")));
        if (this.southboundPort != 0) {
            throw new IllegalStateException("the daemon printed a southbound line, port " + this.southboundPort);
        }
    }

    /** Starts the daemon's command and reads its address lines: a {@code southbound} line, if any, then {@code rest}. */
    private void start(List<String> command) throws IOException {
        daemon = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("daemon.err").toFile())).start();
        processes.add(daemon);
        BufferedReader out = new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8));
        // the JVM may print first (a JFR recording starting): the daemon's own lines start with these words
        this.southboundPort = 0;
        String line = out.readLine();
        while (line != null && !line.startsWith("rest ")) {
            if (line.startsWith("southbound ")) {
                this.southboundPort = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1));
            }
            line = out.readLine();
        }
        if (line == null) {
            throw new IllegalStateException("the daemon did not start; see " + dir.resolve("daemon.err"));
        }
        restUrl = line.substring("rest ".length());
    }

    /**
     * Starts {@code run --config CONFIG} as a member of a hot-standby group on the given ports, without waiting: a
     * standby prints no {@code southbound} line until it leads. Its output goes to {@code NAME.out} and {@code NAME.err}
     * in the work directory; {@link #close} stops it.
     */
    Process startMember(String name, Path config, int southboundPort, int httpPort, String heap) throws IOException {
        Process p = new ProcessBuilder(jar(heap, List.of("run", "--config", config.toString(), "--southbound-port",
                String.valueOf(southboundPort), "--http-port", String.valueOf(httpPort))))
                .redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile())
                .start();
        processes.add(p);
        return p;
    }

    /** Starts {@code simulate} with {@code args} (fabric, selection, TLS) connected to the daemon. */
    Simulator startSimulator(String name, String heap, List<String> args) throws IOException {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of("--connect", "127.0.0.1:" + southboundPort, "--commands"));
        // a --only list of 5,000 GUIDs is about 100 KB: under Linux's 128 KiB limit for one argument
        List<String> cmd = jar(heap, List.of("simulate"));
        cmd.addAll(all);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".out").toFile())
                .start();
        processes.add(p);
        return new Simulator(name, p, new PrintWriter(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)));
    }

    Process daemon() {
        return daemon;
    }

    String restUrl() {
        return restUrl;
    }

    int southboundPort() {
        return southboundPort;
    }

    /** Polls {@code GET /api/v1/faults} until {@code done} accepts it; fails after {@code seconds}. */
    JsonNode awaitFaults(java.util.function.Predicate<JsonNode> done, String what, int seconds) {
        return Await.value(what, Duration.ofSeconds(seconds), () -> get("/api/v1/faults"), done);
    }

    /** {@code GET path} of the daemon's REST API as JSON. */
    JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(restUrl + path)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + ": " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** Polls {@code /api/v1/status} until {@code done} holds; the last status. */
    JsonNode awaitStatus(Predicate<JsonNode> done, String what, int seconds) {
        // an IOException (the daemon busy) counts as not yet
        return Await.value(what, Duration.ofSeconds(seconds), () -> get("/api/v1/status"), done);
    }

    /** The events ({@code /api/v1/events}) after sequence number {@code since}. */
    List<JsonNode> events(long since) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : get("/api/v1/events?since=" + since)) {
            out.add(e);
        }
        return out;
    }

    /** Waits for an event of {@code kind} after {@code since}. */
    JsonNode awaitEvent(String kind, long since, int seconds) {
        return Await.value("a " + kind + " event after #" + since, Duration.ofSeconds(seconds),
                () -> events(since).stream().filter(e -> e.path("kind").asText().equals(kind)).findFirst().orElse(null),
                e -> e != null);
    }

    /** The highest event sequence number so far. */
    long lastSeq() throws Exception {
        long seq = 0;
        for (JsonNode e : events(0)) {
            seq = Math.max(seq, e.path("seq").asLong());
        }
        return seq;
    }

    /** Sends a signal (STOP, CONT, KILL, TERM) to a process, as {@code kill -SIGNAL PID}; fails unless kill succeeds. */
    static void signal(long pid, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " failed");
        }
    }

    /** Resident set size of a process in MiB, from /proc. */
    static double rssMiB(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** User plus system CPU time of a process in seconds, from /proc (clock ticks of 1/100 s). */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU seconds of a process's threads, grouped by name without its trailing digits and separators (the
     * kernel keeps 15 characters of a name: "C2 CompilerThre", "fm-southbound-t").
     */
    static Map<String, Double> threadCpuSeconds(long pid) {
        Map<String, Double> byName = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[-#0-9 ]+$", "");
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    byName.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0, Double::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return byName;
    }

    /** The ten threads (by name, as {@link #threadCpuSeconds} groups them) that took most CPU, as "name seconds, ...". */
    static String topThreads(Map<String, Double> threads) {
        return threads.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(10)
                .map(e -> "%s %.2f".formatted(e.getKey(), e.getValue())).collect(java.util.stream.Collectors.joining(", "));
    }

    @Override
    public void close() {
        for (Process p : processes) {
            if (p.isAlive()) {
                try {
                    signal(p.pid(), "CONT");
                } catch (IOException | InterruptedException e) {
                    // it ends below anyway
                }
                p.destroy();
            }
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
