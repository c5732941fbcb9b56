package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the admitted switches' port reports into fabric snapshots. Before the first routing it waits
 * for the fabric to settle (no change for {@code discovery.settleMs}, and with an expected PGFT at least half
 * of its switches; at most {@code discovery.maxWaitMs} after the first report), or ends at once when every
 * switch and link of the expected PGFT is there;
 * that completeness is counted report by report ({@link LinkLedger}), so a report costs O(1) and the fabric
 * is built once, when complete. {@link #snapshot} builds the fabric (at most once per change), gives new
 * end nodes destination indices (stored before use), checks it against the expected PGFT (drained parts that are
 * there counted as drained, {@link DrainedParts}), and announces what changed ({@link CheckAnnouncements}). Runs on
 * the control thread.
 */
public final class DiscoveryManager {
    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryManager.class);
    private static final String SETTLE = "discovery-settle";
    private static final String DEADLINE = "discovery-deadline";
    private static final String REFRESH = "discovery-refresh";
    /** A derived fabric is checked against a build from scratch this long after the last derivation. */
    private static final long REFRESH_MS = 2_000;

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

    private final DaemonConfig.Discovery settings;
    private final PgftSpec expected;
    private final HdftSpec expectedHdft;
    private final FabricChecker checker;
    private final NodeOrdering ordering;
    private final IndexMapStore indexStore;
    private final ControlLoop queue;
    private final PortReports reports;
    private final UnaryOperator<SwitchPorts> mask;
    private final Supplier<Collection<PortRef>> drained;
    private final Executor checks;
    private final Listener listener;
    /** The snapshots' checks against the expected shape; a check's result counts only if no later one's did. */
    private final SnapshotChecks snapshotChecks;
    /** The check the completeness test made of {@link #last} (the first routing's), reused by its snapshot. */
    private FabricCheck readyCheck;
    private TopologyBuilder.Result readyBuild;
    private final LinkLedger ledger = new LinkLedger();

    private DestinationIndexMap indices = new DestinationIndexMap();
    private boolean done;
    private long firstChangeNanos = -1;
    /** The last build, and whether a report changed since (a build is reused until then). */
    private TopologyBuilder.Result last;
    private boolean stale = true;
    /** Since the last build: switches whose reports changed, switches that left, and whether anything else did. */
    private final Set<Long> dirty = new HashSet<>();
    private final Set<Long> left = new HashSet<>();
    /** Switches admitted since the last build or derivation (derived as joins unless a build is due anyway). */
    private final Set<Long> joined = new HashSet<>();
    private boolean rebuild = true;
    private long derivedSnapshots;
    private long derivedJoins;
    /** The fabric without one switch, derived ahead of its leaving ({@link #snapshotWithout}), or {@code null}. */
    private TentativeFabric tentative;
    /** Indices the last build assigned that are not stored yet. */
    private int unsaved;
    // volatile: the verdict gauge reads it at scrape time, off the control thread
    private volatile FabricCheck check;
    private final CheckAnnouncements announcements;

    /**
     * @param checks where the checks against the expected shape and the refresh builds run, off the control thread
     */
    public DiscoveryManager(DiscoverySettings settings, DiscoverySources sources, ControlLoop queue,
                            MilestoneLog milestones, Executor checks, Listener listener) {
        this.settings = settings.timing();
        this.expected = settings.expected();
        this.expectedHdft = settings.expectedHdft();
        this.checker = sources.checker();
        this.ordering = sources.ordering();
        this.indexStore = sources.indexStore();
        this.reports = sources.reports();
        this.mask = sources.mask();
        this.drained = sources.drained();
        this.queue = queue;
        this.checks = checks;
        this.listener = listener;
        String shape = expected != null ? expected.toString() : expectedHdft != null ? expectedHdft.toString() : null;
        this.snapshotChecks = new SnapshotChecks(shape);
        this.announcements = new CheckAnnouncements(milestones, shape != null);
        // discovering: a configured shape is not checked yet, which is not "no shape configured"
        this.check = shape == null ? FabricCheck.notChecked() : FabricCheck.pending(shape);
    }

    /** Loads the stored destination indices (start-up). */
    public void loadIndices() {
        indices = indexStore.load();
    }

    /** Destination indices known (stored or assigned since). */
    public int indexCount() {
        return indices.size();
    }

    /** The first contradiction between {@code claims} of switch {@code guid} and links both ends agree on. */
    public Optional<String> conflict(long guid, List<PortRecord> claims) {
        return NeighbourConflicts.find(guid, claims, reports::admittedPorts);
    }

    /** Switch {@code ports} was admitted (its records count from now on). */
    public void admitted(SwitchPorts ports) {
        for (int p = 1; p <= ports.portCount(); p++) {
            ledger.replace(ports, PortRecord.down(p), ports.port(p), reports);
        }
        stale = true;
        // a switch back from a reboot joins the fabric in force by derivation (a build from scratch held the control
        // thread 0.3-1.2 s at 5,120 switches), a leaf with its nodes when they come back with their indices
        joined.add(ports.guid());
    }

    /** Admitted switch {@code ports} is leaving (call while it is still admitted). */
    public void leaving(SwitchPorts ports) {
        for (int p = 1; p <= ports.portCount(); p++) {
            ledger.replace(ports, ports.port(p), PortRecord.down(p), reports);
        }
        for (int p = 1; p <= ports.portCount(); p++) {
            if (movesToAnotherClaim(ports.port(p))) {
                rebuild = true; // a node it claimed goes to another claim: a build decides which
            } // otherwise its nodes leave with it, derived (a leaf's death at 5,120 switches was a build)
        }
        stale = true;
        joined.remove(ports.guid()); // joined and gone again before any snapshot: nothing to add
        left.add(ports.guid());
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
            ledger.replace(ports, before, r, reports);
            stale = true;
            dirty.add(ports.guid());
            if (movesToAnotherClaim(before)) {
                // its node goes to the other claim, a switch whose report did not change: a build decides; a node's link
                // going down or coming back (a reboot) is derived, and FabricDelta gives up on a node it cannot place
                rebuild = true;
            }
        }
        return true;
    }

    /** What {@link FabricDelta} needs to bring a node back: its claims and its stored index. */
    private final FabricDelta.Nodes nodes = new FabricDelta.Nodes() {
        @Override
        public int claims(long guid) {
            return ledger.nodeClaims(guid);
        }

        @Override
        public int index(long guid) {
            return indices.indexOf(guid);
        }
    };

    /** {@code was} claimed a node (up) that another port of an admitted switch claims now. */
    private boolean movesToAnotherClaim(PortRecord was) {
        return was.isUp() && was.peerKind() == PortRecord.PeerKind.NODE && ledger.nodeClaims(was.peerGuid()) > 0;
    }

    /** Something beyond the reports changed what a build yields: a quarantine (the mask) began or ended. */
    public void invalidate() {
        stale = true;
        rebuild = true;
    }

    /** True once the first routing was started. */
    public boolean done() {
        return done;
    }

    /**
     * The fabric changed before discovery settled: re-arm the settle window, or end discovery now when
     * the expected fabric is complete.
     */
    public void changed() {
        if (done) {
            return;
        }
        if (firstChangeNanos < 0) {
            firstChangeNanos = System.nanoTime();
            queue.scheduleDeferred(DEADLINE, settings.maxWaitMs(), () -> settle("maximum discovery wait reached"));
        }
        if (expectedComplete()) {
            settle("every expected switch and link is present");
            return;
        }
        queue.scheduleDeferred(SETTLE, settings.settleMs(), this::quiet);
    }

    /**
     * No change for the settle window. With an expected PGFT, a fabric that has not half of its switches yet
     * is still arriving (agents of thousands of switches start over seconds, from several hosts): the window
     * is re-armed, and the maximum wait still ends discovery.
     */
    private void quiet() {
        if (expected != null && 2L * reports.admittedCount() < expected.totalSwitchCount()) {
            LOG.debug("discovery: {} of {} expected switches after {} ms without change: waiting on",
                    reports.admittedCount(), expected.totalSwitchCount(), settings.settleMs());
            queue.scheduleDeferred(SETTLE, settings.settleMs(), this::quiet);
            return;
        }
        settle("no change for " + settings.settleMs() + " ms");
    }

    private boolean expectedComplete() {
        if (expected == null || reports.admittedCount() < expected.totalSwitchCount()
                || ledger.links() < expected.totalLinkCount()) {
            return false;
        }
        // try on a copy of the indices: a fabric that is not the expected one yet must not number its nodes
        DestinationIndexMap trial = indices.copy();
        TopologyBuilder.Result r = TopologyBuilder.build(admittedMasked(), trial, expected, ordering);
        FabricCheck c = r.fabric().links().size() >= expected.totalLinkCount() ? checker.check(r.fabric(), expected) : null;
        boolean complete = c != null && c.verdict() == FabricCheck.Verdict.INTACT;
        if (complete) {
            readyCheck = c;
            readyBuild = r;
            // the routing that follows at once needs this very fabric: keep the build and its numbering
            indices = trial;
            last = r;
            unsaved += r.newIndices();
            // a build from every report: what was pending is in it (the first fault after it can be derived)
            stale = false;
            rebuild = false;
            dirty.clear();
            left.clear();
            joined.clear();
        }
        return complete;
    }

    private void settle(String why) {
        if (done) {
            return;
        }
        cancel();
        done = true;
        LOG.debug("discovery settled: {}", why);
        listener.settled(why);
    }

    /** Every switch is gone: discover again (settle window) before the next routing. */
    public void restart() {
        done = false;
        firstChangeNanos = -1;
        // the summary, the verdict gauge and readiness must not go on describing the fabric that was: check
        // the empty one now (nothing is routed from it; the next discovery routes)
        snapshot();
    }

    /** Cancels the pending settle events (stopping). */
    public void cancel() {
        queue.cancelDeferred(SETTLE);
        queue.cancelDeferred(DEADLINE);
        queue.cancelDeferred(REFRESH);
    }

    /**
     * The fabric of the admitted switches now (quarantined ports down), with every end node's destination
     * index (new ones are assigned in topological order and stored before use). Built once per change:
     * without a report since the last build, that build is reused. Its check against the expected PGFT runs
     * on the check executor and comes back as a control event ({@link #check()} then, and the milestone).
     */
    public TopologyBuilder.Result snapshot() {
        CompletableFuture<FabricCheck> checkedAhead = null;
        if (stale || last == null) {
            long begin = System.nanoTime();
            Fabric derived = rebuild || last == null || unsaved > 0 ? null
                    : tentativeFits() ? tentative.fabric()
                    : FabricDelta.apply(last.fabric(), dirty, left, joined, reports, mask, nodes);
            if (derived != null && tentative != null && derived == tentative.fabric()) {
                checkedAhead = tentative.check();
            }
            tentative = null;
            if (derived != null) {
                derivedSnapshots++;
                if (!joined.isEmpty()) {
                    derivedJoins++;
                }
                // the claims not taken are the last build's until the refresh rebuilds (off a fault's path)
                last = new TopologyBuilder.Result(derived, last.issues(), 0);
                queue.scheduleDeferred(REFRESH, REFRESH_MS, this::refresh);
            } else {
                last = TopologyBuilder.build(admittedMasked(), indices, expected, ordering);
                unsaved += last.newIndices();
            }
            stale = false;
            rebuild = false;
            dirty.clear();
            left.clear();
            joined.clear();
            LOG.debug("snapshot {} in {} ms", derived != null ? "derived" : "built",
                    String.format("%.1f", (System.nanoTime() - begin) / 1e6));
        }
        TopologyBuilder.Result r = last;
        if (unsaved > 0) {
            try {
                indexStore.save(indices);
                LOG.info("assigned {} new destination indices in topological order ({} in {})", unsaved,
                        indices.size(), indexStore.file());
            } catch (StoreException e) {
                LOG.error("assigned {} new destination indices but cannot store them ({}); routing anyway, but they "
                        + "may change after a restart", unsaved, e.getMessage());
            }
            unsaved = 0;
        }
        Fabric fabric = r.fabric();
        long seq = snapshotChecks.next();
        FabricCheck ready = readyCheck;
        readyCheck = null;
        if (expected == null && expectedHdft == null) {
            checked(seq, r, FabricCheck.notChecked());
        } else if (ready != null && readyBuild == r) {
            checked(seq, r, ready); // the completeness test checked this very build
        } else if (checkedAhead != null) {
            // checked while the verdict on its switch was confirmed (TentativeFabric); an event, as the others: the
            // coordinator is in the middle of a re-route
            checkedAhead.thenAccept(c -> queue.append("fabric-check", () -> checked(seq, r, c)));
        } else {
            // recognising 5,120 switches takes tens of milliseconds: off the control thread, so a fault's
            // re-route does not wait for the operator's verdict
            DrainedParts parts = drainedParts();
            checks.execute(() -> {
                FabricCheck c = ShapeCheck.of(fabric, expected, expectedHdft, checker, parts);
                queue.append("fabric-check", () -> checked(seq, r, c));
            });
        }
        return r;
    }


    /**
     * The fabric as {@link #snapshot} will give it once switch {@code guid} has left, if nothing else changes before:
     * derived now, ahead of the leaving, and handed out again by that snapshot (the very same object, which the
     * routing prepared from it recognises). Changes nothing else. {@code null} when the fabric cannot be derived
     * this way (changes pending since the last snapshot, a build due, the switch not in the fabric, or it claims a node
     * that another port claims too, whose fate a build decides when it leaves). Its check against the expected shape
     * starts now, and that snapshot takes it.
     */
    public Fabric snapshotWithout(long guid) {
        if (!done || stale || rebuild || last == null || unsaved > 0
                || last.fabric().index().switchId(guid) == FabricIndex.NONE) {
            return null;
        }
        SwitchPorts ports = reports.admittedPorts(guid);
        for (int p = 1; ports != null && p <= ports.portCount(); p++) {
            PortRecord r = ports.port(p);
            if (r.isUp() && r.peerKind() == PortRecord.PeerKind.NODE && ledger.nodeClaims(r.peerGuid()) > 1) {
                return null; // a node of it would go to another claim when it leaves: a build decides (see leaving)
            }
        }
        Fabric derived = FabricDelta.apply(last.fabric(), Set.of(), Set.of(guid), Set.of(), reports, mask, nodes);
        tentative = derived == null ? null : new TentativeFabric(guid, last, derived, checkAhead(derived));
        return derived;
    }

    /** Starts the check of {@code fabric}, derived ahead of a change, on the check executor ({@code null}: no shape). */
    private CompletableFuture<FabricCheck> checkAhead(Fabric fabric) {
        if (expected == null && expectedHdft == null) {
            return null;
        }
        CompletableFuture<FabricCheck> c = new CompletableFuture<>();
        DrainedParts parts = drainedParts();
        checks.execute(() -> c.complete(ShapeCheck.of(fabric, expected, expectedHdft, checker, parts)));
        return c;
    }

    /** Forgets the fabric derived ahead of a leaving that did not happen (the verdict was refuted). */
    public void forgetTentative() {
        tentative = null;
    }

    /** The tentative fabric is the one due: derived from the last snapshot, and its switch alone left since. */
    private boolean tentativeFits() {
        return tentative != null && tentative.base() == last && dirty.isEmpty() && joined.isEmpty() && left.size() == 1
                && left.contains(tentative.guid());
    }

    /**
     * Rebuilds from scratch after fabrics were derived: the claims not taken are current again, and a derived
     * fabric that differs from the build (which would be a bug) is logged and replaced, and routed again. The build
     * runs on the check executor from copies of the reports (at 5,120 switches it took the control thread 1.3-2.5 s
     * under load, during which the next fault waited); its result counts if no snapshot was taken meanwhile.
     */
    private void refresh() {
        if (stale || last == null) {
            return; // a snapshot is due anyway
        }
        TopologyBuilder.Result base = last;
        List<SwitchPorts> copies = new ArrayList<>(reports.admittedCount());
        reports.forEachAdmitted(p -> copies.add(mask.apply(p).copy()));
        DestinationIndexMap trial = indices.copy();
        checks.execute(() -> {
            long begin = System.nanoTime();
            TopologyBuilder.Result built = TopologyBuilder.build(copies, trial, expected, ordering);
            boolean same = built.newIndices() == 0 && built.fabric().equals(base.fabric());
            LOG.debug("discovery refresh: built in {} ms, {}", String.format("%.1f", (System.nanoTime() - begin) / 1e6),
                    same ? "the derived fabric is the built one" : "it differs from the derived one");
            queue.append("discovery-refreshed", () -> refreshed(base, built, trial, same));
        });
    }

    /** The refresh's build of {@code base}'s reports is done ({@code same}: it found the derived fabric). */
    private void refreshed(TopologyBuilder.Result base, TopologyBuilder.Result built, DestinationIndexMap trial,
                           boolean same) {
        if (last != base) {
            return; // a snapshot since: a derived one refreshes again, a built one needs nothing
        }
        if (!same) {
            LOG.error("discovery: the fabric derived from the last changes differs from the one the reports build "
                    + "({} against {}); routing the built one", base.fabric(), built.fabric());
            if (stale) {
                rebuild = true; // reports changed since the copies: the snapshot due builds from scratch
                return;
            }
            indices = trial;
            unsaved += built.newIndices();
            last = built;
            listener.rebuilt();
            return;
        }
        last = new TopologyBuilder.Result(base.fabric(), built.issues(), 0);
        if (tentative != null && tentative.base() == base) {
            // a routing prepared from the fabric without one switch stays good: same fabric, claims refreshed
            tentative = tentative.over(last);
        }
    }


    private void checked(long seq, TopologyBuilder.Result r, FabricCheck c) {
        if (!snapshotChecks.complete(seq, c)) {
            return;
        }
        FabricCheck before = check;
        check = c;
        announcements.checked(r, before, c);
        listener.checked();
    }

    /** The drained parts present and up now, from the reports as the switches gave them (control thread). */
    private DrainedParts drainedParts() {
        return DrainedParts.of(drained.get(), reports, indices);
    }

    private List<SwitchPorts> admittedMasked() {
        List<SwitchPorts> ports = new ArrayList<>(reports.admittedCount());
        reports.forEachAdmitted(p -> ports.add(mask.apply(p)));
        return ports;
    }

    /** The last built fabric, or {@code null} before the first build. */
    public TopologyBuilder.Result last() {
        return last;
    }

    /** The last check against the expected PGFT that ended (pending before the first). */
    public FabricCheck check() {
        return check;
    }

    /** The number of the last snapshot (for {@link #inForce}). */
    public long snapshotNumber() {
        return snapshotChecks.last();
    }

    /** The fabric of snapshot {@code number} is now the routed one (computed, reused, or equal to the one routed). */
    public void inForce(long number) {
        snapshotChecks.inForce(number);
    }

    /**
     * The check of the fabric the routing in force was computed for: {@link FabricCheck.Verdict#PENDING} while it
     * runs, never the verdict of another snapshot; the last snapshot's before the first routing.
     */
    public FabricCheck routedCheck() {
        return snapshotChecks.ofRouted(check);
    }

    /** The check of the last snapshot: pending while it runs (discovering again after every switch left). */
    public FabricCheck lastCheck() {
        return snapshotChecks.ofLast(check);
    }

    /** Derived snapshots in which switches joined (for tests). */
    long derivedJoins() {
        return derivedJoins;
    }

    /** Snapshots derived from the previous fabric rather than built (for tests). */
    long derivedSnapshots() {
        return derivedSnapshots;
    }

    /** The completeness counts (for tests). */
    LinkLedger ledger() {
        return ledger;
    }

    /** The expected PGFT, or {@code null}. */
    public PgftSpec expected() {
        return expected;
    }
}
