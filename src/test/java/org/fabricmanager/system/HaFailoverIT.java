package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.store.RoutingState;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.RawFrames;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot-standby managers in the production shape: three {@code run} processes with {@code ha.enabled} and one
 * {@code simulate} process that knows all three, on loopback. The fabric converges under the Raft leader;
 * kill -9 of the leader makes a standby the active manager, the agents reconnect to it, and it converges
 * from the replicated state without computing or pushing anything: every table and every destination
 * index stays as it was. The failover time (kill to CONVERGED on the new leader) is printed, not asserted;
 * with -Dfm.bench=true the kill is repeated ({@code fm.ha.kills}, default 10) for docs/performance.md.
 */
class HaFailoverIT {
    /** The fabric; {@code -Dfm.ha.pgft} for the benchmark at 192 or 768 switches. */
    static final String SPEC = System.getProperty("fm.ha.pgft", "PGFT(2;4,4;1,4;1,1)");
    static final int SWITCHES = org.fabricmanager.topology.PgftGenerator.generate(
            org.fabricmanager.topology.PgftSpec.parse(SPEC)).switches().size();
    /** {@code ha.electionTimeoutMs} of the three members ({@code -Dfm.ha.electionTimeoutMs}); unset: the default. */
    static final Integer ELECTION_TIMEOUT_MS = Integer.getInteger("fm.ha.electionTimeoutMs");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Manager[] managers = new Manager[3];
    private Process sim;

    /** One {@code run} process, the lines it printed, and its ports. */
    private final class Manager {
        final String id;
        final int raftPort;
        final int southboundPort;
        final int restPort;
        final Path config;
        final Path state;
        Process process;
        BlockingQueue<String> lines;
        /** Each line with the System.nanoTime() it was read at. */
        final java.util.Queue<Map.Entry<Long, String>> timed = new java.util.concurrent.ConcurrentLinkedQueue<>();
        int starts;

        Manager(int n) throws IOException {
            id = "n" + n;
            raftPort = freePort();
            southboundPort = freePort();
            restPort = freePort();
            state = dir.resolve("state-" + id);
            config = dir.resolve(id + ".yaml");
        }

        String url() {
            return "http://127.0.0.1:" + restPort;
        }

        void start() throws IOException {
            starts++;
            List<String> cmd = new ArrayList<>(List.of(FabricProcesses.java(), "-Xmx256m", "-jar", System.getProperty("fm.jar"),
                    "run", "--config", config.toString(), "--southbound-port", String.valueOf(southboundPort),
                    "--http-port", String.valueOf(restPort)));
            process = new ProcessBuilder(cmd).redirectError(dir.resolve(id + "-" + starts + ".err").toFile()).start();
            BlockingQueue<String> q = new LinkedBlockingQueue<>();
            lines = q;
            Process p = process;
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l = out.readLine(); l != null; l = out.readLine()) {
                        timed.add(Map.entry(System.nanoTime(), l));
                        q.add(l);
                    }
                } catch (IOException e) {
                    // the process ended
                }
            }, "out-" + id);
            reader.setDaemon(true);
            reader.start();
        }

        /** Milliseconds from {@code begin} (nanoTime) to the first line starting with {@code prefix} read after it, -1 if none. */
        long msUntil(String prefix, long begin) {
            for (Map.Entry<Long, String> e : timed) {
                if (e.getKey() >= begin && e.getValue().startsWith(prefix)) {
                    return TimeUnit.NANOSECONDS.toMillis(e.getKey() - begin);
                }
            }
            return -1;
        }

        @Override
        public String toString() {
            return id;
        }
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

    @AfterEach
    void stop() {
        if (sim != null) {
            sim.destroyForcibly();
        }
        for (Manager m : managers) {
            if (m != null && m.process != null) {
                m.process.destroyForcibly();
            }
        }
    }

    /** Version, tables and indices the fabric converged on under the first leader. */
    private long version;
    private Map<String, Long> tables;
    private byte[] indices;

    /** Whether this test's managers and agents run mutual TLS (one PKI; one daemon certificate per manager). */
    private boolean tls;

    /** Starts three managers and the simulator, waits for convergence; the active manager. */
    private Manager startGroupAndFabric() throws Exception {
        return startGroupAndFabric(false);
    }

    /**
     * Starts three managers and the simulator, waits for convergence; the active manager. With {@code tls}, the
     * southbound and the Raft port run mutual TLS as an operator deploys it (docs/operations.md): one CA, and
     * {@code pki issue --daemon --out} makes each manager's own directory.
     */
    private Manager startGroupAndFabric(boolean tls) throws Exception {
        this.tls = tls;
        org.junit.jupiter.api.Assumptions.assumeTrue(org.fabricmanager.routing.engines.RoutingEngines.names().contains("dmodc"),
                "the dmodc engine is not registered in this build");
        for (int i = 0; i < 3; i++) {
            managers[i] = new Manager(i + 1);
        }
        StringBuilder peers = new StringBuilder();
        StringBuilder connect = new StringBuilder();
        for (Manager m : managers) {
            peers.append(peers.length() == 0 ? "" : ", ").append("\"").append(m.id).append("=127.0.0.1:").append(m.raftPort).append("\"");
            connect.append(connect.length() == 0 ? "" : ",").append("127.0.0.1:").append(m.southboundPort);
        }
        Path pki = dir.resolve("pki");
        if (tls) {
            FabricProcesses.cli(dir, "", 120, "pki", "init", "--dir", pki.toString(), "--daemon-ip", "127.0.0.1").succeeded();
            // the three managers' certificates at once: each process reads the CA and writes only its own --out
            List<CompletableFuture<FabricProcesses.CliResult>> issued = new ArrayList<>();
            for (Manager m : managers) {
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
        for (Manager m : managers) {
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
                    %s""".formatted(SPEC, m.state, security, m.id, peers, ELECTION_TIMEOUT_MS == null ? ""
                    : "  electionTimeoutMs: " + ELECTION_TIMEOUT_MS + "\n"));
            m.start();
        }
        long begin = System.nanoTime();
        // three JVMs starting at once: at load 20-50 on two cores none had even reported a role after 60 s
        Manager leader = awaitActive(null, 120);
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
        for (Manager m : managers) {
            awaitFile(m.state.resolve("routing.state"), routing);
            assertThat(Files.readAllBytes(m.state.resolve("guid2index"))).as(m.id + " guid2index").isEqualTo(indices);
        }
        assertStandbysServe(leader);
        for (Manager m : managers) {
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
    private void assertStandbysServe(Manager leader) throws Exception {
        JsonNode leaderHa = get(leader.url() + "/api/v1/ha");
        assertThat(leaderHa.path("nodeId").asText()).isEqualTo(leader.id);
        assertThat(leaderHa.path("role").asText()).as(leader.id + " role").isEqualTo("LEADER");
        assertThat(status(leader.url() + "/health/ready")).isEqualTo(200);
        for (Manager m : managers) {
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
        boolean sendsTo(Manager leader) {
            return "FOLLOWER".equals(ha.path("role").asText()) && leader.url().equals(status.path("leaderRest").asText())
                    && mutation == 421 && readyStandby == 200 && metrics.contains("fabric_ha_role{role=\"follower\"} 1.0");
        }

        @Override
        public String toString() {
            return "ha " + ha + ", status " + status + ", mutation " + mutation + " " + mutationBody + " (Location "
                    + location + "), ready " + ready + ", ready-standby " + readyStandby;
        }
    }

    private StandbyRound standbyRound(Manager m) throws IOException, InterruptedException {
        JsonNode ha = get(m.url() + "/api/v1/ha");
        JsonNode st = get(m.url() + "/api/v1/status");
        HttpResponse<String> reroute = http.send(HttpRequest.newBuilder(URI.create(m.url() + "/api/v1/reroute"))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (reroute.statusCode() != 421) {
            // the one other answer a standby gives a mutation: 503 while it knows no active manager, and it says so
            assertThat(reroute.statusCode()).as("a mutation on standby " + m.id + ": " + reroute.body()).isEqualTo(503);
            assertThat(JSON.readTree(reroute.body()).path("leaderRest").isNull())
                    .as("a 503 from standby " + m.id + " names no leader: " + reroute.body()).isTrue();
        }
        return new StandbyRound(ha, st, reroute.statusCode(), reroute.body(),
                reroute.headers().firstValue("Location").orElse(null), status(m.url() + "/health/ready"),
                status(m.url() + "/health/ready-standby"), text(m.url() + "/metrics"));
    }

    /** {@code fabric_southbound_tls_completed_total} of a member's {@code /metrics}, by {@code kind}. */
    private Map<String, Double> tlsHandshakes(Manager m) throws Exception {
        Map<String, Double> out = new java.util.TreeMap<>();
        java.util.regex.Matcher r = java.util.regex.Pattern.compile(
                "(?m)^fabric_southbound_tls_completed_total\\{kind=\"(\\w+)\"} ([0-9.Ee+-]+)$").matcher(text(m.url() + "/metrics"));
        while (r.find()) {
            out.put(r.group(1), Double.parseDouble(r.group(2)));
        }
        return out;
    }

    /** Says HELLO to a member's southbound port (plaintext: these daemons run insecure); the ERROR it answers. */
    private static String helloAnswer(Manager m) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", m.southboundPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(RawFrames.frame(new Message.Hello(1, 2, 2, 0x3000000000000001L, 1, 8, 65_536, 0, 0,
                    TableHash.EMPTY, "probe")));
            Message.ErrorReport e = RawFrames.lastError(RawFrames.readUntilClosed(s));
            return e.errorCode().map(Enum::name).orElse("?") + " " + e.message();
        }
    }

    /**
     * kill -9 of the leader, with mutual TLS on the southbound and the Raft port as deployed with certificates: a
     * standby takes over without pushing or renumbering, the agents resume their TLS sessions, and the killed member
     * comes back as a standby. (The same failover in plaintext is part of {@link #aHeldSwitchAndAQuarantinedLinkSurviveALeaderKill}
     * and {@link #aSpineThatDiesWhileThereIsNoLeaderIsRoutedAroundByTheNextLeader}.)
     */
    @Test
    void killingTheLeaderUnderMutualTlsTakesOverWithoutPushingOrRenumbering() throws Exception {
        killTheLeader(startGroupAndFabric(true));
        for (Manager m : managers) {
            assertThat(Files.readString(dir.resolve(m.id + "-" + 1 + ".err")) + String.join("\n", m.lines))
                    .as(m.id + "'s output").doesNotContain("WITHOUT TLS");
        }
    }

    private void killTheLeader(Manager first) throws Exception {
        Manager leader = first;
        byte[] routing = Files.readAllBytes(leader.state.resolve("routing.state"));
        int kills = Boolean.getBoolean("fm.bench") ? Integer.getInteger("fm.ha.kills", 10) : 1;
        List<Long> failoverMs = new ArrayList<>();
        for (int k = 0; k < kills; k++) {
            // a member may have been elected since the last round without a kill (a leader that heard from no
            // follower for two election timeouts steps down, e.g. while the restarted member's JVM starts on a
            // loaded host): kill the manager that is active now, converged with nothing pushed
            Manager current = awaitActive(null, 60);
            boolean takenOver = k > 0 || current != leader;
            if (current != leader) {
                System.out.println("ha round " + (k + 1) + ": " + current.id + " took over from " + leader.id
                        + " without a kill (election: " + lastRole(current) + ")");
                leader = current;
            }
            JsonNode before = awaitConverged(leader, 60);
            if (takenOver) {
                assertThat(before.at("/push/totalBlocks").asLong()).as("blocks pushed by " + leader.id).isZero();
            }
            long begin = System.nanoTime();
            leader.process.destroyForcibly(); // SIGKILL: no goodbye to agents or peers
            leader.process.waitFor(30, TimeUnit.SECONDS);
            Manager dead = leader;
            leader = awaitActive(dead, 60);
            long activeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
            Manager elected = leader;
            Converged converged = awaitConvergedActive(dead, 60);
            leader = converged.manager();
            if (leader != elected) {
                System.out.println("ha failover " + (k + 1) + ": " + elected.id + " stepped down before it converged, "
                        + leader.id + " took over (" + lastRole(leader) + ")");
            }
            JsonNode after = converged.status();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
            failoverMs.add(ms);
            System.out.println("ha failover " + (k + 1) + ": " + dead.id + " killed, " + leader.id + " elected after "
                    + leader.msUntil("ha " + leader.id + " LEADER", begin) + " ms, active after " + activeMs
                    + " ms, CONVERGED after " + ms + " ms; " + activationLine(leader));
            assertThat(after.at("/switches/connected").asInt()).isEqualTo(SWITCHES);
            assertThat(after.at("/tables/inSync").asInt()).isEqualTo(SWITCHES);
            assertThat(after.at("/routing/version").asLong()).as("routing version").isEqualTo(version);
            assertThat(after.at("/routing/reusedFromState").asBoolean()).as("stored routing reused").isTrue();
            assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
            assertThat(after.at("/push/totalBlocks").asLong()).as("blocks pushed by the new leader").isZero();
            assertThat(tableVersions(leader)).as("every switch's table").isEqualTo(tables);
            assertThat(Files.readAllBytes(leader.state.resolve("guid2index"))).as("destination indices").isEqualTo(indices);
            if (tls) {
                // the managers share their session-ticket keys through Raft: every agent resumes the TLS session it had
                // with the dead leader (or with the standby that held it during the election) instead of a full handshake
                Map<String, Double> kinds = tlsHandshakes(leader);
                System.out.println("ha failover " + (k + 1) + ": TLS handshakes completed by " + leader.id + "'s manager: "
                        + kinds);
                assertThat(kinds.getOrDefault("resumed", 0.0)).as("resumed TLS handshakes with the new leader")
                        .isGreaterThanOrEqualTo(SWITCHES);
                assertThat(kinds.getOrDefault("full", 0.0)).as("full TLS handshakes with the new leader").isZero();
            }
            // the killed member comes back as a standby (from its snapshot and log) and catches up
            dead.start();
            awaitLine(dead, "ha " + dead.id + " STANDBY", 60);
            awaitFile(dead.state.resolve("routing.state"), routing);
            awaitLine(dead, "hot " + dead.id + ": manager start rehearsed", 60);
        }
        try (var snapshots = Files.walk(managers[0].state.resolve("ha"))) {
            assertThat(snapshots.map(p -> p.getFileName().toString())).as("snapshots taken (ha.snapshotEvery: 2)")
                    .anyMatch(n -> n.startsWith("snapshot.") && !n.endsWith(".md5"));
        }
        Files.writeString(dir.resolve("failover-ms.txt"), failoverMs.toString());
        System.out.println("ha failover times (ms): " + failoverMs);
        assertThat(Files.readString(dir.resolve("simulate.out"))).doesNotContain("error");
    }

    /**
     * SIGSTOP of the active manager: the others elect a new leader, the agents (whose echo timeout ends the
     * paused sessions) move to it, and it converges without pushing. After SIGCONT the old leader learns the
     * higher term, steps down and closes its manager: it serves nothing more and the tables stay the new
     * leader's. (Its commits, had it sent any, would be refused by the agents: SwitchAgentFencingTest.) Then the
     * group, whole again, restarts ({@link #restartAllThree}), which needs no fresh group of its own.
     */
    @Test
    void aPausedLeaderIsDeposedAndStepsDownWhenItResumesThenAllThreeRestart() throws Exception {
        Manager old = startGroupAndFabric();
        FabricProcesses.signal(old.process.pid(), "STOP");
        Manager leader;
        try {
            leader = awaitActive(old, 60);
            JsonNode after = awaitConverged(leader, 60);
            assertThat(after.at("/routing/version").asLong()).isEqualTo(version);
            assertThat(after.at("/routing/computations").asLong()).isZero();
            assertThat(after.at("/push/totalBlocks").asLong()).as("blocks pushed by the new leader").isZero();
        } finally {
            FabricProcesses.signal(old.process.pid(), "CONT");
        }
        // it prints STANDBY once its member stopped leading and its manager is closed (it may learn the new
        // leader's id only later: the new leader's appender to it can still be backing off after the pause)
        Await.value(old.id + " stepping down after SIGCONT", Duration.ofSeconds(60), () -> lastRole(old),
                role -> role.startsWith("ha " + old.id + " STANDBY"));
        assertThat(old.process.isAlive()).isTrue();
        // its manager is closed: the port now serves the standby's REST, which manages nothing (an IOException
        // between the manager's REST and the standby's counts as not yet)
        Await.value(old.id + " serving as a standby", Duration.ofSeconds(60), () -> get(old.url() + "/api/v1/status"),
                deposed -> "STANDBY".equals(deposed.path("state").asText()));
        assertThat(status(old.url() + "/health/ready")).as("the deposed member is not ready as a manager").isEqualTo(503);
        JsonNode now = awaitConverged(leader, 30);
        assertThat(now.at("/push/totalBlocks").asLong()).isZero();
        assertThat(tableVersions(leader)).as("every switch's table").isEqualTo(tables);
        assertThat(Files.readAllBytes(leader.state.resolve("guid2index"))).isEqualTo(indices);
        restartAllThree();
    }

    /**
     * What waits for an admin or for a stable link survives a leader kill: a switch held pending by the first
     * leader is held by the next one too (its reason says it was held before, not judged afresh), and a link
     * quarantined as flapping stays out of the fabric, so the new leader reuses the stored routing (computed
     * without the link) and pushes nothing.
     */
    @Test
    void aHeldSwitchAndAQuarantinedLinkSurviveALeaderKill() throws Exception {
        Manager leader = startGroupAndFabric();
        long rogue = 0x3000000000000002L;
        assertThat(pendingReason(leader, rogue)).as("outside the expected PGFT, after discovery").contains("outside the expected");
        org.fabricmanager.topology.Fabric fabric = PgftGenerator.generate(org.fabricmanager.topology.PgftSpec.parse(SPEC));
        org.fabricmanager.topology.Link flapping = fabric.links().stream()
                .filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst().orElseThrow();
        // threshold + 1 downs within the flap window (defaults: 3 and 60 s; the quarantine lasts 120 s)
        for (int i = 0; i < 4; i++) {
            command("link down " + Guids.format(flapping.a()) + " " + flapping.aPort());
            command("link up " + Guids.format(flapping.a()) + " " + flapping.aPort());
        }
        Await.value("both ends of " + flapping + " quarantined", Duration.ofSeconds(60),
                () -> get(leader.url() + "/api/v1/faults").path("quarantined").size(), ends -> ends >= 2);
        JsonNode quarantined = awaitConverged(leader, 60);
        assertThat(routedLinks(leader)).as("routed without the quarantined link").isEqualTo(fabric.links().size() - 1);
        Map<String, Long> held = tableVersions(leader);
        // the routing without the link is written a second after its push converged (an earlier one is on disk)
        long withoutLink = quarantined.at("/routing/version").asLong();
        Await.value("routing v" + withoutLink + " stored", Duration.ofSeconds(30),
                () -> new RoutingStateStore(leader.state).load().map(RoutingState::version).orElse(-1L),
                stored -> stored == withoutLink);
        for (Path file : List.of(leader.state.resolve("pending-switches"), leader.state.resolve("flap-quarantine"),
                leader.state.resolve("routing.state"))) {
            awaitStored(file);
            byte[] content = Files.readAllBytes(file);
            for (Manager m : managers) {
                awaitFile(m.state.resolve(file.getFileName()), content);
            }
        }

        leader.process.destroyForcibly();
        leader.process.waitFor(30, TimeUnit.SECONDS);
        Manager next = awaitActive(leader, 60);
        JsonNode after = awaitConverged(next, 60);
        assertThat(get(next.url() + "/api/v1/faults").path("quarantined")).as("the flapping link's two ends").hasSize(2);
        assertThat(after.at("/routing/version").asLong()).as("the routing without the link, reused")
                .isEqualTo(quarantined.at("/routing/version").asLong());
        assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
        assertThat(after.at("/push/totalBlocks").asLong()).as("the link is not routed back in").isZero();
        assertThat(tableVersions(next)).isEqualTo(held);
        assertThat(routedLinks(next)).isEqualTo(fabric.links().size() - 1);
        assertThat(pendingReason(next, rogue)).as("held by the next leader as before")
                .startsWith(org.fabricmanager.daemon.registry.AdmissionPolicy.HELD).contains("outside the expected");
        assertThat(get(next.url() + "/api/v1/status").at("/switches/connected").asInt()).isEqualTo(SWITCHES);
    }

    /**
     * Connects a switch with GUID {@code guid} (all ports down) to {@code m}'s manager, which holds it pending;
     * the reason {@code /api/v1/switches/pending} gives while its session is open.
     */
    private String pendingReason(Manager m, long guid) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", m.southboundPort)) {
            s.setSoTimeout(10_000);
            RawFrames.send(s, new Message.Hello(1, 2, 2, guid, 1, 8, 65_536, 0, 0, TableHash.EMPTY, "rogue"));
            assertThat(RawFrames.readFrame(s)).isInstanceOf(Message.HelloReply.class);
            List<org.fabricmanager.southbound.PortRecord> ports = new ArrayList<>();
            for (int p = 1; p <= 8; p++) {
                ports.add(org.fabricmanager.southbound.PortRecord.down(p));
            }
            RawFrames.send(s, new Message.PortInfo(2, ports));
            return Await.value("switch " + Guids.format(guid) + " pending on " + m.id, Duration.ofSeconds(30), () -> {
                for (JsonNode p : get(m.url() + "/api/v1/switches/pending")) {
                    if (p.path("guid").asText().equals(Guids.format(guid))) {
                        return p.path("reason").asText();
                    }
                }
                return null;
            }, reason -> reason != null);
        }
    }

    /** The links of the fabric {@code m}'s manager routes ({@code /api/v1/topology}). */
    private int routedLinks(Manager m) throws Exception {
        Path file = dir.resolve("topology-" + m.id + ".json");
        Files.writeString(file, text(m.url() + "/api/v1/topology"));
        return FabricJson.read(file).links().size();
    }

    /** Waits for a state file the manager writes through Raft after the event the test waited for. */
    private static void awaitStored(Path file) {
        Await.until(file + " written", Duration.ofSeconds(30), () -> Files.exists(file));
    }

    /**
     * A spine loses power while there is no leader (the leader was just killed): the next leader finds the
     * fabric as it is when the agents reconnect, re-routes it, and every live switch ends holding exactly the
     * table the {@code route} command computes for the live topology.
     */
    @Test
    void aSpineThatDiesWhileThereIsNoLeaderIsRoutedAroundByTheNextLeader() throws Exception {
        Manager old = startGroupAndFabric();
        long spine = PgftGenerator.switchGuid(2, 0);
        old.process.destroyForcibly();
        old.process.waitFor(30, TimeUnit.SECONDS);
        command("kill " + Guids.format(spine) + " power");
        Manager leader = awaitActive(old, 60);
        // expectedPgft is now incomplete: discovery ends at discovery.maxWaitMs (30 s) and routes what it found
        JsonNode after = awaitConverged(leader, 120, SWITCHES - 1);
        assertThat(after.at("/routing/version").asLong()).as("re-routed").isGreaterThan(version);
        assertThat(after.at("/routing/computations").asLong()).isPositive();
        String topology = text(leader.url() + "/api/v1/topology");
        Path live = dir.resolve("live.json");
        Files.writeString(live, topology);
        org.fabricmanager.topology.Fabric fabric = FabricJson.read(live);
        ForwardingTables expected = SystemSupport.routeCommand(fabric, dir, "live");
        assertThat(expected.switchCount()).isEqualTo(SWITCHES - 1);
        for (int s = 0; s < expected.switchCount(); s++) {
            long guid = expected.switchGuid(s);
            assertThat(guid).isNotEqualTo(spine);
            JsonNode lft = get(leader.url() + "/api/v1/switches/" + Guids.format(guid) + "/lft");
            assertThat(lft.path("inSync").asBoolean()).as("%s holds its table", Guids.format(guid)).isTrue();
            byte[] row = expected.copyRow(s);
            assertThat(lft.path("entries")).as("%s entries", Guids.format(guid)).hasSize(row.length);
            for (int d = 0; d < row.length; d++) {
                assertThat(lft.path("entries").get(d).asInt()).as("%s -> %d", Guids.format(guid), d).isEqualTo(row[d] & 0xff);
            }
        }
        assertThat(Files.readAllBytes(leader.state.resolve("guid2index"))).as("destination indices").isEqualTo(indices);
        System.out.println("ha replication, new leader's reaction to a dead spine: " + replication(leader));
    }

    /**
     * Two of three members die: the survivor cannot be elected, starts no manager, tells why on REST, and
     * nothing is pushed. One member back makes a majority: a leader is elected and converges from the
     * replicated state, pushing nothing, because the switches kept their tables.
     */
    @Test
    void withoutAMajorityNothingIsManagedAndOneMemberBackRestoresIt() throws Exception {
        Manager leader = startGroupAndFabric();
        Manager standby = leader == managers[0] ? managers[1] : managers[0];
        Manager survivor = java.util.Arrays.stream(managers).filter(m -> m != leader && m != standby).findFirst().orElseThrow();
        // before the kills: the survivor says once that it campaigns, possibly before both processes are reaped
        long killed = System.nanoTime();
        leader.process.destroyForcibly();
        standby.process.destroyForcibly();
        leader.process.waitFor(30, TimeUnit.SECONDS);
        standby.process.waitFor(30, TimeUnit.SECONDS);
        JsonNode st = Await.value(survivor.id + " forgetting the dead leader", Duration.ofSeconds(60),
                () -> get(survivor.url() + "/api/v1/status"), status -> status.path("leaderId").isNull());
        assertThat(st.path("state").asText()).isEqualTo("STANDBY");
        assertThat(st.at("/ha/role").asText()).isNotEqualTo("LEADER");
        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(survivor.url() + "/health/ready-standby"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("majority");
        HttpResponse<String> reroute = http.send(HttpRequest.newBuilder(URI.create(survivor.url() + "/api/v1/reroute"))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(reroute.statusCode()).isEqualTo(503);
        assertThat(reroute.body()).contains("no active manager is known");
        // it asks for votes (its election timeout passed without a leader) and gets no majority: each candidacy fails
        // within milliseconds, and the member says it campaigns from the second on (LoneMemberCampaignTest)
        Await.value(survivor.id + " campaigning alone", Duration.ofSeconds(60), () -> lastRole(survivor),
                role -> survivor.msUntil("ha " + survivor.id + " CANDIDATE", killed) >= 0);
        assertThat(survivor.lines).noneMatch(l -> l.startsWith("ha " + survivor.id + " ACTIVE"));
        assertThat(helloAnswer(survivor)).isEqualTo("NOT_LEADER ");

        long restarted = System.nanoTime();
        standby.start();
        awaitActive(leader, 90);
        // until the restarted member's Raft server ran there was no majority: the survivor led at no moment of it
        long majorityBack = restarted + TimeUnit.MILLISECONDS.toNanos(standby.msUntil("ha " + standby.id + " started", restarted));
        assertThat(survivor.timed).filteredOn(line -> line.getKey() >= killed && line.getKey() < majorityBack)
                .extracting(Map.Entry::getValue).as("%s's lines while it was alone", survivor.id)
                .noneMatch(l -> l.startsWith("ha " + survivor.id + " LEADER") || l.startsWith("ha " + survivor.id + " ACTIVE"));
        // as after the other kills, the member elected first may step down on a loaded host before it converged:
        // whichever is active is the one waited for (once, the first stayed DISCOVERING without a switch for 60 s)
        Converged converged = awaitConvergedActive(leader, 60);
        Manager next = converged.manager();
        JsonNode after = converged.status();
        assertThat(after.at("/routing/version").asLong()).isEqualTo(version);
        assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
        assertThat(after.at("/push/totalBlocks").asLong()).as("the switches kept their tables").isZero();
        assertThat(tableVersions(next)).isEqualTo(tables);
        assertThat(Files.readAllBytes(next.state.resolve("guid2index"))).isEqualTo(indices);
    }

    /**
     * All three members stop (SIGTERM) and start again: the group elects a leader from its logs and snapshots,
     * which reuses the stored routing (no computation), keeps every destination index and pushes nothing. The
     * group is whole and converged on the routing and tables of its first start, with nothing pushed since.
     */
    private void restartAllThree() throws Exception {
        for (Manager m : managers) {
            m.process.destroy();
        }
        for (Manager m : managers) {
            assertThat(m.process.waitFor(90, TimeUnit.SECONDS)).as(m.id + " stops on SIGTERM").isTrue();
        }
        for (Manager m : managers) {
            m.start();
        }
        Manager leader = awaitActive(null, 90);
        JsonNode after = awaitConverged(leader, 90);
        assertThat(after.at("/routing/version").asLong()).isEqualTo(version);
        assertThat(after.at("/routing/reusedFromState").asBoolean()).as("stored routing reused").isTrue();
        assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
        assertThat(after.at("/push/totalBlocks").asLong()).as("blocks pushed after the restart").isZero();
        assertThat(tableVersions(leader)).isEqualTo(tables);
        for (Manager m : managers) {
            assertThat(Files.readAllBytes(m.state.resolve("guid2index"))).as(m.id + " guid2index").isEqualTo(indices);
        }
        assertStandbysServe(leader);
    }

    /** The new manager's own account of its start (HaManager's "active in term" log line). */
    private String activationLine(Manager m) throws IOException {
        Path err = dir.resolve(m.id + "-" + m.starts + ".err");
        String found = "";
        for (String l : Files.readAllLines(err, StandardCharsets.UTF_8)) {
            int at = l.indexOf("active in term");
            if (at >= 0) {
                found = l.substring(at);
            }
        }
        return found;
    }

    /**
     * What a manager committed through Raft, from its /metrics: per state file, commits, bytes and mean commit
     * time (submission to committed by a majority and applied on the leader).
     */
    private String replication(Manager m) throws Exception {
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
    private void command(String line) throws Exception {
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

    private Manager awaitActive(Manager not, int seconds) {
        try {
            return Await.value("an active manager" + (not == null ? "" : " other than " + not), Duration.ofSeconds(seconds),
                    () -> active(not), m -> m != null);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; see " + dir + "; " + whereEachStands(), e);
        }
    }

    /** The member whose manager is active now, never {@code not}; {@code null} if none. */
    private Manager active(Manager not) {
        for (Manager m : managers) {
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
        for (Manager m : managers) {
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

    private static String lastRole(Manager m) {
        String last = "";
        for (String l : m.lines) {
            if (l.startsWith("ha ")) {
                last = l;
            }
        }
        return last;
    }

    /** Waits until {@code m}'s current run printed a line starting with {@code prefix}. */
    private static void awaitLine(Manager m, String prefix, int seconds) {
        Await.value(m.id + " printing '" + prefix + "'", Duration.ofSeconds(seconds), () -> List.copyOf(m.lines),
                lines -> lines.stream().anyMatch(l -> l.startsWith(prefix)));
    }

    /** Waits until {@code file} holds {@code content} (a state file replicated through Raft). */
    private static void awaitFile(Path file, byte[] content) {
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

    private JsonNode awaitConverged(Manager m, int seconds) {
        return awaitConverged(m, seconds, SWITCHES);
    }

    private JsonNode awaitConverged(Manager m, int seconds, int switches) {
        return Await.value(m.id + " CONVERGED on " + switches + " switches", Duration.ofSeconds(seconds), () -> status(m),
                last -> converged(last, switches));
    }

    /**
     * The manager active and converged on every switch, never {@code not}. On an overloaded host the member elected
     * after a kill may step down before it converged (it heard from no majority within two election timeouts) and
     * another take over: the one active at each poll is the one waited for, and what the caller asserts of a
     * takeover (nothing pushed, nothing computed, nothing renumbered) holds for whichever member that is.
     */
    private Converged awaitConvergedActive(Manager not, int seconds) {
        try {
            return Await.value("a manager other than " + not + " active and CONVERGED", Duration.ofSeconds(seconds),
                    () -> {
                        Manager m = active(not);
                        return new Converged(m, m == null ? null : status(m));
                    }, c -> converged(c.status(), SWITCHES));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; " + whereEachStands(), e);
        }
    }

    /** A manager and the status in which it reported every switch in sync. */
    private record Converged(Manager manager, JsonNode status) {
    }

    /** The member's status, or {@code null} while its REST port does not answer. */
    private JsonNode status(Manager m) {
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

    private Map<String, Long> tableVersions(Manager m) throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (JsonNode s : get(m.url() + "/api/v1/switches")) {
            out.put(s.path("guid").asText(), s.path("tableVersion").asLong());
        }
        return out;
    }

    private int status(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    private String text(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private JsonNode get(String url) throws IOException, InterruptedException {
        // 10 s as the other requests here: at load 40-140 one /api/v1/ha took more than 5 s
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + ": " + r.statusCode());
        }
        return JSON.readTree(r.body());
    }
}
