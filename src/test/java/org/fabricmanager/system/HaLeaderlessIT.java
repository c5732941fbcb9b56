package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.store.RoutingState;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.RawFrames;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group of three managers ({@link HaGroup}) while it has no leader: a held switch and a quarantined link
 * survive a leader kill, and a spine that dies before the next leader is elected is routed around by it.
 */
class HaLeaderlessIT {
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
     * What waits for an admin or for a stable link survives a leader kill: a switch held pending by the first
     * leader is held by the next one too (its reason says it was held before, not judged afresh), and a link
     * quarantined as flapping stays out of the fabric, so the new leader reuses the stored routing (computed
     * without the link) and pushes nothing.
     */
    @Test
    void aHeldSwitchAndAQuarantinedLinkSurviveALeaderKill() throws Exception {
        HaMember leader = group.start(false);
        long rogue = 0x3000000000000002L;
        assertThat(pendingReason(leader, rogue)).as("outside the expected PGFT, after discovery").contains("outside the expected");
        org.fabricmanager.topology.Fabric fabric = PgftGenerator.generate(org.fabricmanager.topology.PgftSpec.parse(HaGroup.SPEC));
        org.fabricmanager.topology.Link flapping = fabric.links().stream()
                .filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst().orElseThrow();
        // threshold + 1 downs within the flap window (defaults: 3 and 60 s; the quarantine lasts 120 s)
        for (int i = 0; i < 4; i++) {
            group.command("link down " + Guids.format(flapping.a()) + " " + flapping.aPort());
            group.command("link up " + Guids.format(flapping.a()) + " " + flapping.aPort());
        }
        Await.value("both ends of " + flapping + " quarantined", Duration.ofSeconds(60),
                () -> group.get(leader.url() + "/api/v1/faults").path("quarantined").size(), ends -> ends >= 2);
        JsonNode quarantined = group.awaitConverged(leader, 60);
        assertThat(routedLinks(leader)).as("routed without the quarantined link").isEqualTo(fabric.links().size() - 1);
        Map<String, Long> held = group.tableVersions(leader);
        // the routing without the link is written a second after its push converged (an earlier one is on disk)
        long withoutLink = quarantined.at("/routing/version").asLong();
        Await.value("routing v" + withoutLink + " stored", Duration.ofSeconds(30),
                () -> new RoutingStateStore(leader.state).load().map(RoutingState::version).orElse(-1L),
                stored -> stored == withoutLink);
        for (Path file : List.of(leader.state.resolve("pending-switches"), leader.state.resolve("flap-quarantine"),
                leader.state.resolve("routing.state"))) {
            group.awaitStored(file);
            byte[] content = Files.readAllBytes(file);
            for (HaMember m : group.managers) {
                group.awaitFile(m.state.resolve(file.getFileName()), content);
            }
        }

        leader.process.destroyForcibly();
        leader.process.waitFor(30, TimeUnit.SECONDS);
        HaMember next = group.awaitActive(leader, 60);
        JsonNode after = group.awaitConverged(next, 60);
        assertThat(group.get(next.url() + "/api/v1/faults").path("quarantined")).as("the flapping link's two ends").hasSize(2);
        assertThat(after.at("/routing/version").asLong()).as("the routing without the link, reused")
                .isEqualTo(quarantined.at("/routing/version").asLong());
        assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
        assertThat(after.at("/push/totalBlocks").asLong()).as("the link is not routed back in").isZero();
        assertThat(group.tableVersions(next)).isEqualTo(held);
        assertThat(routedLinks(next)).isEqualTo(fabric.links().size() - 1);
        assertThat(pendingReason(next, rogue)).as("held by the next leader as before")
                .startsWith(org.fabricmanager.daemon.registry.AdmissionPolicy.HELD).contains("outside the expected");
        assertThat(group.get(next.url() + "/api/v1/status").at("/switches/connected").asInt()).isEqualTo(HaGroup.SWITCHES);
    }

    /**
     * A spine loses power while there is no leader (the leader was just killed): the next leader finds the
     * fabric as it is when the agents reconnect and repairs the stored routing for it, moving exactly the entries
     * the loss forces (as a restart does); every live switch ends holding its table, none of them towards the spine.
     */
    @Test
    void aSpineThatDiesWhileThereIsNoLeaderIsRoutedAroundByTheNextLeader() throws Exception {
        HaMember old = group.start(false);
        long spine = PgftGenerator.switchGuid(2, 0);
        old.process.destroyForcibly();
        old.process.waitFor(30, TimeUnit.SECONDS);
        group.command("kill " + Guids.format(spine) + " power");
        HaMember leader = group.awaitActive(old, 60);
        // expectedPgft is now incomplete: discovery ends at discovery.maxWaitMs (30 s) and routes what it found
        JsonNode after = group.awaitConverged(leader, 120, HaGroup.SWITCHES - 1);
        assertThat(after.at("/routing/version").asLong()).as("re-routed").isGreaterThan(group.version);
        assertThat(after.at("/routing/computations").asLong()).isPositive();
        assertThat(after.at("/routing/valid").asBoolean()).as("every leaf pair routed").isTrue();
        assertThat(after.at("/routing/repaired").asBoolean()).as("the stored routing repaired").isTrue();
        assertThat(after.at("/routing/changedEntries").asLong()).as("the entries the loss forces, no more")
                .isEqualTo(after.at("/routing/minimumEntries").asLong()).isPositive();
        Map<Long, Integer> portToSpine = new java.util.HashMap<>();
        for (var l : PgftGenerator.generate(org.fabricmanager.topology.PgftSpec.parse(HaGroup.SPEC)).links()) {
            if (l.a() == spine) {
                portToSpine.put(l.b(), l.bPort());
            } else if (l.b() == spine) {
                portToSpine.put(l.a(), l.aPort());
            }
        }
        JsonNode switches = group.get(leader.url() + "/api/v1/switches");
        int live = 0;
        for (JsonNode sw : switches) {
            long guid = Guids.parse(sw.path("guid").asText());
            if (guid == spine) {
                continue;
            }
            live++;
            JsonNode lft = group.get(leader.url() + "/api/v1/switches/" + Guids.format(guid) + "/lft");
            assertThat(lft.path("inSync").asBoolean()).as("%s holds its table", Guids.format(guid)).isTrue();
            Integer dead = portToSpine.get(guid);
            for (JsonNode e : lft.path("entries")) {
                assertThat(dead == null || e.asInt() != dead).as("%s routes towards the dead spine", Guids.format(guid))
                        .isTrue();
            }
        }
        assertThat(live).isEqualTo(HaGroup.SWITCHES - 1);
        assertThat(Files.readAllBytes(leader.state.resolve("guid2index"))).as("destination indices").isEqualTo(group.indices);
        System.out.println("ha replication, new leader's reaction to a dead spine: " + group.replication(leader));
    }

    /**
     * Connects a switch with GUID {@code guid} (all ports down) to {@code m}'s manager, which holds it pending;
     * the reason {@code /api/v1/switches/pending} gives while its session is open.
     */
    private String pendingReason(HaMember m, long guid) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", m.southboundPort)) {
            s.setSoTimeout(10_000);
            RawFrames.send(s, new Message.Hello(1, 3, 3, guid, 1, 8, 65_536, 0, 0, TableHash.EMPTY, "rogue"));
            assertThat(RawFrames.readFrame(s)).isInstanceOf(Message.HelloReply.class);
            List<org.fabricmanager.southbound.PortRecord> ports = new ArrayList<>();
            for (int p = 1; p <= 8; p++) {
                ports.add(org.fabricmanager.southbound.PortRecord.down(p));
            }
            RawFrames.send(s, new Message.PortInfo(2, ports));
            return Await.value("switch " + Guids.format(guid) + " pending on " + m.id, Duration.ofSeconds(30), () -> {
                for (JsonNode p : group.get(m.url() + "/api/v1/switches/pending")) {
                    if (p.path("guid").asText().equals(Guids.format(guid))) {
                        return p.path("reason").asText();
                    }
                }
                return null;
            }, reason -> reason != null);
        }
    }

    /** The links of the fabric {@code m}'s manager routes ({@code /api/v1/topology}). */
    private int routedLinks(HaMember m) throws Exception {
        Path file = dir.resolve("topology-" + m.id + ".json");
        Files.writeString(file, group.text(m.url() + "/api/v1/topology"));
        return FabricJson.read(file).links().size();
    }
}
