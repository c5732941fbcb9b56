package org.fabricmanager.topology;

import java.util.Collection;

/**
 * What changed between a fabric and the one derived from it by {@link Fabric#withChanges}: the switches and end
 * nodes that went (by GUID) and came, and the links taken away and added. {@link IndexDerivation} updates the older
 * fabric's index with it.
 */
record IndexChange(Collection<Long> removedSwitches, Collection<FabricSwitch> addedSwitches,
                   Collection<Long> removedNodes, Collection<EndNode> addedNodes, Collection<Link> removedLinks,
                   Collection<Link> addedLinks) {
}
