package org.fabricmanager.daemon.discovery;

import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftSpec;

/** Compares a discovered fabric with the expected PGFT. */
@FunctionalInterface
public interface FabricChecker {
    /** The comparison; {@code expected} is never {@code null}. */
    FabricCheck check(Fabric discovered, PgftSpec expected);
}
