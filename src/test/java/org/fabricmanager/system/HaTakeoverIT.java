package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.HaMember.awaitLine;
import static org.fabricmanager.system.HaMember.lastRole;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader's takeover in the group of three managers ({@link HaGroup}): kill -9 of the leader under mutual TLS
 * makes a standby the active manager, the agents reconnect to it, and it converges from the replicated state
 * without computing or pushing anything: every table and every destination index stays as it was. The failover
 * time (kill to CONVERGED on the new leader) is printed, not asserted; with -Dfm.bench=true the kill is repeated
 * ({@code fm.ha.kills}, default 10) for docs/performance.md. A paused leader is deposed the same way, and the
 * whole group restarts from its logs and snapshots.
 */
class HaTakeoverIT {
    @TempDir
    Path dir;
    private HaGroup group;

    @BeforeEach
    void group() {
        group = new HaGroup(dir);
    }

    @AfterEach
    void stop() {
        group.close();
    }

    /**
     * kill -9 of the leader, with mutual TLS on the southbound and the Raft port as deployed with certificates: a
     * standby takes over without pushing or renumbering, the agents resume their TLS sessions, and the killed member
     * comes back as a standby. (The same failover in plaintext is part of
     * {@link HaLeaderlessIT#aHeldSwitchAndAQuarantinedLinkSurviveALeaderKill} and
     * {@link HaLeaderlessIT#aSpineThatDiesWhileThereIsNoLeaderIsRoutedAroundByTheNextLeader}.)
     */
    @Test
    void killingTheLeaderUnderMutualTlsTakesOverWithoutPushingOrRenumbering() throws Exception {
        killTheLeader(group.start(true));
        for (HaMember m : group.managers) {
            assertThat(Files.readString(dir.resolve(m.id + "-" + 1 + ".err")) + String.join("\n", m.lines))
                    .as(m.id + "'s output").doesNotContain("WITHOUT TLS");
        }
    }

    private void killTheLeader(HaMember first) throws Exception {
        HaMember leader = first;
        byte[] routing = Files.readAllBytes(leader.state.resolve("routing.state"));
        int kills = Boolean.getBoolean("fm.bench") ? Integer.getInteger("fm.ha.kills", 10) : 1;
        List<Long> failoverMs = new ArrayList<>();
        for (int k = 0; k < kills; k++) {
            // a member may have been elected since the last round without a kill (a leader that heard from no
            // follower for two election timeouts steps down, e.g. while the restarted member's JVM starts on a
            // loaded host): kill the manager that is active now, converged with nothing pushed
            HaMember current = group.awaitActive(null, 60);
            boolean takenOver = k > 0 || current != leader;
            if (current != leader) {
                System.out.println("ha round " + (k + 1) + ": " + current.id + " took over from " + leader.id
                        + " without a kill (election: " + lastRole(current) + ")");
                leader = current;
            }
            JsonNode before = group.awaitConverged(leader, 60);
            if (takenOver) {
                assertThat(before.at("/push/totalBlocks").asLong()).as("blocks pushed by " + leader.id).isZero();
            }
            long begin = System.nanoTime();
            leader.process.destroyForcibly(); // SIGKILL: no goodbye to agents or peers
            leader.process.waitFor(30, TimeUnit.SECONDS);
            HaMember dead = leader;
            leader = group.awaitActive(dead, 60);
            long activeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
            HaMember elected = leader;
            HaGroup.Converged converged = group.awaitConvergedActive(dead, 60);
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
                    + " ms, CONVERGED after " + ms + " ms; " + leader.activationLine());
            assertThat(after.at("/switches/connected").asInt()).isEqualTo(HaGroup.SWITCHES);
            assertThat(after.at("/tables/inSync").asInt()).isEqualTo(HaGroup.SWITCHES);
            assertThat(after.at("/routing/version").asLong()).as("routing version").isEqualTo(group.version);
            assertThat(after.at("/routing/reusedFromState").asBoolean()).as("stored routing reused").isTrue();
            assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
            assertThat(after.at("/push/totalBlocks").asLong()).as("blocks pushed by the new leader").isZero();
            assertThat(group.tableVersions(leader)).as("every switch's table").isEqualTo(group.tables);
            assertThat(Files.readAllBytes(leader.state.resolve("guid2index"))).as("destination indices").isEqualTo(group.indices);
            if (group.tls) {
                // the managers share their session-ticket keys through Raft: every agent resumes the TLS session it had
                // with the dead leader (or with the standby that held it during the election) instead of a full handshake
                Map<String, Double> kinds = tlsHandshakes(leader);
                System.out.println("ha failover " + (k + 1) + ": TLS handshakes completed by " + leader.id + "'s manager: "
                        + kinds);
                assertThat(kinds.getOrDefault("resumed", 0.0)).as("resumed TLS handshakes with the new leader")
                        .isGreaterThanOrEqualTo(HaGroup.SWITCHES);
                assertThat(kinds.getOrDefault("full", 0.0)).as("full TLS handshakes with the new leader").isZero();
            }
            // the killed member comes back as a standby (from its snapshot and log) and catches up
            dead.start();
            awaitLine(dead, "ha " + dead.id + " STANDBY", 60);
            group.awaitFile(dead.state.resolve("routing.state"), routing);
            awaitLine(dead, "hot " + dead.id + ": manager start rehearsed", 60);
        }
        try (var snapshots = Files.walk(group.managers[0].state.resolve("ha"))) {
            assertThat(snapshots.map(p -> p.getFileName().toString())).as("snapshots taken (ha.snapshotEvery: 2)")
                    .anyMatch(n -> n.startsWith("snapshot.") && !n.endsWith(".md5"));
        }
        Files.writeString(dir.resolve("failover-ms.txt"), failoverMs.toString());
        System.out.println("ha failover times (ms): " + failoverMs);
        assertThat(Files.readString(dir.resolve("simulate.out"))).doesNotContain("error");
    }

    /**
     * A link the gray-link policy isolated is replicated with the drains and stays isolated on the next leader: kill
     * -9 of the leader after the link's errors stopped, and the new leader lists it as isolated (not as an operator's
     * drain), routes without it on the stored routing (no computation, nothing pushed) and holds it for its probation.
     */
    @Test
    void aLinkIsolatedByThePolicyIsReplicatedAndStaysIsolatedOnTheNextLeader() throws Exception {
        group.moreConfig = """
                linkHealth:
                  policy: isolate
                  pollIntervalMs: 1000
                  windowMs: 3000
                  settleMs: 0
                  probationMs: 600000
                """;
        HaMember leader = group.start(false);
        org.fabricmanager.topology.Fabric fabric = PgftGenerator.generate(PgftSpec.parse(HaGroup.SPEC));
        long leaf = PgftGenerator.switchGuid(1, 0);
        org.fabricmanager.topology.Link uplink = fabric.links().stream().filter(l -> (l.a() == leaf || l.b() == leaf)
                && fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst().orElseThrow();
        int port = uplink.a() == leaf ? uplink.aPort() : uplink.bPort();
        group.command("link errors " + Guids.format(leaf) + " " + port + " 20000");
        JsonNode isolated = Await.value("the uplink isolated", Duration.ofSeconds(60),
                () -> group.get(leader.url() + "/api/v1/drains/isolated"), list -> list.size() == 1);
        String element = isolated.get(0).path("element").asText();
        assertThat(isolated.get(0).path("figures").asText()).as("the figures that decided").contains("rxErrors");
        JsonNode routedAround = Await.value("converged without the uplink", Duration.ofSeconds(60),
                () -> group.awaitConverged(leader, 60), st -> st.at("/routing/version").asLong() > group.version);
        assertThat(routedLinks(leader)).isEqualTo(fabric.links().size() - 1);
        Path drained = leader.state.resolve("drained");
        HaGroup.awaitStored(drained);
        byte[] stored = Files.readAllBytes(drained);
        assertThat(new String(stored, java.nio.charset.StandardCharsets.UTF_8)).contains("isolated");
        for (HaMember m : group.managers) {
            HaGroup.awaitFile(m.state.resolve("drained"), stored);
        }
        Path routing = leader.state.resolve("routing.state");
        long version = routedAround.at("/routing/version").asLong();
        Await.value("routing v" + version + " stored", Duration.ofSeconds(30),
                () -> new org.fabricmanager.daemon.store.RoutingStateStore(leader.state).load()
                        .map(org.fabricmanager.daemon.store.RoutingState::version).orElse(-1L), v -> v == version);
        group.awaitStored(routing);
        Map<String, Long> held = group.tableVersions(leader);
        group.command("link errors " + Guids.format(leaf) + " " + port + " 0");

        leader.process.destroyForcibly();
        leader.process.waitFor(30, TimeUnit.SECONDS);
        HaGroup.Converged converged = group.awaitConvergedActive(leader, 60);
        HaMember next = converged.manager();
        JsonNode after = converged.status();
        assertThat(group.get(next.url() + "/api/v1/drains/isolated")).as("isolated on the next leader").hasSize(1)
                .first().satisfies(i -> assertThat(i.path("element").asText()).isEqualTo(element));
        assertThat(group.get(next.url() + "/api/v1/drains")).as("not an operator's drain").isEmpty();
        assertThat(after.at("/routing/version").asLong()).as("the routing without the link, reused").isEqualTo(version);
        assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
        assertThat(after.at("/push/totalBlocks").asLong()).as("the link is not routed back in").isZero();
        assertThat(group.tableVersions(next)).isEqualTo(held);
        assertThat(routedLinks(next)).isEqualTo(fabric.links().size() - 1);
        // the next leader's policy holds it: quiet now, yet out until its probation has passed
        assertThat(group.text(next.url() + "/metrics")).contains("fabric_link_isolated 1.0");
        assertThat(group.get(next.url() + "/api/v1/links/health")).as("the link health view on the next leader")
                .anySatisfy(l -> assertThat(l.path("isolated").asBoolean()).isTrue());
    }

    /** The links of the fabric {@code m}'s manager routes ({@code /api/v1/topology}). */
    private int routedLinks(HaMember m) throws Exception {
        Path file = dir.resolve("topology-" + m.id + ".json");
        Files.writeString(file, group.text(m.url() + "/api/v1/topology"));
        return org.fabricmanager.topology.FabricJson.read(file).links().size();
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
        HaMember old = group.start(false);
        FabricProcesses.signal(old.process.pid(), "STOP");
        HaMember leader;
        try {
            leader = group.awaitActive(old, 60);
            JsonNode after = group.awaitConverged(leader, 60);
            assertThat(after.at("/routing/version").asLong()).isEqualTo(group.version);
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
        Await.value(old.id + " serving as a standby", Duration.ofSeconds(60), () -> group.get(old.url() + "/api/v1/status"),
                deposed -> "STANDBY".equals(deposed.path("state").asText()));
        assertThat(group.status(old.url() + "/health/ready")).as("the deposed member is not ready as a manager").isEqualTo(503);
        JsonNode now = group.awaitConverged(leader, 30);
        assertThat(now.at("/push/totalBlocks").asLong()).isZero();
        assertThat(group.tableVersions(leader)).as("every switch's table").isEqualTo(group.tables);
        assertThat(Files.readAllBytes(leader.state.resolve("guid2index"))).isEqualTo(group.indices);
        restartAllThree();
    }

    /**
     * All three members stop (SIGTERM) and start again: the group elects a leader from its logs and snapshots,
     * which reuses the stored routing (no computation), keeps every destination index and pushes nothing. The
     * group is whole and converged on the routing and tables of its first start, with nothing pushed since.
     */
    private void restartAllThree() throws Exception {
        for (HaMember m : group.managers) {
            m.process.destroy();
        }
        for (HaMember m : group.managers) {
            assertThat(m.process.waitFor(90, TimeUnit.SECONDS)).as(m.id + " stops on SIGTERM").isTrue();
        }
        for (HaMember m : group.managers) {
            m.start();
        }
        HaMember leader = group.awaitActive(null, 90);
        JsonNode after = group.awaitConverged(leader, 90);
        assertThat(after.at("/routing/version").asLong()).isEqualTo(group.version);
        assertThat(after.at("/routing/reusedFromState").asBoolean()).as("stored routing reused").isTrue();
        assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
        assertThat(after.at("/push/totalBlocks").asLong()).as("blocks pushed after the restart").isZero();
        assertThat(group.tableVersions(leader)).isEqualTo(group.tables);
        for (HaMember m : group.managers) {
            assertThat(Files.readAllBytes(m.state.resolve("guid2index"))).as(m.id + " guid2index").isEqualTo(group.indices);
        }
        group.assertStandbysServe(leader);
    }

    /** {@code fabric_southbound_tls_completed_total} of a member's {@code /metrics}, by {@code kind}. */
    private Map<String, Double> tlsHandshakes(HaMember m) throws Exception {
        Map<String, Double> out = new java.util.TreeMap<>();
        java.util.regex.Matcher r = java.util.regex.Pattern.compile(
                "(?m)^fabric_southbound_tls_completed_total\\{kind=\"(\\w+)\"} ([0-9.Ee+-]+)$").matcher(group.text(m.url() + "/metrics"));
        while (r.find()) {
            out.put(r.group(1), Double.parseDouble(r.group(2)));
        }
        return out;
    }
}
