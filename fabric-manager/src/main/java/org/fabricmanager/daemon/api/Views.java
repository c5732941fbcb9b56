package org.fabricmanager.daemon.api;

import java.util.List;
import java.util.Map;
import org.fabricmanager.release.BuildInfo;

/**
 * The read-only views the daemon answers queries with (and REST serialises as JSON). GUIDs are in
 * their text form ({@code 0x} + 16 hex digits); absent values are {@code null}.
 */
public final class Views {
    private Views() {
    }

    /** {@code GET /api/v1/status}; {@code opensm} is {@code null} without {@code opensm:} configured. */
    public record Status(DaemonState state, SwitchCounts switches, int nodes, Routing routing, Tables tables, Push push,
                         Discovery discovery, long uptimeMs, String daemonId, Build build, Drains drained, OpenSm opensm) {
    }

    /**
     * OpenSM as its plug-in's keepalives show it: {@code state} {@code WAITING} (not connected since the start yet),
     * {@code UP} or {@code LOST} (since {@code sinceMillis}, for {@code lostReason}); the last keepalive's age, OpenSM's
     * SM state and its packets outstanding; what the plug-in dropped; how many times OpenSM was lost.
     */
    public record OpenSm(String state, long sinceMillis, String lostReason, Long lastKeepaliveMs, String smState,
                         Long madsOutstanding, long eventsDropped, long countersDropped, long losses) {
    }

    /** Switches and cables drained for maintenance (routed around until undrained). */
    public record Drains(int switches, int links) {
    }

    /**
     * One drained element in {@code GET /api/v1/drains}: {@code element} is {@code switch 0x…} or {@code link 0x…:P}
     * (the end the operator named), {@code peer} the cable's other end as last reported ({@code null}: a switch, or
     * not known), {@code sinceMillis} when it was drained.
     */
    public record Drained(String element, String guid, Integer port, String name, String peer, long sinceMillis) {
    }

    /**
     * One link the gray-link policy isolated, in {@code GET /api/v1/drains/isolated} (apart from the operator's
     * drains): {@code element} {@code link 0x…:P} (the end it is stored under), {@code peer} the other end,
     * {@code sinceMillis} when it was isolated, {@code probationMs} how long it must be healthy to be given back,
     * {@code figures} the figures that decided ({@code null}: isolated before this manager started, or took over).
     */
    public record Isolated(String element, String guid, int port, String name, String peer, long sinceMillis,
                           long probationMs, String figures) {
    }

    /**
     * One link in {@code GET /api/v1/links/health}: a link the daemon judges suspect or bad now, or one the gray-link
     * policy holds isolated. {@code link} names its two ends ({@code 0x…:P-0x…:Q}), {@code aName} and {@code bName}
     * their switches' names; {@code level} {@code HEALTHY}, {@code SUSPECT} or {@code BAD} as its counters say now
     * ({@code null}: not judged since this manager started); {@code figures} the line that decided that level and
     * {@code details} its figures ({@code counter}, {@code at}, {@code errors}, {@code packets}, {@code ppm},
     * {@code packetsPerSecond}, {@code loaded}, {@code windowMs}); {@code advice} why a bad link is not isolated;
     * {@code isolated} whether the policy holds it out, then {@code isolatedFigures} the figures that decided that
     * ({@code null} as in {@code Isolated}), {@code sinceMillis} and {@code probationMs}.
     */
    public record LinkHealth(String link, String aName, String bName, String level, String figures,
                             Map<String, Object> details, String advice, boolean isolated,
                             String isolatedFigures, Long sinceMillis, Long probationMs) {
    }

    /** The release running: version, source commit ({@code -dirty} with local changes) and its date. */
    public record Build(String version, String commit, String commitTime) {
        public static Build of(BuildInfo info) {
            return new Build(info.version(), info.commitLabel(), info.commitTime());
        }
    }

    /** Expected (from the configured PGFT, else null) and connected switches. */
    public record SwitchCounts(Integer expected, int connected) {
    }

    /**
     * The tables in force. {@code onFault}: {@code repair} or {@code recompute}, how changes are routed;
     * {@code repaired}: the tables are a repair of the last full routing; {@code changedEntries} and
     * {@code minimumEntries}: entries they changed against the tables before them, and the least any valid routing
     * of the same fabric changes, {@code takenBackEntries}: of the changed entries, those that went back to
     * elements that came back ({@code null}: the first tables, reused ones, or an engine that does not repair);
     * {@code refinePending}: the tables are a repair whose moved entries will take the engine's full routing's ports
     * ({@code routing.rebalance.refineAfter}).
     */
    public record Routing(String engine, long version, Double durationMs, Boolean valid, Long unreachableLeafPairs,
                          long computations, Boolean reusedFromState, Boolean deadlockFree, String onFault,
                          boolean repaired, Long changedEntries, Long minimumEntries, Long takenBackEntries,
                          boolean refinePending) {
    }

    /**
     * Connected switches covered by the tables that hold them / do not yet, and among the pending ones
     * those whose push failed more than {@code push.retries} times in a row (still retried).
     */
    public record Tables(int inSync, int pending, int failing) {
    }

    /** The installation of the current version (blocks and bytes sent, acks, retries) and totals. */
    public record Push(long version, long blocks, long bytes, long commits, long acked, long retries, long fullPushes,
                       Double durationMs, long totalBlocks, long totalBytes, long totalRetries) {
    }

    /** The last discovery's check against the expected PGFT. */
    /**
     * The last check against the expected PGFT; {@code drainedSwitches} and {@code drainedLinks}: drained switches and
     * cables it found present and up (counted apart, not missing); {@code unready}: why the fabric keeps the daemon from
     * being ready ({@code fabric.unreadyOnMismatch} and verdict MISWIRED), else {@code null}.
     */
    public record Discovery(String verdict, String summary, int drainedSwitches, int drainedLinks, int linkIssues,
                            String unready) {
    }

    /**
     * One switch in {@code GET /api/v1/switches}; {@code state} is {@code IN_SYNC}, {@code PENDING}, {@code FAILING}
     * (connected), {@code DEAD} (the failure detector declared it dead) or {@code DISCONNECTED} (its session ended);
     * {@code drained}: an operator drained it (routed around, whatever its state); {@code tablesConfirmedAt}: when it
     * last acknowledged a table (an agent's ACK, a Linux switch's read-back, OpenSM's word that it set it).
     */
    public record Switch(String guid, String name, boolean connected, String address, Integer ports, Integer portsUp,
                         Long tableVersion, boolean inSync, Double rttMs, Long connectedSince, String state,
                         Long disconnectedSince, boolean drained, Long tablesConfirmedAt) {
    }

    /** One switch in {@code GET /api/v1/switches/pending}: connected, held out of the fabric until admitted. */
    public record PendingSwitch(String guid, String name, String address, String reason, long connectedSince) {
    }

    /**
     * {@code GET /api/v1/switches/{guid}}: the summary plus ports and push state ({@code state} and {@code drained}: as
     * in {@link Switch}).
     */
    public record SwitchDetail(String guid, String name, boolean connected, String address, Integer ports,
                               Integer portsUp, Long tableVersion, String tableHash, boolean inSync, Double rttMs,
                               Long connectedSince, Long incarnation, Long pushRetries, String lastPushError,
                               List<Port> portList, String state, Long disconnectedSince, boolean drained,
                               Long tablesConfirmedAt) {
    }

    /**
     * One port as the switch reported it and what discovery made of it ({@code link}: {@code IN_USE}, {@code DOWN},
     * {@code DRAINED}, {@code NOT_ROUTED}, {@code NO_PEER} or {@code NOT_TAKEN}).
     */
    public record Port(int port, String state, String peerKind, String peerGuid, Integer peerPort, String peerName,
                       String link) {
    }

    /**
     * {@code GET /api/v1/switches/{guid}/vc}: the switch's virtual-channel rules in the tables in force
     * ({@code ports[p-1]} is the class of port {@code p}; a packet that matches no transition keeps its
     * channel), their hash, and the rules hash the switch last acknowledged ({@code null} when unknown).
     */
    public record Vc(String guid, long version, boolean inSync, int vcCount, String rulesHash, String heldRulesHash,
                     List<String> ports, List<String> transitions) {
    }

    /** {@code GET /api/v1/switches/{guid}/lft}: the switch's current table (255 = no route). */
    public record Lft(String guid, long version, Long appliedVersion, boolean inSync, int[] entries) {
    }

    /** {@code GET /api/v1/route}: the hops from a source to a destination index. */
    public record Route(int src, int dst, String srcNode, String dstNode, long version, String outcome, List<Hop> hops) {
    }

    /** One switch crossed. */
    public record Hop(String guid, String name, int outPort) {
    }

    /** {@code GET /api/v1/discovery}: the check against the expected PGFT and the claims not taken. */
    public record DiscoveryReport(FabricCheck check, int linkIssueCount, List<String> linkIssues) {
    }
}
