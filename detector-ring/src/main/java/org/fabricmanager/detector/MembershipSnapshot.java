package org.fabricmanager.detector;

import java.util.List;
import org.fabricmanager.detector.message.LinkStatus;
import org.fabricmanager.detector.message.MemberStatus;

/**
 * A consistent copy of one member's state, safe to read from any thread: its own incarnation and
 * phase, its ring neighbours and its view.
 *
 * @param emitter  the member it observes, or -1
 * @param observer the member it heartbeats, or -1
 * @param members  every member with a non-default entry (dead, or alive above incarnation 0), by index
 * @param links    the latest link report of every (reporter, port) it knows
 */
public record MembershipSnapshot(int self, long incarnation, MemberPhase phase, int emitter, int observer,
                                 List<MemberStatus> members, List<LinkStatus> links) {

    public MembershipSnapshot {
        members = List.copyOf(members);
        links = List.copyOf(links);
    }

    /** The dead members, ascending. */
    public int[] deadMembers() {
        return members.stream().filter(MemberStatus::dead).mapToInt(MemberStatus::member).toArray();
    }

    /** Whether {@code member} is dead in this view. */
    public boolean isDead(int member) {
        return members.stream().anyMatch(s -> s.member() == member && s.dead());
    }
}
