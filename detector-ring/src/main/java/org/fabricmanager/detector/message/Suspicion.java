package org.fabricmanager.detector.message;

import java.util.Objects;

/**
 * The refutable-suspicion exchange (after Lifeguard's suspicion sub-protocol and SWIM's indirect
 * probes), between a member's observer, the member and a few helpers. None of it is broadcast: it
 * stays between the few members that have something to say about one emitter.
 *
 * <ul>
 *   <li>{@link Kind#SUSPECT}: "I have not heard from you, {@code member}@{@code incarnation}; refute".
 *       Sent by the observer, and by each helper it asked, to the suspect.</li>
 *   <li>{@link Kind#PROBE}: the observer asks a helper to check {@code member}@{@code incarnation}.</li>
 *   <li>{@link Kind#ALIVE}: the suspect's answer to a SUSPECT: it is alive at {@code incarnation}
 *       (above the suspected one when it refuted).</li>
 *   <li>{@link Kind#CONFIRM}: a helper tells the observer that {@code member}@{@code incarnation} did
 *       not answer it either; independent confirmations shorten the suspicion.</li>
 *   <li>{@link Kind#NOTICE}: the observer tells the ring's witness (the fabric manager's member) that it
 *       began suspecting {@code member}@{@code incarnation}. Nothing is decided by it: the witness's
 *       owner may start checking on its own, half a δ before any verdict.</li>
 * </ul>
 *
 * @param member     the suspected member (for ALIVE, the sender itself)
 * @param incarnation the suspected incarnation (for ALIVE, the sender's incarnation now)
 */
public record Suspicion(int from, long fromIncarnation, Kind kind, int member, long incarnation) implements RingMessage {

    /** What a {@link Suspicion} message says. */
    public enum Kind {
        SUSPECT, PROBE, ALIVE, CONFIRM, NOTICE
    }

    public Suspicion {
        Objects.requireNonNull(kind, "kind");
    }
}
