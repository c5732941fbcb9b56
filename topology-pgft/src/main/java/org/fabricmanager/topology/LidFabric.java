package org.fabricmanager.topology;

/**
 * A fabric with the LIDs of its switches and end nodes as read from a live subnet's dump.
 * {@code lids} is {@code null} for a fabric whose source lists none (a generated PGFT, a
 * fabric-topology/1 file), for which callers use {@link LidPlan#sequential(Fabric)}, and when the
 * dump's LIDs are inconsistent (two devices with one LID): {@code lidProblem} then says why, and
 * only the commands that need LIDs refuse the file.
 */
public record LidFabric(Fabric fabric, LidPlan lids, String lidProblem) {
    /** A fabric with consistent LIDs, or none ({@code null}). */
    public LidFabric(Fabric fabric, LidPlan lids) {
        this(fabric, lids, null);
    }
}
