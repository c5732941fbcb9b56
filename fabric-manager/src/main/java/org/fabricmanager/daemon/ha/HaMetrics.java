package org.fabricmanager.daemon.ha;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.fabricmanager.pki.ManagerPeerTrust;

/**
 * The hot-standby group's meters, read from the member's last polled view at scrape time: which role
 * it has (one gauge per role, 1 for the current one), the Raft term, the commit and applied indices,
 * the elections this member has seen (terms begun since it started), per state file the writes its
 * manager committed (count, time, bytes: the replication cost), the peers its Raft port refused by reason, and the
 * leadership transfers OpenSM's master SM made it ask for. They are registered in the
 * standby's own registry and in every manager's registry while it leads, so that {@code /metrics} on
 * any member shows them.
 */
final class HaMetrics {
    static final String ROLE = "fabric.ha.role";
    static final String TERM = "fabric.ha.term";
    static final String COMMIT_INDEX = "fabric.ha.commit.index";
    static final String APPLIED_INDEX = "fabric.ha.applied.index";
    static final String ELECTIONS = "fabric.ha.elections";
    static final String COMMIT = "fabric.ha.commit";
    static final String REPLICATED_BYTES = "fabric.ha.replicated.bytes";
    static final String REJECTED = "fabric.ha.rejected";
    static final String OPENSM_TRANSFERS = "fabric.ha.opensm.transfers";
    private static final List<String> ROLES = List.of("LEADER", "FOLLOWER", "CANDIDATE", "LISTENER", "UNKNOWN");

    private HaMetrics() {
    }

    /**
     * @param view      the member's last polled view ({@code null} before the first poll)
     * @param elections terms begun since this member started
     */
    static void bind(MeterRegistry registry, Supplier<HaNode.View> view, Supplier<Long> elections, CommitStats commits,
                     RaftRefusals refusals, LeadershipTransfers transfers) {
        for (LeadershipTransfers.Outcome o : LeadershipTransfers.Outcome.values()) {
            FunctionCounter.builder(OPENSM_TRANSFERS, transfers, t -> t.count(o)).tag("outcome", o.tag())
                    .description("routing passes of OpenSM's master SM that reached this member while a standby, and the"
                            + " leadership transfers to it they asked for (requested, done, failed; held: refused without asking)")
                    .register(registry);
        }
        for (ManagerPeerTrust.Refusal r : ManagerPeerTrust.Refusal.values()) {
            FunctionCounter.builder(REJECTED, refusals, x -> x.count(r)).tag("reason", r.tag())
                    .description("peers whose certificate this member's Raft port refused (untrusted: not the fabric"
                            + " CA's, expired, wrong purpose; not-a-manager: a switch's or another fabric certificate)")
                    .register(registry);
        }
        for (Map.Entry<String, CommitStats.PerFile> f : commits.files().entrySet()) {
            CommitStats.PerFile p = f.getValue();
            FunctionTimer.builder(COMMIT, p, c -> c.commits.get(), c -> c.nanos.get(), TimeUnit.NANOSECONDS)
                    .tag("file", f.getKey())
                    .description("state writes this member's manager committed through Raft: submission to committed and applied here")
                    .register(registry);
            FunctionCounter.builder(REPLICATED_BYTES, p, c -> c.bytes.get()).tag("file", f.getKey()).baseUnit("bytes")
                    .description("state file bytes this member's manager committed through Raft").register(registry);
        }
        for (String role : ROLES) {
            Gauge.builder(ROLE, () -> {
                HaNode.View v = view.get();
                return v != null && v.role().equals(role) ? 1 : 0;
            }).tag("role", role.toLowerCase(Locale.ROOT))
                    .description("1 for this member's current Raft role, 0 for the others").register(registry);
        }
        Gauge.builder(TERM, () -> {
            HaNode.View v = view.get();
            return v == null ? 0 : v.term();
        }).description("the Raft term this member is in").register(registry);
        Gauge.builder(COMMIT_INDEX, () -> {
            HaNode.View v = view.get();
            return v == null ? 0 : v.commitIndex();
        }).description("the highest Raft log index this member knows committed").register(registry);
        Gauge.builder(APPLIED_INDEX, () -> {
            HaNode.View v = view.get();
            return v == null ? 0 : v.appliedIndex();
        }).description("the highest Raft log index applied to this member's state directory").register(registry);
        FunctionCounter.builder(ELECTIONS, elections, s -> s.get())
                .description("Raft terms begun since this member started (each one an election)").register(registry);
    }
}
