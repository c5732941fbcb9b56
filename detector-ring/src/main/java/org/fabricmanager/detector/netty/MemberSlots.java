package org.fabricmanager.detector.netty;

import java.util.Arrays;

/**
 * Dense slot numbers 0, 1, 2… for the ring members one member actually deals with (its window, its overlay
 * peers, whoever sent it a datagram), so that what it keeps per peer lives in arrays of that many entries
 * rather than one entry per ring member: at 5,121 members a member deals with a few dozen, and a simulator
 * runs thousands of members in one process. Open addressing over member indices; a member keeps its slot
 * for good (members never leave a ring's numbering). Not thread-safe (the member's event loop).
 */
final class MemberSlots {
    private static final int EMPTY = -1;

    /** Member index per hash bucket, or EMPTY. */
    private int[] keys;
    /** The slot of the member in the same bucket. */
    private int[] slotOf;
    /** The member of each slot, in the order they were added. */
    private int[] members;
    private int size;

    MemberSlots(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new int[capacity];
        Arrays.fill(keys, EMPTY);
        slotOf = new int[capacity];
        members = new int[Math.max(4, expected)];
    }

    /** Members that have a slot. */
    int size() {
        return size;
    }

    /** The member holding {@code slot} (0 ≤ slot &lt; {@link #size()}). */
    int member(int slot) {
        return members[slot];
    }

    /** The slot of {@code member}, or -1 when it has none. */
    int find(int member) {
        if (member < 0) {
            return -1; // never added, and EMPTY marks a free bucket
        }
        int i = probe(member);
        return keys[i] == member ? slotOf[i] : -1;
    }

    /** The slot of {@code member} (≥ 0), given the next free one if it had none: then it equals the old {@link #size()}. */
    int add(int member) {
        if (member < 0) {
            throw new IllegalArgumentException("negative member " + member);
        }
        int i = probe(member);
        if (keys[i] == member) {
            return slotOf[i];
        }
        int slot = size++;
        keys[i] = member;
        slotOf[i] = slot;
        if (slot == members.length) {
            members = Arrays.copyOf(members, slot * 2);
        }
        members[slot] = member;
        if (size * 2 > keys.length) {
            rehash();
        }
        return slot;
    }

    /** The bucket holding {@code member}, or the empty one where it would go (the table is never full). */
    private int probe(int member) {
        int mask = keys.length - 1;
        int i = bucket(member, mask);
        while (keys[i] != member && keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void rehash() {
        int[] oldKeys = keys;
        int[] oldSlots = slotOf;
        keys = new int[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        slotOf = new int[keys.length];
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != EMPTY) {
                int i = bucket(oldKeys[j], mask);
                while (keys[i] != EMPTY) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                slotOf[i] = oldSlots[j];
            }
        }
    }

    private static int bucket(int member, int mask) {
        return (member * 0x9E3779B9 >>> 7) & mask;
    }
}
