package org.fabricmanager.routing.dmodc.preprocess;

import org.fabricmanager.topology.FabricIndex;

/**
 * What one run of Procedure 1 reads and writes, shared by the full computation ({@link CostDivider})
 * and the update after faults: the snapshot's switches, ranks and neighbours, the cost rows being
 * written (the table and its backing array, {@code leaves} bytes a switch, the first {@code wide}
 * of them handled eight at a time), the dividers, the final rows' profiles and the down pass over
 * them. The fields are read in the rows' inner loops, so the runs extend this class instead of
 * holding it: a field of the run itself, no extra load per leaf.
 */
abstract class CostRows {
    protected final FabricIndex index;
    protected final Ranks ranks;
    protected final Neighbours neighbours;
    protected final int leaves;
    protected final int wide;
    protected final CostTable table;
    protected final byte[] c;
    protected final int[] divider;
    /** Final rows, profiled as soon as they are final. */
    protected final RowProfiles profiles;
    protected final DownPass down;

    /** Empty rows, dividers and profiles for the switches and leaves of {@code index}. */
    protected CostRows(FabricIndex index, Ranks ranks, Neighbours neighbours) {
        this.index = index;
        this.ranks = ranks;
        this.neighbours = neighbours;
        this.leaves = index.leafCount();
        this.wide = leaves & ~7;
        int switches = index.switchCount();
        this.table = new CostTable(switches, leaves);
        this.c = table.array();
        this.divider = new int[switches];
        this.profiles = new RowProfiles(switches);
        this.down = new DownPass(table, neighbours, profiles);
    }
}
