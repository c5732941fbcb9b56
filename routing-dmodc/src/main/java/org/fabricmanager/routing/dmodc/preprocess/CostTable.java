package org.fabricmanager.routing.dmodc.preprocess;

/**
 * Dmodc's cost {@code c[s][leaf]}: the length of the shortest up*&#47;down* path from switch
 * {@code s} to a leaf switch, one byte per (switch, leaf) in one flat array, row by switch id,
 * column by leaf number. Costs in a fat tree are a few hops, so a byte is plenty: finite costs are
 * at most {@link #MAX_FINITE} and {@link #INFINITE} marks "no up*&#47;down* path". The table is
 * exactly {@code switches x leaves} bytes.
 */
public final class CostTable {
    /** Cost of an unreachable leaf. */
    public static final int INFINITE = 127;
    /** Largest finite cost (twice the largest rank Dmodc accepts). */
    public static final int MAX_FINITE = 126;

    private final byte[] costs;
    private final int switches;
    private final int leaves;

    public CostTable(int switches, int leaves) {
        long size = (long) switches * leaves;
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException(switches + " switches x " + leaves + " leaves do not fit one cost array");
        }
        this.costs = new byte[(int) size];
        this.switches = switches;
        this.leaves = leaves;
    }

    public int switchCount() {
        return switches;
    }

    public int leafCount() {
        return leaves;
    }

    /** The cost of switch {@code s} to leaf number {@code leaf}, or {@link #INFINITE}. */
    public int cost(int s, int leaf) {
        return costs[s * leaves + leaf];
    }

    public boolean isFinite(int s, int leaf) {
        return costs[s * leaves + leaf] != INFINITE;
    }

    /** Bytes held by the costs (one per switch and leaf), header excluded. */
    public long byteSize() {
        return costs.length;
    }

    /** The backing array, row {@code s} at offset {@code s * leafCount()}; for the engine's loops only. */
    public byte[] array() {
        return costs;
    }
}
