package org.fabricmanager.detector.netty;

import java.util.Arrays;
import org.fabricmanager.detector.IntLongMap;

/**
 * Dense slot numbers 0, 1, 2… for the ring members one member actually deals with (its window, its overlay
 * peers, whoever sent it a datagram), so that what it keeps per peer lives in arrays of that many entries
 * rather than one entry per ring member: at 5,121 members a member deals with a few dozen, and a simulator
 * runs thousands of members in one process. An {@link IntLongMap} from member index to slot; a member keeps its slot
 * for good (members never leave a ring's numbering). Not thread-safe (the member's event loop).
 */
final class MemberSlots {
    /** Member index to its slot. */
    private final IntLongMap slotOf;
    /** The member of each slot, in the order they were added. */
    private int[] members;

    MemberSlots(int expected) {
        slotOf = new IntLongMap(Math.max(4, expected));
        members = new int[Math.max(4, expected)];
    }

    /** Members that have a slot. */
    int size() {
        return slotOf.size();
    }

    /** The member holding {@code slot} (0 ≤ slot &lt; {@link #size()}). */
    int member(int slot) {
        return members[slot];
    }

    /** The slot of {@code member}, or -1 when it has none. */
    int find(int member) {
        return (int) slotOf.get(member, -1);
    }

    /** The slot of {@code member} (≥ 0), given the next free one if it had none: then it equals the old {@link #size()}. */
    int add(int member) {
        if (member < 0) {
            throw new IllegalArgumentException("negative member " + member);
        }
        int slot = find(member);
        if (slot >= 0) {
            return slot;
        }
        slot = size();
        slotOf.put(member, slot);
        if (slot == members.length) {
            members = Arrays.copyOf(members, slot * 2);
        }
        members[slot] = member;
        return slot;
    }
}
