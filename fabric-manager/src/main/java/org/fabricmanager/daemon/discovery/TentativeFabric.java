package org.fabricmanager.daemon.discovery;

import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.topology.Fabric;

/**
 * The fabric without switch {@code guid}, derived from {@code base} ahead of the switch's leaving while the ring's
 * verdict on it is confirmed ({@link DiscoveryManager#snapshotWithout}), and its {@code check} against the expected
 * shape, started on the check executor when it was derived ({@code null} when no shape is expected). The snapshot that
 * hands the fabric out once the switch has left takes both: the routing prepared from it is installed without waiting
 * for a check that would start only then (the status says CONVERGED only once the routed fabric's check has ended).
 */
record TentativeFabric(long guid, TopologyBuilder.Result base, Fabric fabric, CompletableFuture<FabricCheck> check) {

    /** The same fabric and check over {@code refreshed}, a rebuild of the base that found the same fabric. */
    TentativeFabric over(TopologyBuilder.Result refreshed) {
        return new TentativeFabric(guid, refreshed, fabric, check);
    }
}
