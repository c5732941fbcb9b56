package org.fabricmanager.daemon.rest;

import java.util.Map;

/**
 * What the REST server of a hot-standby manager that does not lead can tell: its view of the Raft group,
 * the active manager to send clients to, whether it is ready to take over, and its metrics. Called on
 * REST I/O threads: every method answers at once, without waiting for the group.
 */
public interface StandbyEndpoints {
    /** The body of {@code GET /api/v1/ha}: role, nodeId, leaderId, term, peers and indices. */
    Map<String, Object> ha();

    /** This member's id. */
    String nodeId();

    /** The active manager's member id, {@code null} while no leader is known. */
    String leaderId();

    /** The active manager's REST base URL, {@code null} while it has not published it in its term. */
    String leaderRest();

    /** {@code null} when this member is a follower ready to take over, else why it is not. */
    String standbyUnready();

    /** The Prometheus text of {@code /metrics}. */
    String metrics();
}
