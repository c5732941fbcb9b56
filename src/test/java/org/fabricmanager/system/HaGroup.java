package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.HaMember.awaitLine;
import static org.fabricmanager.system.HaMember.helloAnswer;
import static org.fabricmanager.system.HaMember.lastRole;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.testing.Await;

/**
 * Hot-standby managers in the production shape, for the Ha*IT classes: three {@code run} processes with
 * {@code ha.enabled} and one {@code simulate} process that knows all three, on loopback. {@link #start} waits
 * until the fabric converged under the Raft leader and the standbys serve as standbys; the other methods read
 * the members' REST, await a role or a convergence and say where each member stands when a wait fails.
 */
final class HaGroup implements AutoCloseable {
    /** The fabric; {@code -Dfm.ha.pgft} for the benchmark at 192 or 768 switches. */
    static final String SPEC = System.getProperty("fm.ha.pgft", "PGFT(2;4,4;1,4;1,1)");
    static final int SWITCHES = org.fabricmanager.topology.PgftGenerator.generate(
            org.fabricmanager.topology.PgftSpec.parse(SPEC)).switches().size();
    /** {@code ha.electionTimeoutMs} of the three members ({@code -Dfm.ha.electionTimeoutMs}); unset: the default. */
    static final Integer ELECTION_TIMEOUT_MS = Integer.getInteger("fm.ha.electionTimeoutMs");
    private static final ObjectMapper JSON = new ObjectMapper();

    final Path dir;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    final HaMember[] managers = new HaMember[3];
    private Process sim;

    HaGroup(Path dir) {
        this.dir = dir;
    }

    /** Ports handed out to this test's managers: the kernel may give a port just closed to the next bind(0). */
    private final java.util.Set<Integer> taken = new java.util.HashSet<>();

    private int freePort() throws IOException {
        while (true) {
            try (ServerSocket s = new ServerSocket(0)) {
                if (taken.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
    }

    @Override
    public void close() {
        if (sim != null) {
            sim.destroyForcibly();
        }
        for (HaMember m : managers) {
            if (m != null && m.process != null) {
                m.process.destroyForcibly();
            }
        }
    }

    /** Version, tables and indices the fabric converged on under the first leader. */
    long version;
    Map<String, Long> tables;
    byte[] indices;

    /** More of each manager's configuration, top-level YAML sections (e.g. {@code linkHealth}), set before a start. */
    String moreConfig = "";

    /** Whether this test's managers and agents run mutual TLS (one PKI; one daemon certificate per manager). */
    boolean tls;

    /**
     * Starts three managers and the simulator, waits for convergence; the active manager. With {@code tls}, the
     * southbound and the Raft port run mutual TLS as an operator deploys it (docs/operations.md): one CA, and
     * {@code pki issue --daemon --out} makes each manager's own directory.
     */
    HaMember start(boolean tls) throws Exception {
        this.tls = tls;
        org.junit.jupiter.api.Assumptions.assumeTrue(org.fabricmanager.routing.engines.RoutingEngines.names().contains("dmodc"),
                "the dmodc engine is not registered in this build");
        for (int i = 0; i < 3; i++) {
            managers[i] = new HaMember(i + 1, dir, freePort(), freePort(), freePort());
        }
        StringBuilder peers = new StringBuilder();
        StringBuilder connect = new StringBuilder();
        for (HaMember m : managers) {
            peers.append(peers.length() == 0 ? "" : ", ").append("\"").append(m.id).append("=127.0.0.1:").append(m.raftPort).append("\"");
            connect.append(connect.length() == 0 ? "" : ",").append("127.0.0.1:").append(m.southboundPort);
        }
        Path pki = dir.resolve("pki");
        if (tls) {
            FabricProcesses.cli(dir, "", 120, "pki", "init", "--dir", pki.toString(), "--daemon-ip", "127.0.0.1").succeeded();
            // the three managers' certificates at once: each process reads the CA and writes only its own --out
            List<CompletableFuture<FabricProcesses.CliResult>> issued = new ArrayList<>();
            for (HaMember m : managers) {
                issued.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return FabricProcesses.cli(dir, "", 120, "pki", "issue", "--dir", pki.toString(), "--daemon",
                                "--daemon-ip", "127.0.0.1", "--out", dir.resolve("pki-" + m.id).toString());
                    } catch (IOException | InterruptedException e) {
                        throw new CompletionException(e);
                    }
                }, task -> new Thread(task, "pki-issue-" + m.id).start())); // not the common pool: one thread on two cores
            }
            for (CompletableFuture<FabricProcesses.CliResult> i : issued) {
                i.join().succeeded();
            }
        }
        for (HaMember m : managers) {
            String security = tls ? "pkiDirectory: \"" + dir.resolve("pki-" + m.id) + "\"" : "insecure: true";
            Files.writeString(m.config, """
                    southbound:
                      bind: "127.0.0.1"
                    rest:
                      bind: "127.0.0.1"
                    fabric:
                      expectedPgft: "%s"
                    discovery:
                      settleMs: 15000
                      maxWaitMs: 30000
                    state:
                      directory: "%s"
                    security:
                      %s
                    ha:
                      enabled: true
                      nodeId: %s
                      peers: [%s]
                      snapshotEvery: 2
                    %s%s""".formatted(SPEC, m.state, security, m.id, peers, ELECTION_TIMEOUT_MS == null ? ""
                    : "  electionTimeoutMs: " + ELECTION_TIMEOUT_MS + "\n", moreConfig));
            m.start();
        }
        long begin = System.nanoTime();
        // three JVMs starting at once: at load 20-50 on two cores none had even reported a role after 60 s
        HaMember leader = awaitActive(null, 120);
        System.out.println("ha group start" + (tls ? " (mutual TLS)" : "") + ": " + leader.id + " active "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin) + " ms after the members' start");
        List<String> simulate = new ArrayList<>(List.of(FabricProcesses.java(), "-Xmx256m", "-jar", System.getProperty("fm.jar"),
                "simulate", "--pgft", SPEC, "--connect", connect.toString(), "--commands"));
        if (tls) {
            simulate.addAll(List.of("--pki", pki.toString()));
        }
        sim = new ProcessBuilder(simulate)
                .redirectErrorStream(true).redirectOutput(dir.resolve("simulate.out").toFile()).start();
        JsonNode first = awaitConverged(leader, 60);
        assertThat(first.at("/switches/connected").asInt()).isEqualTo(SWITCHES);
        assertThat(first.at("/routing/computations").asLong()).isEqualTo(1);
        version = first.at("/routing/version").asLong();
        tables = tableVersions(leader);
        assertThat(tables).hasSize(SWITCHES).allSatisfy((g, v) -> assertThat(v).isEqualTo(version));
        // the committed state is in every member's state directory, byte for byte
        indices = Files.readAllBytes(leader.state.resolve("guid2index"));
        // the stored routing is written (committed through Raft) after the push started: CONVERGED may come first
        Path stored = leader.state.resolve("routing.state");
        awaitStored(stored);
        byte[] routing = Files.readAllBytes(stored);
        for (HaMember m : managers) {
            awaitFile(m.state.resolve("routing.state"), routing);
            assertThat(Files.readAllBytes(m.state.resolve("guid2index"))).as(m.id + " guid2index").isEqualTo(indices);
        }
        assertStandbysServe(leader);
        for (HaMember m : managers) {
            if (m != leader) {
                // a hot standby: it rehearsed a manager start on a copy of the replicated state
                awaitLine(m, "hot " + m.id + ": manager start rehearsed", 60);
            }
        }
        System.out.println("ha replication, first start on " + SPEC + ": " + replication(leader));
        return leader;
    }

    /**
     * Every member answers /api/v1/ha naming the leader; a standby's status says STANDBY with the leader's REST
     * address, it sends a mutation there (421), is ready only as a standby, exports the ha meters, and answers
     * an agent's HELLO with the leader's southbound address.
     */
    void assertStandbysServe(HaMember leader) throws Exception {
        JsonNode leaderHa = get(leader.url() + "/api/v1/ha");
        assertThat(leaderHa.path("nodeId").asText()).isEqualTo(leader.id);
        assertThat(leaderHa.path("role").asText()).as(leader.id + " role").isEqualTo("LEADER");
        assertThat(status(leader.url() + "/health/ready")).isEqualTo(200);
        for (HaMember m : managers) {
            if (m == leader) {
                continue;
            }
            // On a loaded host a standby can miss the leader's heartbeats for an election timeout (500 ms) and know no
            // leader for a moment (a pre-vote or an election; in a new term, until the leader commits its endpoints
            // again): it then answers as it must without a leader (503 to a mutation, naming no leader; checked in
            // each round), and the test asks again. Once it names the leader, every answer of one round sends there.
            StandbyRound r = Await.value("standby " + m.id + " sending clients to " + leader.id, Duration.ofSeconds(30),
                    () -> standbyRound(m), round -> round.sendsTo(leader));
            assertThat(r.ha().path("nodeId").asText()).isEqualTo(m.id);
            assertThat(r.ha().path("role").asText()).as(m.id + " role").isEqualTo("FOLLOWER");
            assertThat(r.ha().path("term").asLong()).isPositive();
            assertThat(r.ha().path("peers")).hasSize(3);
            assertThat(r.status().path("state").asText()).isEqualTo("STANDBY");
            assertThat(r.status().path("leaderId").asText()).isEqualTo(leader.id);
            assertThat(r.status().path("leaderRest").asText()).isEqualTo(leader.url());
            assertThat(r.mutation()).as("a mutation on standby " + m.id).isEqualTo(421);
            assertThat(r.location()).isEqualTo(leader.url() + "/api/v1/reroute");
            assertThat(r.ready()).isEqualTo(503);
            assertThat(r.readyStandby()).isEqualTo(200);
            assertThat(r.metrics()).contains("fabric_ha_term").contains("fabric_ha_role{role=\"follower\"} 1.0");
            if (tls) {
                continue; // helloAnswer speaks plaintext; the agents' redirects under TLS are what the fabric converging shows
            }
            assertThat(helloAnswer(m)).as("standby " + m.id + " answers HELLO").isEqualTo("NOT_LEADER 127.0.0.1:"
                    + leader.southboundPort);
        }
    }

    /** What a standby answered in one round: /api/v1/ha, its status, a mutation, its readiness probes and meters. */
    private record StandbyRound(JsonNode ha, JsonNode status, int mutation, String mutationBody, String location,
                                int ready, int readyStandby, String metrics) {
        /** Whether every answer of the round sends clients to {@code leader}. */
        boolean sendsTo(HaMember leader) {
            return "FOLLOWER".equals(ha.path("role").asText()) && leader.url().equals(status.path("leaderRest").asText())
                    && mutation == 421 && readyStandby == 200 && metrics.contains("fabric_ha_role{role=\"follower\"} 1.0");
        }

        @Override
        public String toString() {
            return "ha " + ha + ", status " + status + ", mutation " + mutation + " " + mutationBody + " (Location "
                    + location + "), ready " + ready + ", ready-standby " + readyStandby;
        }
    }

    private StandbyRound standbyRound(HaMember m) throws IOException, InterruptedException {
        JsonNode ha = get(m.url() + "/api/v1/ha");
        JsonNode st = get(m.url() + "/api/v1/status");
        HttpResponse<String> reroute = http.send(HttpRequest.newBuilder(URI.create(m.url() + "/api/v1/reroute"))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (reroute.statusCode() != 421 && "FOLLOWER".equals(ha.path("role").asText())
                && "FOLLOWER".equals(get(m.url() + "/api/v1/ha").path("role").asText())) {
            // the one other answer a standby gives a mutation: 503 while it knows no active manager, and it says so
            // (a member that led for a moment around the mutation, an election on a loaded host, answered as the
            // manager does: the round does not send to the leader, and the test asks again)
            assertThat(reroute.statusCode()).as("a mutation on standby " + m.id + ": " + reroute.body()).isEqualTo(503);
            assertThat(JSON.readTree(reroute.body()).path("leaderRest").isNull())
                    .as("a 503 from standby " + m.id + " names no leader: " + reroute.body()).isTrue();
        }
        return new StandbyRound(ha, st, reroute.statusCode(), reroute.body(),
                reroute.headers().firstValue("Location").orElse(null), status(m.url() + "/health/ready"),
                status(m.url() + "/health/ready-standby"), text(m.url() + "/metrics"));
    }

    /**
     * What a manager committed through Raft, from its /metrics: per state file, commits, bytes and mean commit
     * time (submission to committed by a majority and applied on the leader).
     */
    String replication(HaMember m) throws Exception {
        Map<String, double[]> byFile = new TreeMap<>();
        for (String l : text(m.url() + "/metrics").split("\n")) {
            java.util.regex.Matcher x = java.util.regex.Pattern.compile(
                    "fabric_ha_(replicated_bytes_total|commit_seconds_count|commit_seconds_sum)\\{file=\"([^\"]+)\"} (\\S+)")
                    .matcher(l);
            if (x.matches()) {
                double[] v = byFile.computeIfAbsent(x.group(2), k -> new double[3]);
                v[x.group(1).startsWith("replicated") ? 0 : x.group(1).endsWith("count") ? 1 : 2] = Double.parseDouble(x.group(3));
            }
        }
        StringBuilder out = new StringBuilder();
        byFile.forEach((f, v) -> {
            if (v[1] > 0) {
                out.append(String.format(java.util.Locale.ROOT, "%s: %d commits, %d bytes, mean %.1f ms; ", f, (long) v[1],
                        (long) v[0], 1000 * v[2] / v[1]));
            }
        });
        return out.toString();
    }

    /** A fault injection for the simulator ({@code simulate --commands}); its answer lands in simulate.out. */
    void command(String line) throws Exception {
        sim.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        sim.getOutputStream().flush();
        Await.until("simulate answering '" + line + "'", Duration.ofSeconds(30),
                () -> printed(dir.resolve("simulate.out"), "ok: " + line.split(" ")[0]));
    }

    private static boolean printed(Path out, String text) {
        try {
            return Files.readString(out).contains(text);
        } catch (IOException e) {
            return false; // not written yet
        }
    }

    HaMember awaitActive(HaMember not, int seconds) {
        try {
            return Await.value("an active manager" + (not == null ? "" : " other than " + not), Duration.ofSeconds(seconds),
                    () -> active(not), m -> m != null);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; see " + dir + "; " + whereEachStands(), e);
        }
    }

    /** The member whose manager is active now, never {@code not}; {@code null} if none. */
    private HaMember active(HaMember not) {
        for (HaMember m : managers) {
            if (m != not && m.process.isAlive() && m.lines.stream().anyMatch(l -> l.matches("rest http://.*"))
                    && lastRole(m).contains(" ACTIVE ")) {
                return m;
            }
        }
        return null;
    }

    /**
     * For a failure message (CI keeps only the message): each member's liveness, last role line and last WARN or
     * ERROR line of its current run's stderr (but the expected one of a member running without TLS).
     */
    private String whereEachStands() {
        StringBuilder out = new StringBuilder();
        for (HaMember m : managers) {
            if (m == null || m.process == null) {
                continue;
            }
            String warn = "none";
            try {
                for (String l : Files.readAllLines(dir.resolve(m.id + "-" + m.starts + ".err"))) {
                    if ((l.contains(" WARN ") || l.contains(" ERROR ")) && !l.contains("WITHOUT TLS")) {
                        warn = l.length() > 300 ? l.substring(0, 300) + "…" : l;
                    }
                }
            } catch (IOException e) {
                warn = "stderr unreadable: " + e;
            }
            out.append(m.id).append(m.process.isAlive() ? " alive" : " exited " + m.process.exitValue())
                    .append(", last role '").append(lastRole(m)).append("', last warning: ").append(warn).append("; ");
        }
        return out.toString();
    }

    /** Waits until {@code file} holds {@code content} (a state file replicated through Raft). */
    static void awaitFile(Path file, byte[] content) {
        Await.until(file + " equal to the leader's " + content.length + " bytes", Duration.ofSeconds(30),
                () -> Arrays.equals(bytes(file), content));
    }

    /** The content of {@code file}, empty while it does not exist. */
    private static byte[] bytes(Path file) {
        try {
            return Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
        } catch (IOException e) {
            return new byte[0]; // replaced meanwhile
        }
    }

    JsonNode awaitConverged(HaMember m, int seconds) {
        return awaitConverged(m, seconds, SWITCHES);
    }

    JsonNode awaitConverged(HaMember m, int seconds, int switches) {
        return Await.value(m.id + " CONVERGED on " + switches + " switches", Duration.ofSeconds(seconds), () -> status(m),
                last -> converged(last, switches));
    }

    /**
     * The manager active and converged on every switch, never {@code not}. On an overloaded host the member elected
     * after a kill may step down before it converged (it heard from no majority within two election timeouts) and
     * another take over: the one active at each poll is the one waited for, and what the caller asserts of a
     * takeover (nothing pushed, nothing computed, nothing renumbered) holds for whichever member that is.
     */
    Converged awaitConvergedActive(HaMember not, int seconds) {
        try {
            return Await.value("a manager other than " + not + " active and CONVERGED", Duration.ofSeconds(seconds),
                    () -> {
                        HaMember m = active(not);
                        return new Converged(m, m == null ? null : status(m));
                    }, c -> converged(c.status(), SWITCHES));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; " + whereEachStands(), e);
        }
    }

    /** A manager and the status in which it reported every switch in sync. */
    record Converged(HaMember manager, JsonNode status) {
    }

    /** The member's status, or {@code null} while its REST port does not answer. */
    JsonNode status(HaMember m) {
        try {
            return get(m.url() + "/api/v1/status");
        } catch (IOException e) {
            return null; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static boolean converged(JsonNode status, int switches) {
        // a repair's refinement, when one is due, is part of converging here: the tables a failover inherits
        return status != null && "CONVERGED".equals(status.path("state").asText())
                && status.at("/switches/connected").asInt() == switches && status.at("/tables/inSync").asInt() == switches
                && !status.at("/routing/refinePending").asBoolean();
    }

    Map<String, Long> tableVersions(HaMember m) throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (JsonNode s : get(m.url() + "/api/v1/switches")) {
            out.put(s.path("guid").asText(), s.path("tableVersion").asLong());
        }
        return out;
    }

    int status(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    String text(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    JsonNode get(String url) throws IOException, InterruptedException {
        // 10 s as the other requests here: at load 40-140 one /api/v1/ha took more than 5 s
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + ": " + r.statusCode());
        }
        return JSON.readTree(r.body());
    }

    /** Waits for a state file the manager writes through Raft after the event the test waited for. */
    static void awaitStored(Path file) {
        Await.until(file + " written", Duration.ofSeconds(30), () -> Files.exists(file));
    }
}
