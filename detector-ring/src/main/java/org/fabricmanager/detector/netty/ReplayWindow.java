package org.fabricmanager.detector.netty;

import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * Which authenticated datagrams a member takes, per sender: each datagram sequence number once, within a
 * window of the last {@link #WINDOW} numbers below the highest seen (as IPsec's anti-replay window), so that
 * reordered datagrams still count and replayed ones do not. A sender numbers its datagrams from its start
 * time in microseconds times a thousand ({@link #firstSequence}), so a restarted member continues above
 * everything its previous life sent and needs no reset here. Also refuses a sender's incarnation rising by
 * more than {@link #MAX_JUMP} at once: the ring raises a member's incarnation by one per rejoin. Kept only
 * for the senders heard from ({@link MemberSlots}): a member hears from a few dozen members, not the whole
 * ring. Not thread-safe (the member's event loop).
 *
 * <p><b>Leaps.</b> A number more than {@link #MAX_SEQUENCE_JUMP} above a sender's window is a leap: a restart
 * (its numbers start at its new start time) or a long silence toward this member, but also what one sealed
 * datagram numbered 2^63−1 would be, after which every true datagram of the sender would be too old for the
 * epoch. So each sender has two tracks, each a window: a leap opens a new track in place of the one that
 * took a datagram least recently, and a datagram is judged on the track it falls in. A sender's true
 * datagrams keep their own track (the one in use), whatever leap another datagram made; a restarted sender's
 * datagrams make the new track theirs. At most one leap per sender per {@link #LEAP_INTERVAL_NANOS} is taken
 * ({@link Verdict#SEQUENCE_JUMP} otherwise), so that forged leaps cannot replace a live track in a burst.
 */
final class ReplayWindow {
    /** Sequence numbers below the highest seen that are still accepted once. */
    static final int WINDOW = 64;
    /** Largest rise of a sender's incarnation accepted in one step. */
    static final long MAX_JUMP = 1 << 16;
    /** Largest rise of a sender's sequence number on its track; more is a leap. */
    static final long MAX_SEQUENCE_JUMP = 1 << 16;
    /** Shortest time between two leaps of one sender: 10 s. */
    static final long LEAP_INTERVAL_NANOS = 10_000_000_000L;
    private static final int TRACKS = 2;

    /** Why a datagram was refused. */
    enum Verdict {
        ACCEPTED, REPLAYED, TOO_OLD, INCARNATION_JUMP, SEQUENCE_JUMP
    }

    private final int members;
    private final LongSupplier nanoTime;
    private final MemberSlots senders = new MemberSlots(16);
    /** By sender slot. */
    private long[] incarnation = new long[16];
    private long[] lastLeapNanos = new long[16];
    /** By sender slot times {@link #TRACKS} plus track; a track whose {@code used} is 0 is empty. */
    private long[] highest = new long[16 * TRACKS];
    private long[] seen = new long[16 * TRACKS];
    private long[] used = new long[16 * TRACKS];

    /** @param members the ring's size: senders are member indices below it */
    ReplayWindow(int members) {
        this(members, System::nanoTime);
    }

    /** @param nanoTime the clock of leaps ({@link System#nanoTime()} but in tests) */
    ReplayWindow(int members, LongSupplier nanoTime) {
        this.members = members;
        this.nanoTime = nanoTime;
    }

    /** Senders heard from so far. */
    int senders() {
        return senders.size();
    }

    /** The first sequence number of a member started at {@code epochMillis} (wall clock). */
    static long firstSequence(long epochMillis) {
        return epochMillis * 1_000_000L;
    }

    /**
     * Judges (and, if accepted, records) datagram {@code sequence} (unsigned) of {@code from} at
     * {@code fromIncarnation}.
     */
    Verdict accept(int from, long fromIncarnation, long sequence) {
        if (from < 0 || from >= members) {
            throw new IllegalArgumentException("member " + from + " outside the ring of " + members);
        }
        long now = nanoTime.getAsLong();
        int at = senders.find(from);
        if (at < 0) {
            at = senders.add(from);
            if (at == incarnation.length) {
                int grown = Math.min(members, at * 2);
                incarnation = Arrays.copyOf(incarnation, grown);
                lastLeapNanos = Arrays.copyOf(lastLeapNanos, grown);
                highest = Arrays.copyOf(highest, grown * TRACKS);
                seen = Arrays.copyOf(seen, grown * TRACKS);
                used = Arrays.copyOf(used, grown * TRACKS);
            }
            incarnation[at] = fromIncarnation;
            lastLeapNanos[at] = now - LEAP_INTERVAL_NANOS; // its first leap (a restart) is taken at once
            open(at * TRACKS, sequence, now);
            used[at * TRACKS + 1] = 0;
            return Verdict.ACCEPTED;
        }
        if (fromIncarnation > incarnation[at] && fromIncarnation - incarnation[at] > MAX_JUMP) {
            return Verdict.INCARNATION_JUMP;
        }
        int track = -1;
        boolean ahead = false;
        for (int t = at * TRACKS; t < at * TRACKS + TRACKS; t++) {
            if (used[t] == 0) {
                continue;
            }
            boolean above = Long.compareUnsigned(sequence, highest[t]) > 0;
            if (above && Long.compareUnsigned(sequence - highest[t], MAX_SEQUENCE_JUMP) > 0) {
                ahead = true;
            } else if (above || Long.compareUnsigned(highest[t] - sequence, WINDOW) < 0) {
                if (track < 0 || Long.compareUnsigned(highest[t], highest[track]) > 0) {
                    track = t; // within this track's reach (the higher one when both)
                }
            }
        }
        Verdict verdict;
        if (track >= 0) {
            verdict = record(track, sequence, now);
        } else if (!ahead) {
            verdict = Verdict.TOO_OLD;
        } else if (now - lastLeapNanos[at] < LEAP_INTERVAL_NANOS) {
            verdict = Verdict.SEQUENCE_JUMP;
        } else {
            lastLeapNanos[at] = now;
            int first = at * TRACKS;
            int stale = used[first] == 0 || used[first + 1] != 0 && used[first] - used[first + 1] < 0 ? first : first + 1;
            open(stale, sequence, now);
            verdict = Verdict.ACCEPTED;
        }
        if (verdict == Verdict.ACCEPTED) {
            incarnation[at] = Math.max(incarnation[at], fromIncarnation);
        }
        return verdict;
    }

    private void open(int track, long sequence, long now) {
        highest[track] = sequence;
        seen[track] = 1L;
        used[track] = now == 0 ? 1 : now;
    }

    private Verdict record(int track, long sequence, long now) {
        long top = highest[track];
        if (Long.compareUnsigned(sequence, top) > 0) {
            long shift = sequence - top;
            seen[track] = shift >= WINDOW ? 1L : (seen[track] << shift) | 1L;
            highest[track] = sequence;
        } else {
            long bit = 1L << (top - sequence);
            if ((seen[track] & bit) != 0) {
                return Verdict.REPLAYED;
            }
            seen[track] |= bit;
        }
        used[track] = now == 0 ? 1 : now;
        return Verdict.ACCEPTED;
    }
}
