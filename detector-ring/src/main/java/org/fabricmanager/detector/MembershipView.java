package org.fabricmanager.detector;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.detector.message.MemberStatus;

/**
 * What one member believes about every member: the highest incarnation it knows and whether that
 * incarnation is dead (the dead set D). Only non-default entries are stored (alive at incarnation 0
 * is the default), so a view costs O(entries), not O(n), which lets the simulator hold 16,384 of them.
 * Entries only move forward in the order alive@i &lt; dead@i &lt; alive@i+1, which makes merging two views
 * idempotent and commutative.
 */
final class MembershipView {
    static final int NONE = -1;

    private final int size;
    /** member -> incarnation << 1 | dead. */
    private final IntLongMap entries = new IntLongMap(16);
    private int deadCount;
    private long digest;
    private int[] deadCache = new int[0];
    private boolean deadCacheValid = true;
    private List<MemberStatus> entryCache = List.of();
    private boolean entryCacheValid = true;

    MembershipView(int size) {
        this.size = size;
    }

    long incarnation(int member) {
        return entries.get(member, 0L) >>> 1;
    }

    boolean isDead(int member) {
        return (entries.get(member, 0L) & 1L) != 0;
    }

    int deadCount() {
        return deadCount;
    }

    /** Records member dead at {@code incarnation}; false if that is not news (older or already known). */
    boolean markDead(int member, long incarnation) {
        return advance(member, incarnation << 1 | 1L);
    }

    /** Records member alive at {@code incarnation}; false unless the incarnation is newer than known. */
    boolean markAlive(int member, long incarnation) {
        return advance(member, incarnation << 1);
    }

    private boolean advance(int member, long next) {
        if (member < 0 || member >= size) {
            throw new IllegalArgumentException("member " + member + " outside ring of " + size);
        }
        long current = entries.get(member, 0L);
        if (next <= current) {
            return false;
        }
        // The digest covers the dead entries only: a refutation raises a live member's incarnation, and
        // views that differ only in that must not set off anti-entropy around the whole ring (the new
        // incarnation is learnt from the member itself on contact; a verdict or a rejoin still differs).
        if ((current & 1L) != 0) {
            digest ^= Digests.member(member, current);
        }
        if ((next & 1L) != 0) {
            digest ^= Digests.member(member, next);
        }
        boolean wasDead = (current & 1L) != 0;
        boolean nowDead = (next & 1L) != 0;
        if (wasDead != nowDead) {
            deadCount += nowDead ? 1 : -1;
            deadCacheValid = false;
        }
        entries.put(member, next);
        entryCacheValid = false;
        return true;
    }

    /** The dead members, ascending. The array is shared and must not be modified. */
    int[] deadMembers() {
        if (!deadCacheValid) {
            int[] out = new int[deadCount];
            int n = 0;
            for (int m : entries.sortedKeys()) {
                if (isDead(m)) {
                    out[n++] = m;
                }
            }
            deadCache = out;
            deadCacheValid = true;
        }
        return deadCache;
    }

    /** Every non-default entry, by member. */
    List<MemberStatus> entries() {
        if (!entryCacheValid) {
            int[] keys = entries.sortedKeys();
            List<MemberStatus> out = new ArrayList<>(keys.length);
            for (int m : keys) {
                long e = entries.get(m, 0L);
                out.add(new MemberStatus(m, e >>> 1, (e & 1L) != 0));
            }
            entryCache = List.copyOf(out);
            entryCacheValid = true;
        }
        return entryCache;
    }

    /** The first live member before {@code member} (counter-clockwise), or {@link #NONE}. */
    int previousLive(int member) {
        for (int k = 1; k < size; k++) {
            int m = Math.floorMod(member - k, size);
            if (!isDead(m)) {
                return m;
            }
        }
        return NONE;
    }

    /** The first live member after {@code member} (clockwise), or {@link #NONE}. */
    int nextLive(int member) {
        for (int k = 1; k < size; k++) {
            int m = (member + k) % size;
            if (!isDead(m)) {
                return m;
            }
        }
        return NONE;
    }

    long digest() {
        return digest;
    }
}
