package org.fabricmanager.routing.analysis;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;

/**
 * A fabric bound to forwarding tables computed for it: the same switches in the same (ascending
 * GUID) order and one entry per destination index. Binding checks this once, so that tables read
 * from a file for another fabric are rejected with a message naming the first difference instead
 * of producing meaningless traces. Also holds what every analysis needs: the directed link
 * numbering, the attached nodes in destination-index order and the number of attached nodes per
 * switch.
 *
 * <p>With an LMC ({@link FabricIndex#lmc()}) a node is {@link #lids()} destinations in a row: the attached nodes
 * are named by the destination index of their base LID, and the traffic patterns send one flow from a source
 * node to each LID of its destination (the multipath a site sets the LMC for).
 */
public final class RoutedFabric {
    private final FabricIndex index;
    private final ForwardingTables tables;
    private final DirectedLinks links;
    private final int[] attachedDestinations;
    private final int[] attachedPerSwitch;

    private RoutedFabric(FabricIndex index, ForwardingTables tables) {
        this.index = index;
        this.tables = tables;
        this.links = DirectedLinks.of(index);
        int count = 0;
        attachedPerSwitch = new int[index.switchCount()];
        for (int d = 0; d < index.destinationCount(); d++) {
            int pos = index.nodeByDestination(d);
            if (attachedBase(index, pos)) {
                count++;
                attachedPerSwitch[index.nodeLeaf(pos)]++;
            }
        }
        attachedDestinations = new int[count];
        for (int d = 0, k = 0; d < index.destinationCount(); d++) {
            if (attachedBase(index, index.nodeByDestination(d))) {
                attachedDestinations[k++] = d;
            }
        }
    }

    /** Whether {@code pos} is the base LID's position (path bits 0) of a node linked to a leaf. */
    private static boolean attachedBase(FabricIndex index, int pos) {
        return pos != FabricIndex.NONE && index.nodeLeaf(pos) != FabricIndex.NONE && index.pathBits(pos) == 0;
    }

    /**
     * Binds {@code tables} to {@code index}.
     *
     * @throws IllegalArgumentException when the tables are not for this fabric: other switches,
     *                                  another order, or another number of destination indices
     */
    public static RoutedFabric of(FabricIndex index, ForwardingTables tables) {
        if (tables.switchCount() != index.switchCount()) {
            throw new IllegalArgumentException("forwarding tables are not for this fabric: they have "
                    + tables.switchCount() + " switches, the fabric has " + index.switchCount());
        }
        for (int s = 0; s < index.switchCount(); s++) {
            if (tables.switchGuid(s) != index.switchGuid(s)) {
                throw new IllegalArgumentException("forwarding tables are not for this fabric: switch "
                        + Guids.format(index.switchGuid(s)) + " has no table (the tables have "
                        + Guids.format(tables.switchGuid(s)) + " in its place)");
            }
        }
        if (tables.destinationCount() != index.destinationCount()) {
            throw new IllegalArgumentException("forwarding tables are not for this fabric: they have "
                    + tables.destinationCount() + " entries per switch, the fabric's destination indices are 0.."
                    + (index.destinationCount() - 1));
        }
        return new RoutedFabric(index, tables);
    }

    public FabricIndex index() {
        return index;
    }

    public ForwardingTables tables() {
        return tables;
    }

    public DirectedLinks links() {
        return links;
    }

    /** Number of nodes attached to a leaf (the N of the traffic patterns). */
    public int attachedCount() {
        return attachedDestinations.length;
    }

    /**
     * LIDs per node (2^lmc): the {@code i}-th attached node's LIDs are destinations {@code attachedDestination(i)}
     * to {@code attachedDestination(i) + lids() - 1}.
     */
    public int lids() {
        return 1 << index.lmc();
    }

    /** The destination index of the {@code i}-th attached node's base LID, ascending. */
    public int attachedDestination(int i) {
        return attachedDestinations[i];
    }

    /** Attached nodes on switch {@code s} (nodes, not LIDs). */
    public int attachedOn(int s) {
        return attachedPerSwitch[s];
    }

    /** The leaf switch of destination {@code d}, or {@link FabricIndex#NONE} for an unused index or a detached node. */
    public int leafOf(int d) {
        int pos = index.nodeByDestination(d);
        return pos == FabricIndex.NONE ? FabricIndex.NONE : index.nodeLeaf(pos);
    }

    int[] attachedDestinationArray() {
        return attachedDestinations;
    }

    int[] attachedPerSwitchArray() {
        return attachedPerSwitch;
    }
}
