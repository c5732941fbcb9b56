package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three Raft members in this JVM (plaintext): when the leader's member ends, the member that campaigns on its
 * behalf ({@link HaNode#campaign}) is the next leader, in a later term, with the committed state; a member asked to
 * campaign for a leader it does not follow, or for a term that is over, does nothing. A drain the leader's manager
 * stored is the next leader's: its manager starts with the element drained.
 */
class HaNodeCampaignTest {
    /** Long enough that no member's own timeout elects it before the campaign does. */
    private static final int ELECTION_MS = 3_000;

    @TempDir
    Path dir;
    @RegisterExtension
    final HaMembers.Nodes nodes = new HaMembers.Nodes();

    @Test
    void theMemberThatCampaignsForAGoneLeaderLeadsTheNextTerm() throws Exception {
        HaMembers.start(dir, ELECTION_MS, nodes, new org.fabricmanager.pki.TlsMaterial[3]);
        HaNode leader = awaitLeader(nodes);
        long term = leader.view().term();
        leader.write(term, LeaderEndpoints.FILE, "before".getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
        PortRef drainedSwitch = new PortRef(0x1000000300000002L, 0);
        PortRef drainedLink = new PortRef(0x1000000300000004L, 7);
        Drains leaderDrains = new Drains(new DrainStore(dir.resolve(leader.nodeId()), leader.files(term)));
        leaderDrains.drain(drainedSwitch, 1_000);
        leaderDrains.drain(drainedLink, 2_000);
        List<HaNode> others = new ArrayList<>(nodes);
        others.remove(leader);
        for (HaNode f : others) {
            await(f.nodeId() + " applies the write", () -> Files.exists(dir.resolve(f.nodeId()).resolve(LeaderEndpoints.FILE)));
            assertThat(f.campaign("n9", term)).as("not its leader").isFalse();
            assertThat(f.campaign(leader.nodeId(), term - 1)).as("a term that is over").isFalse();
        }
        assertThat(leader.campaign(leader.nodeId(), term)).as("the leader does not campaign against itself").isFalse();

        leader.close(); // its process ends
        nodes.remove(leader);
        String next = Campaigns.campaigner(List.of("n1", "n2", "n3"), leader.nodeId());
        HaNode campaigner = others.stream().filter(n -> n.nodeId().equals(next)).findFirst().orElseThrow();
        assertThat(campaigner.campaign(leader.nodeId(), term)).as("%s campaigns", next).isTrue();

        HaNode elected = awaitLeader(others);
        assertThat(elected.nodeId()).isEqualTo(next);
        assertThat(elected.view().term()).isGreaterThan(term);
        assertThat(elected.campaign(leader.nodeId(), term)).as("once elected, no second campaign").isFalse();
        DrainStore electedStore = new DrainStore(dir.resolve(elected.nodeId()), StateFiles.LOCAL);
        await(elected.nodeId() + " applies the drains", () -> electedStore.load().size() == 2);
        Drains takenOver = new Drains(electedStore);
        assertThat(takenOver.view()).as("the drains the deposed leader stored")
                .containsExactly(Map.entry(drainedSwitch, 1_000L), Map.entry(drainedLink, 2_000L));
        assertThat(takenOver.isSwitchDrained(drainedSwitch.guid())).isTrue();
        assertThat(takenOver.isLinkDrained(drainedLink.guid(), drainedLink.port())).isTrue();
        elected.write(elected.view().term(), LeaderEndpoints.FILE, "after".getBytes(StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS);
        for (HaNode f : others) {
            await(f.nodeId() + " applies the new leader's write", () -> {
                try {
                    return Files.readString(dir.resolve(f.nodeId()).resolve(LeaderEndpoints.FILE)).equals("after");
                } catch (java.io.IOException e) {
                    return false;
                }
            });
        }
    }

    private static HaNode awaitLeader(List<HaNode> among) {
        return HaLeaders.awaitReady(among, Duration.ofSeconds(30));
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(30), condition);
    }
}
