package org.fabricmanager.daemon.routing;

import org.fabricmanager.topology.Fabric;

/** One routing computation to run: the version its tables will carry, the fabric and its fingerprint. */
public record RoutingJob(long version, Fabric fabric, String fingerprint) {
}
