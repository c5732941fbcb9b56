package org.fabricmanager.detector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.fabricmanager.detector.message.MemberStatus;
import org.junit.jupiter.api.Test;

class MembershipViewTest {

    @Test
    void entriesMoveForwardAliveThenDeadThenAliveAtTheNextIncarnation() {
        MembershipView view = new MembershipView(8);
        assertThat(view.markAlive(3, 0)).as("alive@0 is the default").isFalse();
        assertThat(view.markDead(3, 0)).isTrue();
        assertThat(view.markDead(3, 0)).as("the same failure again").isFalse();
        assertThat(view.markAlive(3, 0)).as("alive@0 is older than dead@0").isFalse();
        assertThat(view.markAlive(3, 1)).isTrue();
        assertThat(view.isDead(3)).isFalse();
        assertThat(view.incarnation(3)).isEqualTo(1);
        assertThat(view.markDead(3, 0)).as("a failure of an older incarnation").isFalse();
        assertThat(view.isDead(3)).isFalse();
        assertThat(view.markDead(3, 4)).as("a failure of a newer incarnation skips ahead").isTrue();
        assertThat(view.incarnation(3)).isEqualTo(4);
    }

    @Test
    void walksToTheNearestLiveMembersAndReportsNoneWhenAloneInTheRing() {
        MembershipView view = new MembershipView(6);
        view.markDead(1, 0);
        view.markDead(2, 0);
        view.markDead(5, 0);
        assertThat(view.previousLive(3)).isEqualTo(0);
        assertThat(view.nextLive(4)).isEqualTo(0);
        assertThat(view.previousLive(0)).isEqualTo(4);
        assertThat(view.deadMembers()).containsExactly(1, 2, 5);
        view.markDead(0, 0);
        view.markDead(4, 0);
        assertThat(view.previousLive(3)).isEqualTo(MembershipView.NONE);
        assertThat(view.nextLive(3)).isEqualTo(MembershipView.NONE);
    }

    @Test
    void digestAndEntriesDoNotDependOnTheOrderUpdatesArrive() {
        for (long seed = 1; seed <= 200; seed++) {
            Random random = new Random(seed);
            List<MemberStatus> updates = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                updates.add(new MemberStatus(random.nextInt(40), random.nextInt(4), random.nextBoolean()));
            }
            MembershipView a = apply(updates);
            Collections.shuffle(updates, random);
            MembershipView b = apply(updates);
            assertThat(b.digest()).as("seed %d", seed).isEqualTo(a.digest());
            assertThat(b.entries()).as("seed %d", seed).isEqualTo(a.entries());
            assertThat(b.deadMembers()).as("seed %d", seed).containsExactly(a.deadMembers());
        }
    }

    @Test
    void digestDiffersWhenOneEntryDiffers() {
        MembershipView a = new MembershipView(100);
        MembershipView b = new MembershipView(100);
        a.markDead(7, 0);
        b.markDead(7, 1);
        assertThat(a.digest()).isNotEqualTo(b.digest());
        assertThat(new MembershipView(100).digest()).isZero();
    }

    private static MembershipView apply(List<MemberStatus> updates) {
        MembershipView view = new MembershipView(40);
        for (MemberStatus s : updates) {
            if (s.dead()) {
                view.markDead(s.member(), s.incarnation());
            } else {
                view.markAlive(s.member(), s.incarnation());
            }
        }
        return view;
    }
}
