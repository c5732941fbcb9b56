package org.fabricmanager.daemon.discovery;

import java.util.function.UnaryOperator;
import org.fabricmanager.daemon.store.IndexMapStore;

/**
 * What a {@link DiscoveryManager} builds fabrics from and checks them with.
 *
 * @param reports    the admitted switches' port reports
 * @param mask       what a quarantine hides of a switch's ports (identity when nothing is quarantined)
 * @param drained    what an operator drained: routing sees it down after the quarantine's mask, the checks see it
 * @param ordering   the order in which new end nodes get destination indices
 * @param indexStore where the destination indices are stored
 * @param checker    the check of a fabric against the expected PGFT
 */
public record DiscoverySources(PortReports reports, UnaryOperator<SwitchPorts> mask, Drained drained,
                               NodeOrdering ordering, IndexMapStore indexStore, FabricChecker checker) {
    /** Sources with nothing drained. */
    public DiscoverySources(PortReports reports, UnaryOperator<SwitchPorts> mask, NodeOrdering ordering,
                            IndexMapStore indexStore, FabricChecker checker) {
        this(reports, mask, Drained.NONE, ordering, indexStore, checker);
    }
}
