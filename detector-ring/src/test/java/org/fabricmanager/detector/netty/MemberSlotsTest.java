package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MemberSlotsTest {

    @Test
    void slotsAreDenseStableAndAgreeWithAMapOverRandomMembers() {
        for (int seed = 0; seed < 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int ring = 1 + random.nextInt(100_000);
            MemberSlots slots = new MemberSlots(random.nextInt(40));
            Map<Integer, Integer> model = new HashMap<>();
            int operations = random.nextInt(2_000);
            for (int op = 0; op < operations; op++) {
                // members cluster like a window and its overlay peers, with some anywhere in the ring
                int member = random.nextInt(4) == 0 ? random.nextInt(ring) : random.nextInt(Math.min(ring, 64));
                if (random.nextBoolean()) {
                    int expected = model.computeIfAbsent(member, m -> model.size());
                    assertThat(slots.add(member)).as("seed %d member %d", seed, member).isEqualTo(expected);
                } else {
                    assertThat(slots.find(member)).as("seed %d member %d", seed, member)
                            .isEqualTo(model.getOrDefault(member, -1));
                }
            }
            assertThat(slots.size()).isEqualTo(model.size());
            model.forEach((member, slot) -> {
                assertThat(slots.find(member)).isEqualTo(slot);
                assertThat(slots.member(slot)).isEqualTo(member);
            });
        }
    }

    @Test
    void aNegativeMemberHasNoSlot() {
        MemberSlots slots = new MemberSlots(4);
        assertThat(slots.find(-1)).isEqualTo(-1);
        assertThatThrownBy(() -> slots.add(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(slots.size()).isZero();
    }
}
