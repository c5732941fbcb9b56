package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fabric the admitted switches' reports describe, built at most once per change: from scratch
 * ({@link TopologyBuilder}), or derived from the last one by the changes since ({@link FabricDelta}) and rebuilt from
 * scratch off the control thread a little later to confirm it; the fabric without one switch derived ahead of its
 * leaving ({@link TentativeFabric}); and every end node's destination index, assigned in topological order and
 * stored before use. Control thread.
 */
final class FabricSnapshots {
    private static final Logger LOG = LoggerFactory.getLogger(FabricSnapshots.class);
    private static final String REFRESH = "discovery-refresh";
    /** A derived fabric is checked against a build from scratch this long after the last derivation. */
    private static final long REFRESH_MS = 2_000;

    /** A snapshot: the fabric, and the check of it started when it was derived ahead, or {@code null}. */
    record Snapshot(TopologyBuilder.Result result, CompletableFuture<FabricCheck> checkedAhead) {
    }

    private final PortReports reports;
    private final UnaryOperator<SwitchPorts> mask;
    private final PgftSpec expected;
    private final NodeOrdering ordering;
    private final IndexMapStore indexStore;
    private final ControlLoop queue;
    /** Where the refresh builds run, off the control thread. */
    private final Executor builds;
    /** Told when a build from scratch found another fabric than the one derived. */
    private final Runnable rebuilt;
    private final LinkLedger ledger = new LinkLedger();

    private DestinationIndexMap indices = new DestinationIndexMap();
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
    /** The fabric without one switch, derived ahead of its leaving ({@link #without}), or {@code null}. */
    private TentativeFabric tentative;
    /** Indices the last build assigned that are not stored yet. */
    private int unsaved;
    /** The LMC of OpenSM's end ports (0 without OpenSM): every fabric built has it. */
    private int lmc;

    FabricSnapshots(DiscoverySources sources, PgftSpec expected, ControlLoop queue, Executor builds, Runnable rebuilt) {
        this.reports = sources.reports();
        this.mask = sources.mask();
        this.ordering = sources.ordering();
        this.indexStore = sources.indexStore();
        this.expected = expected;
        this.queue = queue;
        this.builds = builds;
        this.rebuilt = rebuilt;
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

    /**
     * Every end port answers to 2^{@code lmc} LIDs from now on (OpenSM's subnet said so): the next snapshot is built
     * whole with it. Agents' fabrics keep 0.
     *
     * @return whether it changed
     */
    boolean lmc(int lmc) {
        if (lmc == this.lmc) {
            return false;
        }
        this.lmc = lmc;
        invalidate();
        return true;
    }

    private TopologyBuilder.Result build(List<SwitchPorts> switches, DestinationIndexMap into) {
        return withLmc(TopologyBuilder.build(switches, into, expected, ordering), lmc);
    }

    private static TopologyBuilder.Result withLmc(TopologyBuilder.Result r, int lmc) {
        return lmc == 0 ? r : new TopologyBuilder.Result(r.fabric().withLmc(lmc), r.issues(), r.newIndices());
    }

    void loadIndices() {
        indices = indexStore.load();
    }

    DestinationIndexMap indices() {
        return indices;
    }

    LinkLedger ledger() {
        return ledger;
    }

    /** Switch {@code ports} was admitted (its records count from now on). */
    void admitted(SwitchPorts ports) {
        for (int p = 1; p <= ports.portCount(); p++) {
            ledger.replace(ports, PortRecord.down(p), ports.port(p), reports);
        }
        stale = true;
        // a switch back from a reboot joins the fabric in force by derivation (a build from scratch holds the control
        // thread for as long as the whole fabric takes), a leaf with its nodes when they come back with their indices
        joined.add(ports.guid());
    }

    /** Admitted switch {@code ports} is leaving (call while it is still admitted). */
    void leaving(SwitchPorts ports) {
        for (int p = 1; p <= ports.portCount(); p++) {
            ledger.replace(ports, ports.port(p), PortRecord.down(p), reports);
        }
        for (int p = 1; p <= ports.portCount(); p++) {
            if (movesToAnotherClaim(ports.port(p))) {
                rebuild = true; // a node it claimed goes to another claim: a build decides which
            } // otherwise its nodes leave with it, derived (a leaf's death is no reason for a build)
        }
        stale = true;
        joined.remove(ports.guid()); // joined and gone again before any snapshot: nothing to add
        left.add(ports.guid());
    }

    /** Admitted switch {@code ports}'s record changed from {@code before}. */
    void reported(SwitchPorts ports, PortRecord before, PortRecord now) {
        ledger.replace(ports, before, now, reports);
        stale = true;
        dirty.add(ports.guid());
        if (movesToAnotherClaim(before)) {
            // its node goes to the other claim, a switch whose report did not change: a build decides; a node's link
            // going down or coming back (a reboot) is derived, and FabricDelta gives up on a node it cannot place
            rebuild = true;
        }
    }

    /** {@code was} claimed a node (up) that another port of an admitted switch claims now. */
    private boolean movesToAnotherClaim(PortRecord was) {
        return was.isUp() && was.peerKind() == PortRecord.PeerKind.NODE && ledger.nodeClaims(was.peerGuid()) > 0;
    }

    /** Something beyond the reports changed what a build yields: a quarantine (the mask) began or ended. */
    void invalidate() {
        stale = true;
        rebuild = true;
    }

    /**
     * Builds the fabric of every report on a copy of the indices and checks it against the expected PGFT; when it is
     * the intact expected fabric, that build becomes the next snapshot (the routing that follows at once needs this
     * very fabric and numbering).
     *
     * @return its check when intact, else {@code null} (nothing changed: a fabric that is not the expected one yet
     *         must not number its nodes)
     */
    FabricCheck completeExpected(FabricChecker checker) {
        DestinationIndexMap trial = indices.copy();
        TopologyBuilder.Result r = build(admittedMasked(), trial);
        FabricCheck c = r.fabric().links().size() >= expected.totalLinkCount() ? checker.check(r.fabric(), expected) : null;
        if (c == null || c.verdict() != FabricCheck.Verdict.INTACT) {
            return null;
        }
        indices = trial;
        last = r;
        unsaved += r.newIndices();
        built(); // a build from every report: what was pending is in it (the first fault after it can be derived)
        return c;
    }

    /**
     * Builds the fabric of every report on a copy of the indices; when {@code fits} says it is the stored routing's
     * (which numbers no new node), that build becomes the next snapshot.
     *
     * @return whether it fits (when not, nothing changed)
     */
    boolean completeStored(Predicate<Fabric> fits) {
        DestinationIndexMap trial = indices.copy();
        TopologyBuilder.Result r = build(admittedMasked(), trial);
        if (r.newIndices() > 0 || !fits.test(r.fabric())) {
            return false;
        }
        last = r;
        built();
        return true;
    }

    /**
     * The fabric of the admitted switches now (quarantined ports down), with every end node's destination index (new
     * ones are stored before use). Without a report since the last build, that build is reused.
     */
    Snapshot take() {
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
                last = build(admittedMasked(), indices);
                unsaved += last.newIndices();
            }
            built();
            LOG.debug("snapshot {} in {} ms", derived != null ? "derived" : "built",
                    String.format("%.1f", (System.nanoTime() - begin) / 1e6));
        }
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
        return new Snapshot(last, checkedAhead);
    }

    /** The last snapshot takes every change so far. */
    private void built() {
        stale = false;
        rebuild = false;
        dirty.clear();
        left.clear();
        joined.clear();
    }

    /**
     * The fabric as {@link #take} will give it once switch {@code guid} has left, if nothing else changes before:
     * derived now, ahead of the leaving, and handed out again by that snapshot (the very same object, which the
     * routing prepared from it recognises) with the check {@code checkAhead} starts now. Changes nothing else.
     * {@code null} when the fabric cannot be derived this way (changes pending since the last snapshot, a build due,
     * the switch not in the fabric, or it claims a node that another port claims too, whose fate a build decides).
     */
    Fabric without(long guid, Function<Fabric, CompletableFuture<FabricCheck>> checkAhead) {
        if (stale || rebuild || last == null || unsaved > 0
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
        tentative = derived == null ? null : new TentativeFabric(guid, last, derived, checkAhead.apply(derived));
        return derived;
    }

    /** Forgets the fabric derived ahead of a leaving that did not happen (the verdict was refuted). */
    void forgetTentative() {
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
     * runs off the control thread from copies of the reports (at thousands of switches it holds a core for seconds,
     * during which the next fault would wait); its result counts if no snapshot was taken meanwhile.
     */
    private void refresh() {
        if (stale || last == null) {
            return; // a snapshot is due anyway
        }
        TopologyBuilder.Result base = last;
        List<SwitchPorts> copies = new ArrayList<>(reports.admittedCount());
        reports.forEachAdmitted(p -> copies.add(mask.apply(p).copy()));
        DestinationIndexMap trial = indices.copy();
        int lmcNow = lmc;
        builds.execute(() -> {
            long begin = System.nanoTime();
            TopologyBuilder.Result built = withLmc(TopologyBuilder.build(copies, trial, expected, ordering), lmcNow);
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
            rebuilt.run();
            return;
        }
        last = new TopologyBuilder.Result(base.fabric(), built.issues(), 0);
        if (tentative != null && tentative.base() == base) {
            // a routing prepared from the fabric without one switch stays good: same fabric, claims refreshed
            tentative = tentative.over(last);
        }
    }

    /** Cancels the refresh due (stopping). */
    void cancel() {
        queue.cancelDeferred(REFRESH);
    }

    private List<SwitchPorts> admittedMasked() {
        List<SwitchPorts> ports = new ArrayList<>(reports.admittedCount());
        reports.forEachAdmitted(p -> ports.add(mask.apply(p)));
        return ports;
    }

    /** The last built fabric, or {@code null} before the first build. */
    TopologyBuilder.Result last() {
        return last;
    }

    /** Snapshots derived from the previous fabric rather than built. */
    long derivedSnapshots() {
        return derivedSnapshots;
    }

    /** Derived snapshots in which switches joined. */
    long derivedJoins() {
        return derivedJoins;
    }
}
