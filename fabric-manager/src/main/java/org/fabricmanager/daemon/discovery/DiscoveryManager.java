package org.fabricmanager.daemon.discovery;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;

/**
 * Discovery as the coordinator sees it: takes the admitted switches' port reports, says when the first routing may
 * start ({@link DiscoverySettle}; the expected PGFT's completeness is counted report by report by {@link LinkLedger},
 * so a report costs O(1) and the fabric is built once, when complete), hands out fabric snapshots
 * ({@link FabricSnapshots}) and has each checked against the expected shape ({@link SnapshotChecks}). Control thread.
 */
public final class DiscoveryManager {
    /** Told when discovery has settled and the first routing should start. */
    @FunctionalInterface
    public interface Listener {
        void settled(String why);

        /** A build from scratch found another fabric than the one derived: route again. */
        default void rebuilt() {
        }

        /** A snapshot's check against the expected shape ended (the status may change with it). */
        default void checked() {
        }
    }

    private final PgftSpec expected;
    private final FabricChecker checker;
    private final PortReports reports;
    private final Supplier<Collection<PortRef>> drained;
    private final DiscoverySettle settle;
    private final FabricSnapshots snapshots;
    private final SnapshotChecks checks;
    /** The check the completeness test made of the build it kept (the first routing's), reused by its snapshot. */
    private FabricCheck readyCheck;
    private TopologyBuilder.Result readyBuild;
    private IntSupplier storedSwitches = () -> -1;
    private Predicate<Fabric> storedFits = f -> false;
    private LongPredicate storedHas = g -> false;

    /**
     * @param checks where the checks against the expected shape and the refresh builds run, off the control thread
     */
    public DiscoveryManager(DiscoverySettings settings, DiscoverySources sources, ControlLoop queue,
                            MilestoneLog milestones, Executor checks, Listener listener) {
        this.expected = settings.expected();
        this.checker = sources.checker();
        this.reports = sources.reports();
        this.drained = sources.drained();
        this.snapshots = new FabricSnapshots(sources, expected, queue, checks, listener::rebuilt);
        this.checks = new SnapshotChecks(settings, checker, checks, queue, milestones, listener::checked);
        this.settle = new DiscoverySettle(settings.timing(), expected, queue, reports::admittedCount,
                this::expectedComplete, new DiscoverySettle.Stored(this::storedComplete, this::storedAwaited),
                listener::settled);
    }

    /**
     * The stored routing's fabric: {@code switchCount} gives its switch count (-1 when no stored routing waits to be
     * reused), {@code fits} whether a fabric is the one it was computed for, {@code has} whether a switch has a
     * table in it. With it, a restart's or a takeover's discovery ends as soon as that fabric is all here, whether or
     * not it is the expected PGFT complete, and waits for its switches that are cabled up but not connected yet.
     */
    public void storedRouting(IntSupplier switchCount, Predicate<Fabric> fits, LongPredicate has) {
        this.storedSwitches = switchCount;
        this.storedFits = fits;
        this.storedHas = has;
    }

    /** Loads the stored destination indices (start-up). */
    public void loadIndices() {
        snapshots.loadIndices();
    }

    /** Destination indices known (stored or assigned since). */
    public int indexCount() {
        return snapshots.indices().size();
    }

    /** The first contradiction between {@code claims} of switch {@code guid} and links both ends agree on. */
    public Optional<String> conflict(long guid, List<PortRecord> claims) {
        return NeighbourConflicts.find(guid, claims, reports::admittedPorts);
    }

    /** Switch {@code ports} was admitted (its records count from now on). */
    public void admitted(SwitchPorts ports) {
        snapshots.admitted(ports);
    }

    /** Admitted switch {@code ports} is leaving (call while it is still admitted). */
    public void leaving(SwitchPorts ports) {
        snapshots.leaving(ports);
    }

    /**
     * Stores a report of switch {@code ports} ({@code admitted}: it counts in the fabric).
     *
     * @return true when the record changed
     */
    public boolean report(SwitchPorts ports, PortRecord r, boolean admitted) {
        PortRecord before = ports.port(r.port());
        if (!ports.update(r)) {
            return false;
        }
        if (admitted) {
            snapshots.reported(ports, before, r);
        }
        return true;
    }

    /**
     * OpenSM's end ports answer to 2^{@code lmc} LIDs each: the next snapshot is built with it.
     *
     * @return whether it changed
     */
    public boolean lmc(int lmc) {
        return snapshots.lmc(lmc);
    }

    /** Something beyond the reports changed what a build yields: a quarantine (the mask) began or ended. */
    public void invalidate() {
        snapshots.invalidate();
    }

    /** True once the first routing was started. */
    public boolean done() {
        return settle.done();
    }

    /**
     * The fabric changed before discovery settled: re-arm the settle window, or end discovery now when
     * the expected fabric is complete.
     */
    public void changed() {
        settle.changed();
    }

    private boolean storedComplete() {
        int n = storedSwitches.getAsInt();
        return n > 0 && reports.admittedCount() == n && snapshots.completeStored(storedFits);
    }

    /** Switches of the stored routing that connected ones see up at a cable's end but that have not connected. */
    private int storedAwaited() {
        return storedSwitches.getAsInt() > 0 ? snapshots.ledger().claimedAbsent(reports, storedHas) : 0;
    }

    private boolean expectedComplete() {
        if (expected == null || reports.admittedCount() < expected.totalSwitchCount()
                || snapshots.ledger().links() < expected.totalLinkCount()) {
            return false;
        }
        FabricCheck c = snapshots.completeExpected(checker);
        if (c == null) {
            return false;
        }
        readyCheck = c;
        readyBuild = snapshots.last();
        return true;
    }

    /** Every switch is gone: discover again (settle window) before the next routing. */
    public void restart() {
        settle.restart();
        // the summary, the verdict gauge and readiness must not go on describing the fabric that was: check
        // the empty one now (nothing is routed from it; the next discovery routes)
        snapshot();
    }

    /** Cancels the pending settle events (stopping). */
    public void cancel() {
        settle.cancel();
        snapshots.cancel();
    }

    /**
     * The fabric of the admitted switches now (quarantined ports down), with every end node's destination
     * index (new ones are assigned in topological order and stored before use). Built once per change:
     * without a report since the last build, that build is reused. Its check against the expected PGFT runs
     * on the check executor and comes back as a control event ({@link #check()} then, and the milestone).
     */
    public TopologyBuilder.Result snapshot() {
        FabricSnapshots.Snapshot s = snapshots.take();
        TopologyBuilder.Result r = s.result();
        FabricCheck ready = readyBuild == r ? readyCheck : null; // the completeness test checked this very build
        readyCheck = null;
        checks.start(r, ready, s.checkedAhead(), this::drainedParts);
        return r;
    }

    /**
     * The fabric as {@link #snapshot} will give it once switch {@code guid} has left, if nothing else changes before:
     * derived now, ahead of the leaving, and handed out again by that snapshot (the very same object, which the
     * routing prepared from it recognises). Changes nothing else. {@code null} when the fabric cannot be derived
     * this way ({@link FabricSnapshots#without}), or before discovery is done. Its check against the expected shape
     * starts now, and that snapshot takes it.
     */
    public Fabric snapshotWithout(long guid) {
        return settle.done() ? snapshots.without(guid, f -> checks.ahead(f, drainedParts())) : null;
    }

    /** Forgets the fabric derived ahead of a leaving that did not happen (the verdict was refuted). */
    public void forgetTentative() {
        snapshots.forgetTentative();
    }

    /** The drained parts present and up now, from the reports as the switches gave them (control thread). */
    private DrainedParts drainedParts() {
        return DrainedParts.of(drained.get(), reports, snapshots.indices());
    }

    /** The last built fabric, or {@code null} before the first build. */
    public TopologyBuilder.Result last() {
        return snapshots.last();
    }

    /** The last check against the expected PGFT that ended (pending before the first). */
    public FabricCheck check() {
        return checks.check();
    }

    /** The number of the last snapshot (for {@link #inForce}). */
    public long snapshotNumber() {
        return checks.last();
    }

    /** The fabric of snapshot {@code number} is now the routed one (computed, reused, or equal to the one routed). */
    public void inForce(long number) {
        checks.inForce(number);
    }

    /**
     * The check of the fabric the routing in force was computed for: {@link FabricCheck.Verdict#PENDING} while it
     * runs, never the verdict of another snapshot; the last snapshot's before the first routing.
     */
    public FabricCheck routedCheck() {
        return checks.ofRouted();
    }

    /** The check of the last snapshot: pending while it runs (discovering again after every switch left). */
    public FabricCheck lastCheck() {
        return checks.ofLast();
    }

    /** Derived snapshots in which switches joined (for tests). */
    long derivedJoins() {
        return snapshots.derivedJoins();
    }

    /** Snapshots derived from the previous fabric rather than built (for tests). */
    long derivedSnapshots() {
        return snapshots.derivedSnapshots();
    }

    /** The completeness counts (for tests). */
    LinkLedger ledger() {
        return snapshots.ledger();
    }

    /** The expected PGFT, or {@code null}. */
    public PgftSpec expected() {
        return expected;
    }
}
