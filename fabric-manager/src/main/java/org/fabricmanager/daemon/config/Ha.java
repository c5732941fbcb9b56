package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hot-standby managers ({@code docs/operations.md}, "High availability"): daemons that form a Raft group
 * (Apache Ratis) replicating the state directory; the Raft leader is the active manager, the others wait.
 * Ratis keeps its log and snapshots under {@code <state.directory>/ha}.
 *
 * @param enabled           {@code false} (default): one daemon, Ratis is not started
 * @param nodeId            this daemon's id, one of the peers' ids
 * @param peers             every member, this one included, as {@code "ID=HOST:PORT"} (the Raft port)
 * @param electionTimeoutMs a follower that hears nothing from the leader for a random time between this and
 *                          twice this starts an election: the main part of the failover time
 * @param snapshotEvery     committed writes between two snapshots of the replicated state (the log before a
 *                          snapshot is dropped; a member that rejoins late receives the snapshot)
 * @param pauseLimitMs      a member whose process stood still longer than this (SIGSTOP, a frozen virtual machine)
 *                          stops when it runs again, and its restart catches up from the others (Ratis's close
 *                          threshold)
 */
public record Ha(boolean enabled, String nodeId, List<String> peers, int electionTimeoutMs, int snapshotEvery,
                 int pauseLimitMs) {
    private static final Pattern PEER = Pattern.compile(
            "([A-Za-z0-9_-]{1,64})=(.+):(\\d{1,5})");

    public Ha {
        peers = peers == null ? List.of() : List.copyOf(peers);
        DaemonConfig.check("ha.electionTimeoutMs", electionTimeoutMs, 150, 60_000);
        DaemonConfig.check("ha.snapshotEvery", snapshotEvery, 1, 1_000_000);
        DaemonConfig.check("ha.pauseLimitMs", pauseLimitMs, 5_000, 3_600_000);
        Set<String> ids = new HashSet<>();
        for (String p : peers) {
            Matcher m = PEER.matcher(p == null ? "" : p);
            if (!m.matches() || Integer.parseInt(m.group(3)) < 1 || Integer.parseInt(m.group(3)) > 65535) {
                throw new ConfigException("option ha.peers: '" + p + "' is not ID=HOST:PORT (ID of letters, digits,"
                        + " '-' or '_'; PORT in [1, 65535])");
            }
            if (!ids.add(m.group(1))) {
                throw new ConfigException("option ha.peers names '" + m.group(1) + "' twice");
            }
        }
        if (enabled) {
            if (nodeId == null || nodeId.isBlank()) {
                throw new ConfigException("option ha.nodeId must be set when ha.enabled is true");
            }
            if (!ids.contains(nodeId)) {
                throw new ConfigException("option ha.nodeId '" + nodeId + "' is not among ha.peers " + ids);
            }
        }
    }

    @JsonCreator
    public static Ha of(@JsonProperty("enabled") Boolean enabled, @JsonProperty("nodeId") String nodeId,
                        @JsonProperty("peers") List<String> peers,
                        @JsonProperty("electionTimeoutMs") Integer electionTimeoutMs,
                        @JsonProperty("snapshotEvery") Integer snapshotEvery,
                        @JsonProperty("pauseLimitMs") Integer pauseLimitMs) {
        return new Ha(enabled != null && enabled, nodeId, peers, electionTimeoutMs != null ? electionTimeoutMs : 500,
                snapshotEvery != null ? snapshotEvery : 64, pauseLimitMs != null ? pauseLimitMs : 60_000);
    }

    /** One daemon, no Raft: every option at its default. */
    public static Ha defaults() {
        return of(null, null, null, null, null, null);
    }

    /** The peers as id → "HOST:PORT", in configured order. */
    public Map<String, String> peerAddresses() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String p : peers) {
            Matcher m = PEER.matcher(p);
            if (m.matches()) {
                out.put(m.group(1), m.group(2) + ":" + m.group(3));
            }
        }
        return out;
    }
}
