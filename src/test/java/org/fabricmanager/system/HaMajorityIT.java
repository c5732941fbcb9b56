package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.HaMember.helloAnswer;
import static org.fabricmanager.system.HaMember.lastRole;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group of three managers ({@link HaGroup}) without a majority: two of three die, the survivor manages
 * nothing and says why, and one member back restores a leader that pushes nothing.
 */
class HaMajorityIT {
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
     * Two of three members die: the survivor cannot be elected, starts no manager, tells why on REST, and
     * nothing is pushed. One member back makes a majority: a leader is elected and converges from the
     * replicated state, pushing nothing, because the switches kept their tables.
     */
    @Test
    void withoutAMajorityNothingIsManagedAndOneMemberBackRestoresIt() throws Exception {
        HaMember leader = group.start(false);
        HaMember standby = leader == group.managers[0] ? group.managers[1] : group.managers[0];
        HaMember survivor = java.util.Arrays.stream(group.managers).filter(m -> m != leader && m != standby).findFirst().orElseThrow();
        // before the kills: the survivor says once that it campaigns, possibly before both processes are reaped
        long killed = System.nanoTime();
        leader.process.destroyForcibly();
        standby.process.destroyForcibly();
        leader.process.waitFor(30, TimeUnit.SECONDS);
        standby.process.waitFor(30, TimeUnit.SECONDS);
        JsonNode st = Await.value(survivor.id + " forgetting the dead leader", Duration.ofSeconds(60),
                () -> group.get(survivor.url() + "/api/v1/status"), status -> status.path("leaderId").isNull());
        assertThat(st.path("state").asText()).isEqualTo("STANDBY");
        assertThat(st.at("/ha/role").asText()).isNotEqualTo("LEADER");
        HttpResponse<String> ready = group.http.send(HttpRequest.newBuilder(URI.create(survivor.url() + "/health/ready-standby"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("majority");
        HttpResponse<String> reroute = group.http.send(HttpRequest.newBuilder(URI.create(survivor.url() + "/api/v1/reroute"))
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
        group.awaitActive(leader, 90);
        // until the restarted member's Raft server ran there was no majority: the survivor led at no moment of it
        long majorityBack = restarted + TimeUnit.MILLISECONDS.toNanos(standby.msUntil("ha " + standby.id + " started", restarted));
        assertThat(survivor.timed).filteredOn(line -> line.getKey() >= killed && line.getKey() < majorityBack)
                .extracting(Map.Entry::getValue).as("%s's lines while it was alone", survivor.id)
                .noneMatch(l -> l.startsWith("ha " + survivor.id + " LEADER") || l.startsWith("ha " + survivor.id + " ACTIVE"));
        // as after the other kills, the member elected first may step down on a loaded host before it converged:
        // whichever is active is the one waited for (once, the first stayed DISCOVERING without a switch for 60 s)
        HaGroup.Converged converged = group.awaitConvergedActive(leader, 60);
        HaMember next = converged.manager();
        JsonNode after = converged.status();
        assertThat(after.at("/routing/version").asLong()).isEqualTo(group.version);
        assertThat(after.at("/routing/computations").asLong()).as("no computation").isZero();
        assertThat(after.at("/push/totalBlocks").asLong()).as("the switches kept their tables").isZero();
        assertThat(group.tableVersions(next)).isEqualTo(group.tables);
        assertThat(Files.readAllBytes(next.state.resolve("guid2index"))).isEqualTo(group.indices);
    }
}
