package org.fabricmanager.daemon.discovery;

import java.util.Collection;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.topology.PortRef;

/**
 * What a {@link DiscoveryManager} builds fabrics from and checks them with.
 *
 * @param reports    the admitted switches' port reports
 * @param mask       what a quarantine or a drain hides of a switch's ports (identity when nothing is hidden)
 * @param drained    the drained elements (port 0: a whole switch), which the check counts as drained, not missing
 * @param ordering   the order in which new end nodes get destination indices
 * @param indexStore where the destination indices are stored
 * @param checker    the check of a fabric against the expected PGFT
 */
public record DiscoverySources(PortReports reports, UnaryOperator<SwitchPorts> mask,
                               Supplier<Collection<PortRef>> drained, NodeOrdering ordering, IndexMapStore indexStore,
                               FabricChecker checker) {
}
