package org.fabricmanager.detector.message;

/**
 * What a member tells its {@link DetectorListener}: a member failed or rejoined, or a member reported
 * one of its own links down or up (and, to the ring's witness only, that a member began suspecting its
 * emitter). Each of the others is delivered exactly once per listening member; member
 * events are identified by (member, incarnation), link events by (reporter, incarnation, port, sequence).
 */
public sealed interface DetectorEvent {

    /** Member {@code member} at incarnation {@code incarnation} is dead (suspected by its observer). */
    record MemberFailed(int member, long incarnation) implements DetectorEvent {
    }

    /**
     * The witness's notice: member {@code observer}, the observer of {@code member}, began suspecting it at
     * {@code incarnation} (half a δ of silence; a verdict may follow, or a refutation). Delivered only to the ring's
     * witness ({@code RingParameters.witness}), never broadcast, and not exactly once:
     * the observer repeats nothing, but a new suspicion (a new silence) is a new notice.
     */
    record MemberSuspected(int member, long incarnation, int observer) implements DetectorEvent {
    }

    /** Member {@code member} is alive again at a higher incarnation {@code incarnation}. */
    record MemberRejoined(int member, long incarnation) implements DetectorEvent {
    }

    /** Member {@code reporter} saw its own port {@code port} go down. */
    record LinkDown(int reporter, long reporterIncarnation, int port, long sequence) implements DetectorEvent {
    }

    /** Member {@code reporter} saw its own port {@code port} come back up. */
    record LinkUp(int reporter, long reporterIncarnation, int port, long sequence) implements DetectorEvent {
    }
}
