package org.fabricmanager.detector.netty;

/**
 * Which authenticated datagrams a member takes, per sender: each datagram sequence number once, within a
 * window of the last {@link #WINDOW} numbers below the highest seen (as IPsec's anti-replay window), so that
 * reordered datagrams still count and replayed ones do not. A sender numbers its datagrams from its start
 * time in microseconds times a thousand ({@link #firstSequence}), so a restarted member continues above
 * everything its previous life sent and needs no reset here. Also refuses a sender's incarnation rising by
 * more than {@link #MAX_JUMP} at once: the ring raises a member's incarnation by one per rejoin. Arrays
 * indexed by ring position: a fixed cost per member. Not thread-safe (the member's event loop).
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

    private final long[] incarnation;
    private final long[] highest;
    private final long[] seen;
    private final boolean[] known;

    ReplayWindow(int members) {
        incarnation = new long[members];
        highest = new long[members];
        seen = new long[members];
        known = new boolean[members];
    }

    /** The first sequence number of a member started at {@code epochMillis} (wall clock). */
    static long firstSequence(long epochMillis) {
        return epochMillis * 1_000_000L;
    }

    /** Judges (and, if accepted, records) datagram {@code sequence} of {@code from} at {@code fromIncarnation}. */
    Verdict accept(int from, long fromIncarnation, long sequence) {
        if (!known[from]) {
            known[from] = true;
            incarnation[from] = fromIncarnation;
            highest[from] = sequence;
            seen[from] = 1L;
            return Verdict.ACCEPTED;
        }
        if (fromIncarnation > incarnation[from] && fromIncarnation - incarnation[from] > MAX_JUMP) {
            return Verdict.INCARNATION_JUMP;
        }
        long top = highest[from];
        if (sequence > top) {
            long shift = sequence - top;
            seen[from] = shift >= WINDOW ? 1L : (seen[from] << shift) | 1L;
            highest[from] = sequence;
        } else {
            long back = top - sequence;
            if (back >= WINDOW) {
                return Verdict.TOO_OLD;
            }
            long bit = 1L << back;
            if ((seen[from] & bit) != 0) {
                return Verdict.REPLAYED;
            }
            seen[from] |= bit;
        }
        incarnation[from] = Math.max(incarnation[from], fromIncarnation);
        return Verdict.ACCEPTED;
    }
}
