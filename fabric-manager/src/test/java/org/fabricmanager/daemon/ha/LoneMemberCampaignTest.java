package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member of three whose peers are down campaigns and gets no majority. Each candidacy fails within milliseconds
 * (the peers' vote requests fail at once) and Ratis makes the member a follower again until its next election
 * timeout, so a role loop that looks at the role now and then mostly sees a follower without a leader. The member
 * still says it is campaigning at every look taken while Ratis calls it a follower, until a second member is back and
 * a leader is elected.
 */
class LoneMemberCampaignTest {
    private static final int ELECTION_MS = 300;

    @TempDir
    Path dir;
    @RegisterExtension
    final HaMembers.Nodes nodes = new HaMembers.Nodes();

    @Test
    void aMemberWithoutAMajoritySaysItCampaignsAtEveryLookUntilASecondMemberIsBack() throws Exception {
        List<String> peers = HaMembers.peers(3);
        HaNode lone = HaMembers.member(dir, ELECTION_MS, peers, 1, null);
        nodes.add(lone);
        lone.start();
        GroupView group = new GroupView(lone, new Campaigns(lone, () -> { }), ELECTION_MS, () -> false);
        Await.value("n1 campaigning alone", Duration.ofSeconds(30), () -> look(group, lone),
                line -> line.startsWith("CANDIDATE term "));
        long campaigns = lone.view().leaderlessCampaigns();
        List<String> lines = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        // ten looks, each once one more candidacy is over and Ratis made n1 a follower again: what a role loop that
        // looks now and then mostly sees
        long seen = campaigns;
        for (int i = 0; i < 10; i++) {
            long before = seen;
            HaNode.View v = Await.value("candidacy " + (i + 1) + " over, n1 a follower again", Duration.ofSeconds(30),
                    lone::view, w -> w.leaderlessCampaigns() > before && "FOLLOWER".equals(w.role()));
            seen = v.leaderlessCampaigns();
            group.seen(v);
            lines.add(group.roleLine());
            reasons.add(group.standbyUnready());
        }
        assertThat(lines).as("n1's role at each look").allMatch(l -> l.startsWith("CANDIDATE term ") && !l.contains("leader"));
        assertThat(reasons).as("n1 not ready as a standby, and why").allMatch(r -> r.contains("majority of 3 members"));
        assertThat(lone.view().leaderlessCampaigns()).as("candidacies begun meanwhile").isGreaterThan(campaigns);
        assertThat(lone.view().leading()).isFalse();

        HaNode back = HaMembers.member(dir, ELECTION_MS, peers, 2, null);
        nodes.add(back);
        back.start();
        HaLeaders.awaitReady(nodes, Duration.ofSeconds(30));
        String led = Await.value("n1 following or leading", Duration.ofSeconds(30), () -> look(group, lone),
                line -> line.startsWith("LEADER term ") || line.matches("STANDBY term \\d+, leader n2"));
        assertThat(group.campaigning()).as("n1 campaigning once " + led).isFalse();
    }

    /** One look of the role loop: the member's view, and the role {@code run} prints for it. */
    private static String look(GroupView group, HaNode member) throws Exception {
        group.seen(member.view());
        return group.roleLine();
    }
}
