package org.fabricmanager.detector.netty;

import java.util.Arrays;

/**
 * Which authenticated datagrams a member takes, per sender: each datagram sequence number once, within a
 * window of the last {@link #WINDOW} numbers below the highest seen (as IPsec's anti-replay window), so that
 * reordered datagrams still count and replayed ones do not. A sender numbers its datagrams from its start
 * time in microseconds times a thousand ({@link #firstSequence}), so a restarted member continues above
 * everything its previous life sent and needs no reset here. Also refuses a sender's incarnation rising by
 * more than {@link #MAX_JUMP} at once: the ring raises a member's incarnation by one per rejoin. Kept only
 * for the senders heard from ({@link MemberSlots}): a member hears from a few dozen members, not the whole
 * ring. Not thread-safe (the member's event loop).
 */
final class ReplayWindow {
    /** Sequence numbers below the highest seen that are still accepted once. */
    static final int WINDOW = 64;
    /** Largest rise of a sender's incarnation accepted in one step. */
    static final long MAX_JUMP = 1 << 16;

    /** Why a datagram was refused. */
    enum Verdict {
        ACCEPTED, REPLAYED, TOO_OLD, INCARNATION_JUMP
    }

    private final int members;
    private final MemberSlots senders = new MemberSlots(16);
    /** By sender slot. */
    private long[] incarnation = new long[16];
    private long[] highest = new long[16];
    private long[] seen = new long[16];

    /** @param members the ring's size: senders are member indices below it */
    ReplayWindow(int members) {
        this.members = members;
    }

    /** Senders heard from so far. */
    int senders() {
        return senders.size();
    }

    /** The first sequence number of a member started at {@code epochMillis} (wall clock). */
    static long firstSequence(long epochMillis) {
        return epochMillis * 1_000_000L;
    }

    /** Judges (and, if accepted, records) datagram {@code sequence} of {@code from} at {@code fromIncarnation}. */
    Verdict accept(int from, long fromIncarnation, long sequence) {
        if (from < 0 || from >= members) {
            throw new IllegalArgumentException("member " + from + " outside the ring of " + members);
        }
        int at = senders.find(from);
        if (at < 0) {
            at = senders.add(from);
            if (at == seen.length) {
                int grown = Math.min(members, at * 2);
                incarnation = Arrays.copyOf(incarnation, grown);
                highest = Arrays.copyOf(highest, grown);
                seen = Arrays.copyOf(seen, grown);
            }
            incarnation[at] = fromIncarnation;
            highest[at] = sequence;
            seen[at] = 1L;
            return Verdict.ACCEPTED;
        }
        if (fromIncarnation > incarnation[at] && fromIncarnation - incarnation[at] > MAX_JUMP) {
            return Verdict.INCARNATION_JUMP;
        }
        long top = highest[at];
        if (sequence > top) {
            long shift = sequence - top;
            seen[at] = shift >= WINDOW ? 1L : (seen[at] << shift) | 1L;
            highest[at] = sequence;
        } else {
            long back = top - sequence;
            if (back >= WINDOW) {
                return Verdict.TOO_OLD;
            }
            long bit = 1L << back;
            if ((seen[at] & bit) != 0) {
                return Verdict.REPLAYED;
            }
            seen[at] |= bit;
        }
        incarnation[at] = Math.max(incarnation[at], fromIncarnation);
        return Verdict.ACCEPTED;
    }
}
