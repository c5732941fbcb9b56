package org.fabricmanager.daemon.discovery;

import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftSpec;

/**
 * What a {@link DiscoveryManager} is configured with: its settle window and maximum wait, and the shape the fabric
 * is meant to have.
 *
 * @param timing       {@code discovery.settleMs} and {@code discovery.maxWaitMs}
 * @param expected     the expected PGFT ({@code fabric.expectedSpec}), or {@code null}
 * @param expectedHdft the 2-D fat tree the fabric is meant to be ({@code fabric.expectedHdft}), or {@code null};
 *                     each discovery is then recognised against it (intact, degraded, miswired) for the log
 *                     and {@code GET /api/v1/discovery}, off the control thread
 */
public record DiscoverySettings(DaemonConfig.Discovery timing, PgftSpec expected, HdftSpec expectedHdft) {
    /** Settings without an expected 2-D fat tree. */
    public DiscoverySettings(DaemonConfig.Discovery timing, PgftSpec expected) {
        this(timing, expected, null);
    }
}
