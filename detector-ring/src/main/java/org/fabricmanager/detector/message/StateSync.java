package org.fabricmanager.detector.message;

import java.util.List;

/**
 * A member's whole view: every member with a non-default entry (dead, or alive at an incarnation
 * above 0) and every link report. Sent to a joiner, to a new observer, to a zombie and for
 * anti-entropy; merging a view is idempotent and commutative, so it may be split, repeated or
 * reordered.
 */
public record StateSync(int from, long fromIncarnation, StateKind kind, List<MemberStatus> members,
                        List<LinkStatus> links) implements RingMessage {

    public StateSync {
        members = List.copyOf(members);
        links = List.copyOf(links);
    }
}
