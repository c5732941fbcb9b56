package org.fabricmanager.daemon.routing;

import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.topology.Fabric;

/**
 * One routing computation to run: the version its tables will carry, the fabric, the tables in force
 * ({@code null} before the first), against which the new ones are compared, and the fingerprint of the
 * fabric they were computed for ({@code null}: none), so that a fabric equal to it is not routed again. The
 * new fabric's fingerprint is computed with the job, off the control thread. {@code inFull}: routed by the engine
 * even when changes are repaired ({@code routing.onFault: repair}), and the base of the repairs after it.
 * {@code previousFabric} is the fabric the tables in force route ({@code null}: none), against which the job's
 * {@link NodeImpact} is taken. {@code refine}: the tables in force, a repair, refined for the same fabric
 * ({@link org.fabricmanager.routing.TableRepairer#refine}); a job whose fabric changed is routed as usual.
 */
public record RoutingJob(long version, Fabric fabric, TableSet previous, String activeFingerprint, boolean inFull,
                         Fabric previousFabric, boolean refine) {
    /** A job that is not a refinement. */
    public RoutingJob(long version, Fabric fabric, TableSet previous, String activeFingerprint, boolean inFull,
                      Fabric previousFabric) {
        this(version, fabric, previous, activeFingerprint, inFull, previousFabric, false);
    }

    /** A job routed as {@code routing.onFault} says, whose impact on the end nodes is not taken. */
    public RoutingJob(long version, Fabric fabric, TableSet previous, String activeFingerprint) {
        this(version, fabric, previous, activeFingerprint, false, null);
    }

    /** A job whose impact on the end nodes is not taken (no previous fabric). */
    public RoutingJob(long version, Fabric fabric, TableSet previous, String activeFingerprint, boolean inFull) {
        this(version, fabric, previous, activeFingerprint, inFull, null);
    }
}
