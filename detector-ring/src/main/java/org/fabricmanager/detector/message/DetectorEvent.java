package org.fabricmanager.detector.message;

/**
 * What a member tells its {@link DetectorListener}: a member failed or rejoined, or a member reported
 * one of its own links down or up. Each event is delivered exactly once per listening member; member
 * events are identified by (member, incarnation), link events by (reporter, incarnation, port, sequence).
 */
public sealed interface DetectorEvent {

    /** Member {@code member} at incarnation {@code incarnation} is dead (suspected by its observer). */
    record MemberFailed(int member, long incarnation) implements DetectorEvent {
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
