package org.fabricmanager.daemon.ha;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * What a member tells of its Raft group, from the view its role loop took at the last poll: the body of
 * {@code GET /api/v1/ha} on any member, and what its standby listeners answer (where agents and REST clients go, or
 * why this standby is not ready). The role loop writes the view and counts the elections; REST, the southbound's
 * I/O threads and the meters read them.
 */
final class GroupView implements StandbyListeners.Source {
    private final HaNode node;
    private final Campaigns campaigns;
    /**
     * A leader that sent nothing for this long has missed a heartbeat (Ratis sends one every half election
     * timeout): three quarters of the election timeout.
     */
    private final long silentLeaderMs;
    /** Whether this member's manager runs. */
    private final BooleanSupplier active;
    /** The member's view at the last poll, {@code null} before it (role loop writes, REST and meters read). */
    private volatile HaNode.View view;
    /** Terms begun since start, as this member saw them (role loop writes). */
    private final AtomicLong elections = new AtomicLong();
    private long lastTerm = -1;
    /** {@link HaNode.View#leaderlessCampaigns} at the last poll (role loop). */
    private long campaignsSeen;
    /** The term in which this member campaigns without a leader, -1 when it does not (role loop writes). */
    private volatile long campaigningIn = -1;

    GroupView(HaNode node, Campaigns campaigns, long electionTimeoutMs, BooleanSupplier active) {
        this.node = node;
        this.campaigns = campaigns;
        this.silentLeaderMs = 3L * electionTimeoutMs / 4;
        this.active = active;
    }

    /**
     * The member's view at this poll (role loop). A candidacy Ratis reported since the last poll, while no leader is
     * known, means this member is campaigning without a majority: it is until it knows a leader or the term moves on
     * (it voted for another candidate), though between two of its candidacies Ratis calls it a follower.
     */
    void seen(HaNode.View v) {
        view = v;
        if (v.leaderId() != null || v.leading() || v.term() != campaigningIn) {
            campaigningIn = -1;
        }
        if (v.leaderlessCampaigns() > campaignsSeen && v.leaderId() == null && !v.leading()) {
            campaigningIn = v.term();
        }
        campaignsSeen = v.leaderlessCampaigns();
    }

    /** Whether this member campaigns without a majority (see {@link #seen}), as of the last poll. */
    boolean campaigning() {
        return campaigningIn >= 0;
    }

    /**
     * The role {@code run} prints for the view of the last poll: {@code LEADER}, {@code STANDBY} (a follower), or
     * {@code CANDIDATE} while an election runs and, without a majority, for as long as the member keeps campaigning.
     */
    String roleLine() {
        HaNode.View v = view;
        String role = v.leading() ? "LEADER" : "CANDIDATE".equals(v.role()) || campaigning() ? "CANDIDATE"
                : "FOLLOWER".equals(v.role()) ? "STANDBY" : v.role();
        return role + " term " + v.term() + (v.leaderId() == null || v.leading() ? "" : ", leader " + v.leaderId());
    }

    /** Counts the terms begun since the last poll (a member may skip some: each was an election; role loop). */
    void countElections(HaNode.View v) {
        if (lastTerm >= 0 && v.term() > lastTerm) {
            elections.addAndGet(v.term() - lastTerm);
        }
        lastTerm = v.term();
    }

    /** The view at the last poll, {@code null} before it. */
    HaNode.View view() {
        return view;
    }

    /** Terms begun since start, as this member saw them. */
    long elections() {
        return elections.get();
    }

    /** The body of {@code GET /api/v1/ha} on any member. */
    @Override
    public Map<String, Object> ha() {
        HaNode.View v = view;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("role", v == null ? "UNKNOWN" : v.role());
        out.put("nodeId", node.nodeId());
        out.put("leaderId", v == null ? null : v.leaderId());
        out.put("term", v == null ? 0 : v.term());
        out.put("active", active.getAsBoolean());
        List<Map<String, String>> peers = new ArrayList<>();
        for (Map.Entry<String, String> p : new TreeMap<>(node.peers()).entrySet()) {
            peers.add(Map.of("id", p.getKey(), "address", p.getValue()));
        }
        out.put("peers", peers);
        out.put("commitIndex", v == null ? 0 : v.commitIndex());
        out.put("appliedIndex", v == null ? 0 : v.appliedIndex());
        out.put("elections", elections.get());
        Optional<LeaderEndpoints> e = leaderEndpoints(v);
        out.put("leaderSouthbound", e.map(LeaderEndpoints::southbound).orElse(null));
        out.put("leaderRest", e.map(LeaderEndpoints::rest).orElse(null));
        return out;
    }

    @Override
    public String nodeId() {
        return node.nodeId();
    }

    @Override
    public String leaderId() {
        HaNode.View v = view;
        return v == null ? null : v.leaderId();
    }

    @Override
    public String leaderRest() {
        return leaderEndpoints(view).map(LeaderEndpoints::rest).orElse(null);
    }

    @Override
    public String leaderSouthbound() {
        return leaderSouthbound(view);
    }

    /**
     * Where a standby sends agents: the leader's southbound address while the leader is alive as far as
     * this member can tell, {@code null} (the HELLO is held) when no leader is known, it has not published
     * its endpoints yet, or it has been silent for {@link #silentLeaderMs} (it has most likely died: sending
     * agents to it would only send them round the managers until the election ends).
     */
    String leaderSouthbound(HaNode.View v) {
        // an elected member whose manager is not started yet holds them itself: its manager releases them
        if (v == null || v.leading() || v.leaderSilentMs() > silentLeaderMs) {
            return null;
        }
        if (campaigns.isGone(v)) {
            return null;
        }
        return leaderEndpoints(v).map(LeaderEndpoints::southbound).orElse(null);
    }

    @Override
    public String standbyUnready() {
        HaNode.View v = view;
        if (v == null) {
            return "the Raft member has not reported its state yet";
        }
        if (!"FOLLOWER".equals(v.role())) {
            // a candidate is the usual face of a lost quorum (it keeps asking for votes): say what it lacks
            return "role " + v.role() + " in term " + v.term() + (v.leading()
                    ? ": this member leads and its manager is starting"
                    : ": no leader is known (a leader needs a majority of " + node.peers().size() + " members)");
        }
        if (v.leaderId() == null) {
            return "no leader is known in term " + v.term() + (campaigning() ? " and this member's candidacies get no"
                    + " majority" : "") + " (a leader needs a majority of " + node.peers().size() + " members)";
        }
        if (v.appliedIndex() < v.commitIndex()) {
            return "applying the committed state: index " + v.appliedIndex() + " of " + v.commitIndex();
        }
        return null;
    }

    private Optional<LeaderEndpoints> leaderEndpoints(HaNode.View v) {
        return v == null || v.leaderId() == null ? Optional.empty() : node.endpoints(v.leaderId(), v.term());
    }
}
