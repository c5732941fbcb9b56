package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who starts the election when {@link LeaderWatch} finds the leader's process gone, and when. One member starts it
 * at once: the first after the gone leader in the order of the members' ids, the same order on every member, so
 * that two standbys do not split the vote by campaigning together. The others vote for it; each of them campaigns
 * itself only if no election has begun {@link #BACKUP_CAMPAIGN_MS} times its place in that order after its own
 * verdict (the first is down too, or its campaign failed), and else leaves it to the election timeout.
 *
 * <p>{@link #leaderGone} runs on the watch's thread; {@link #backup} and {@link #isGone} on the role loop.
 */
final class Campaigns {
    private static final Logger LOG = LoggerFactory.getLogger(Campaigns.class);
    /** A member that is n-th after the first campaigner campaigns n times this long after its verdict, if none did. */
    static final long BACKUP_CAMPAIGN_MS = 300;

    private final HaNode node;
    /** Wakes the role loop, so that it acts on a verdict without waiting for its next poll. */
    private final Runnable wake;
    /** The leader the watch found gone (its term), until another is known: agents are held, not sent there. */
    private volatile LeaderWatch.Target goneLeader;
    /** When the watch found it gone (nanoTime). */
    private volatile long goneAtNanos;
    /** The gone leader this member campaigned for (once per leader and term). */
    private volatile LeaderWatch.Target campaigned;

    Campaigns(HaNode node, Runnable wake) {
        this.node = node;
        this.wake = wake;
    }

    /** The leader's process is gone (the watch's thread): campaign at once if this member is first, else wait. */
    void leaderGone(LeaderWatch.Target leader) {
        int rank = campaignRank(node.peers().keySet(), leader.leaderId(), node.nodeId());
        if (rank == 0) {
            campaigned = leader; // before goneLeader: the role loop must not campaign for it as well
        }
        goneAtNanos = System.nanoTime();
        goneLeader = leader;
        if (rank == 0) {
            campaign(leader, "at once");
        } else {
            LOG.info("ha: leader {} of term {} is gone; {} starts the election (this member if none began within {} ms)",
                    leader.leaderId(), leader.term(), campaigner(node.peers().keySet(), leader.leaderId()),
                    rank * BACKUP_CAMPAIGN_MS);
        }
        wake.run();
    }

    /** The role loop's part: a member after the first campaigns when no election began in its time. */
    void backup(HaNode.View v) {
        LeaderWatch.Target gone = goneLeader;
        if (gone == null || gone.equals(campaigned) || !"FOLLOWER".equals(v.role()) || !gone.leaderId().equals(v.leaderId())
                || gone.term() != v.term()) {
            return;
        }
        int rank = campaignRank(node.peers().keySet(), gone.leaderId(), node.nodeId());
        if (System.nanoTime() - goneAtNanos >= TimeUnit.MILLISECONDS.toNanos(rank * BACKUP_CAMPAIGN_MS)) {
            campaign(gone, "no election began within " + rank * BACKUP_CAMPAIGN_MS + " ms of the verdict");
        }
    }

    /** Whether the leader {@code v} knows is the one the watch found gone (in the same term). */
    boolean isGone(HaNode.View v) {
        LeaderWatch.Target gone = goneLeader;
        return gone != null && gone.leaderId().equals(v.leaderId()) && gone.term() == v.term();
    }

    private void campaign(LeaderWatch.Target leader, String when) {
        campaigned = leader;
        try {
            boolean started = node.campaign(leader.leaderId(), leader.term());
            LOG.info("ha: {} {} an election ({}) after leader {} of term {} was found gone", node.nodeId(),
                    started ? "starts" : "did not start (no longer its follower in that term)", when, leader.leaderId(),
                    leader.term());
        } catch (IOException | RuntimeException e) {
            LOG.warn("ha: {} could not start an election after leader {} was found gone: {}; the election timeout"
                    + " starts one", node.nodeId(), leader.leaderId(), e.toString());
        }
    }

    /**
     * The members that may campaign when {@code gone} leaves, in their order: the ids after it in sorted order,
     * wrapping around (the same order on every member).
     */
    static List<String> campaignOrder(Collection<String> ids, String gone) {
        List<String> sorted = new ArrayList<>(new TreeSet<>(ids));
        int at = sorted.indexOf(gone);
        List<String> order = new ArrayList<>(sorted.size());
        for (int i = 1; i <= sorted.size(); i++) {
            String next = sorted.get(Math.floorMod(at + i, sorted.size()));
            if (!next.equals(gone)) {
                order.add(next);
            }
        }
        return order;
    }

    /** This member's place in {@link #campaignOrder}: 0 campaigns at once. */
    static int campaignRank(Collection<String> ids, String gone, String self) {
        return campaignOrder(ids, gone).indexOf(self);
    }

    /** The member that campaigns at once when {@code gone} leaves. */
    static String campaigner(Collection<String> ids, String gone) {
        return campaignOrder(ids, gone).get(0);
    }
}
