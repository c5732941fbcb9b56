package org.fabricmanager.daemon.routing;

import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.topology.Fabric;

/**
 * One routing computation to run: the version its tables will carry, the fabric and its fingerprint,
 * and the tables in force ({@code null} before the first), against which the new ones are compared.
 */
public record RoutingJob(long version, Fabric fabric, String fingerprint, TableSet previous) {
}
