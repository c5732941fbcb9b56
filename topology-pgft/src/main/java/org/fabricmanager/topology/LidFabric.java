package org.fabricmanager.topology;

/** A fabric with the LIDs of its switches and end nodes, as read from a live subnet's dump. */
public record LidFabric(Fabric fabric, LidPlan lids) {
}
