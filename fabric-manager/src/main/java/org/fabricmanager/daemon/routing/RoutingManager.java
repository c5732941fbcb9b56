package org.fabricmanager.daemon.routing;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.store.FabricFingerprint;
import org.fabricmanager.daemon.store.RoutingState;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.topology.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what a fabric snapshot needs: nothing (the routed fabric is the same), the routing stored in
 * the state directory (same fabric and engine after a restart: no recomputation), or a computation, which
 * runs on the {@link RoutingService} and comes back as a control event. Numbers the versions, keeps the
 * routing in force, persists every computed routing (off the control thread) and times the
 * computations. One computation at a time; runs on the control thread.
 */
public final class RoutingManager {
    private static final Logger LOG = LoggerFactory.getLogger(RoutingManager.class);

    /** What {@link #consider} did. */
    public enum Decision {
        /** The stored routing was made the routing in force. */
        REUSED,
        /** A computation started; {@link Listener#computed} or {@link Listener#failed} follows. */
        STARTED
    }

    /** Told on the control thread when a computation ends. */
    public interface Listener {
        /** {@code routing} is the routing in force now; its computation took {@code engineMs}. */
        void computed(ActiveRouting routing, double engineMs);

        /** Version {@code version} could not be computed; the routing in force stays. */
        void failed(long version, Throwable cause);

        /** The fabric considered was the routed one: nothing was computed. */
        void unchanged();

        /**
         * A {@link #prepare prepared} computation ended (kept for {@link #consider}, or dropped: failed, unchanged,
         * or discarded meanwhile); changes that waited for it can be routed now.
         */
        default void prepared() {
        }
    }

    /** A computation started by {@link #prepare}, and its outcome once it is done ({@code null} before). */
    private record Prepared(RoutingJob job, RoutingOutcome outcome) {
    }

    private final RoutingService service;
    private final RoutingStateStore store;
    private final Executor storeExecutor;
    /** The latest routing installed and not yet handed to the store executor, or {@code null}. */
    private RoutingState unsaved;
    /** Deferred-action tag of the write of {@link #unsaved}. */
    static final String STORE = "routing-store";
    /** The latest a routing is written after its installation when its tables have not converged by then. */
    static final long STORE_DELAY_MS = 5_000;
    /**
     * How long a routing whose tables converged must stay in force before it is written: faults come in bursts (a
     * flapping link, a switch's links going one by one), and each write compresses every table (335 MB at 5,120
     * switches) on a core the next re-route needs more (docs/performance.md, "Choices in the code, measured").
     */
    static final long STORE_QUIET_MS = 1_000;
    /**
     * Version of the routing last computed and installed (read by the store thread): a write of an older one still
     * running gives way ({@link #storeUnsaved}).
     */
    private volatile long installedVersion;
    private final ControlLoop queue;
    private final MilestoneLog milestones;
    private final Timer timer;
    private final DistributionSummary changedEntries;
    private final DistributionSummary minimumEntries;
    private final DistributionSummary takenBackEntries;
    private Listener listener;
    /** Told of every routing made the routing in force, computed or reused (the quality monitor). */
    private Consumer<ActiveRouting> installed = r -> { };

    private RoutingState stored;
    /** The switches of {@link #stored}, by GUID, once asked ({@link #storedHas}; control thread). */
    private Set<Long> storedGuids;
    private RoutingState storedGuidsOf;
    private long nextVersion = 1;
    /** How far above the next version a held version is believed ({@link #versionHeld}); beyond, it is a bad claim. */
    static final long MAX_UNSTORED_VERSIONS = 1_000_000;
    /** The highest table version a switch said it holds ({@link #versionHeld}): no routing of this run takes it. */
    private long highestHeld;
    private ActiveRouting active;
    private boolean running;
    /** The next computation routes in full ({@link #routeInFullNext}). */
    private boolean inFullNext;
    /** The next computation refines the repair in force when the fabric has not changed ({@link #refineNext}). */
    private boolean refineNext;
    /** Set to give up the refinement running ({@link #abandonRefinement}); {@code null} when none runs. */
    private AtomicBoolean refinementAbandoned;
    /** A prepared computation is running (it does not make the daemon ROUTING: it may never be installed). */
    private boolean preparing;
    /** The prepared routing under way or done, waiting for {@link #consider} of its very fabric; or {@code null}. */
    private Prepared prepared;
    private long computations;

    public RoutingManager(RoutingService service, RoutingStateStore store, Executor storeExecutor, ControlLoop queue,
                          MilestoneLog milestones, MeterRegistry registry) {
        this.service = service;
        this.store = store;
        this.storeExecutor = storeExecutor;
        this.queue = queue;
        this.milestones = milestones;
        this.timer = Timer.builder("fabric.routing.duration").description("routing computations").register(registry);
        this.changedEntries = DistributionSummary.builder("fabric.routing.changed.entries")
                .description("table entries each routing changed against the tables in force").register(registry);
        this.minimumEntries = DistributionSummary.builder("fabric.routing.minimum.entries")
                .description("table entries any valid routing had to change for the same fabric change").register(registry);
        this.takenBackEntries = DistributionSummary.builder("fabric.routing.takenback.entries")
                .description("changed table entries that went back to switches and cables that came back")
                .register(registry);
    }

    /** Where computations are reported (set once, before the first {@link #consider}). */
    public void listener(Listener l) {
        this.listener = l;
    }

    /** Who is told, on the control thread, of each routing made the routing in force (set once, before the first). */
    public void onInstalled(Consumer<ActiveRouting> observer) {
        this.installed = observer;
    }

    /** Loads the stored routing, if any (start-up); a damaged one is ignored with a warning. */
    public void load() {
        try {
            stored = store.load().orElse(null);
        } catch (StoreException e) {
            LOG.warn("ignoring stored routing: {}", e.getMessage());
            stored = null;
        }
        if (stored != null) {
            nextVersion = Math.max(stored.version(), highestHeld) + 1;
        }
    }

    /**
     * A switch connected holding tables of version {@code held}. A run killed before it stored its last routings gave
     * those numbers to tables the stored state does not know: the next routing of this run takes a higher number, so
     * that one version never names two different tables on the switches (their held tables are matched by version).
     */
    public void versionHeld(long held) {
        if (held - nextVersion > MAX_UNSTORED_VERSIONS) {
            // no run routes a million times without storing once: a switch's claim, not a number to count on from
            LOG.warn("a switch holds table v{}, {} above the next routing's: not taken as a version in use", held,
                    held - nextVersion);
            return;
        }
        highestHeld = Math.max(highestHeld, held);
        nextVersion = Math.max(nextVersion, highestHeld + 1);
    }

    /** The stored routing found at start-up and not yet used or superseded, or {@code null}. */
    public RoutingState stored() {
        return stored;
    }

    /** The switches of the stored routing still to be reused, or -1 (none, or a routing in force already). */
    public int storedSwitchCount() {
        RoutingState s = stored;
        return s == null || active != null ? -1 : s.tables().switchCount();
    }

    /** Whether switch {@code guid} has a table in the stored routing that waits to be reused (control thread). */
    public boolean storedHas(long guid) {
        RoutingState s = stored;
        if (s == null || active != null) {
            return false;
        }
        if (storedGuids == null || storedGuidsOf != s) {
            storedGuidsOf = s;
            storedGuids = new HashSet<>();
            for (int i = 0; i < s.tables().switchCount(); i++) {
                storedGuids.add(s.tables().switchGuid(i));
            }
        }
        return storedGuids.contains(guid);
    }

    /** Whether {@code fabric} is the one the stored routing was computed for, by this engine (control thread). */
    public boolean fitsStored(Fabric fabric) {
        RoutingState s = stored;
        return s != null && active == null && s.engine().equals(service.engineName())
                && s.tables().switchCount() == fabric.switches().size()
                && s.fingerprint().equals(FabricFingerprint.of(fabric, s.engine()));
    }

    /**
     * Routes {@code fabric} unless it is the stored one (after a restart: reused at once) or the routed one
     * (found off the control thread: {@link Listener#unchanged} follows); never while a job runs.
     */
    public Decision consider(Fabric fabric) {
        if (running || preparing) {
            throw new IllegalStateException("a routing computation is running");
        }
        Prepared p = prepared;
        prepared = null;
        if (p != null && p.outcome() != null && p.job().fabric() == fabric && active != null
                && p.job().previous() == active.tables() && p.job().version() == nextVersion - 1) {
            // computed while the second opinion was asked, for this very snapshot and from the routing in force (its
            // version was taken by prepare(), and none since)
            running = true;
            RoutingOutcome o = p.outcome();
            RoutingOutcome told = new RoutingOutcome(o.job(), o.fingerprint(), o.result(), o.tables(), o.nanos(),
                    o.compareNanos(), o.detail() + "; computed while the verdict was checked, installed on its "
                    + "confirmation", o.deadlockFree(), o.churn(), o.repaired(), o.impact());
            queue.append("routing-done v" + p.job().version() + " (prepared)", () -> done(p.job(), told, null));
            return Decision.STARTED;
        }
        String engine = service.engineName();
        // the stored routing of another fabric (a fault came as the last run stopped, or before its routing was
        // written): what the switches were left holding, repaired for this one as the fault would have been
        TableSet storedBase = null;
        if (active == null && stored != null && stored.engine().equals(engine)) {
            // once, at start-up: worth the fingerprint on the control thread to skip a whole computation
            String fingerprint = FabricFingerprint.of(fabric, engine);
            String misfit = stored.fingerprint().equals(fingerprint)
                    ? StoredRoutingCheck.mismatch(stored.tables(), fabric.index()) : null;
            if (misfit != null) {
                LOG.warn("stored routing v{} not reused although its fingerprint matches: {}; computing it again",
                        stored.version(), misfit);
                stored = null;
            } else if (stored.fingerprint().equals(fingerprint)) {
                active = new ActiveRouting(stored.version(), fabric, fingerprint,
                        new TableSet(stored.version(), stored.tables()), engine, null, true, 0, true, null);
                milestones.record(Milestone.Kind.ROUTING_REUSED, "routing v" + stored.version()
                        + " reused from the state directory (fabric unchanged): no recomputation");
                stored = null;
                installed.accept(active);
                return Decision.REUSED;
            } else if (service.repairs()) {
                storedBase = new TableSet(stored.version(), stored.tables());
            }
        }
        long version = nextVersion++;
        running = true;
        RoutingJob job = new RoutingJob(version, fabric, active == null ? storedBase : active.tables(),
                active == null ? null : active.fingerprint(), inFullNext, active == null ? null : active.fabric(),
                refineNext && !inFullNext && active != null);
        inFullNext = false;
        refineNext = false;
        AtomicBoolean abandoned = new AtomicBoolean();
        refinementAbandoned = job.refine() ? abandoned : null;
        service.route(job, abandoned::get).whenComplete((outcome, error) -> queue.append("routing-done v" + version,
                () -> done(job, outcome, error)));
        return Decision.STARTED;
    }

    /**
     * Computes the routing of {@code fabric} (a snapshot that assumes a change not yet confirmed: a switch the ring
     * declared dead while its second opinion is asked) without installing it: if {@link #consider} is then called with
     * this very {@code fabric} object, the routing is installed at once instead of being computed again. Nothing
     * when a computation runs or no routing is in force yet.
     *
     * @return true when the computation started
     */
    public boolean prepare(Fabric fabric) {
        if (running || preparing || active == null) {
            return false;
        }
        // the version is taken now, and never given to another routing even if this one is dropped: its blocks may be
        // staged on the switches ahead of the confirmation (LftPusher.stage), and a later routing's blocks under the
        // same version would add to those instead of replacing them
        RoutingJob job = new RoutingJob(nextVersion++, fabric, active.tables(), active.fingerprint(), false,
                active.fabric());
        preparing = true;
        Prepared mine = new Prepared(job, null);
        prepared = mine;
        service.route(job).whenComplete((outcome, error) -> queue.append("routing-prepared v" + job.version(),
                () -> preparedDone(mine, outcome, error)));
        return true;
    }

    private void preparedDone(Prepared mine, RoutingOutcome outcome, Throwable error) {
        preparing = false;
        if (prepared == mine) {
            prepared = error != null || outcome.unchanged() ? null : new Prepared(mine.job(), outcome);
            if (error != null) {
                LOG.debug("prepared routing v{} failed: {}", mine.job().version(), error.toString());
            }
        }
        listener.prepared();
    }

    /**
     * Rounds of the rehearsal: four make the first fault's computation as fast as the later ones', more gain little
     * (docs/performance.md, "Choices in the code, measured").
     */
    static final int REHEARSAL_ROUNDS = 4;

    /**
     * Rehearses the re-route of a few faults of the fabric in force (a leaf's uplink, a link between two upper
     * switches, an upper switch; each once a round) on the routing thread, results dropped, so that the first real
     * faults after a start run compiled code ({@link RoutingService#rehearse}). Call once the first tables converged.
     */
    public CompletableFuture<Integer> rehearse() {
        if (active == null) {
            return CompletableFuture.completedFuture(0);
        }
        Fabric fabric = active.fabric();
        long begin = System.nanoTime();
        // the faulty fabrics are derived on the routing thread, anew each round (each derives its index once)
        Supplier<List<Fabric>> variants = () -> {
            List<Fabric> out = new ArrayList<>();
            for (int round = 0; round < REHEARSAL_ROUNDS; round++) {
                out.addAll(RehearsalFaults.of(fabric));
            }
            return out;
        };
        return service.rehearse(variants, fabric, active.tables()).whenComplete((done, error) -> {
            if (error != null) {
                LOG.warn("re-route rehearsal failed (the first fault will be routed by colder code): {}", error.toString());
            } else if (done > 0) {
                LOG.info("rehearsed {} fault re-routes in {} ms, results dropped (the first real fault runs warm code)",
                        done, String.format("%.0f", (System.nanoTime() - begin) / 1e6));
            }
        });
    }

    /** Drops the prepared routing (the change it assumed did not happen); one still computing is dropped when done. */
    public void discardPrepared() {
        prepared = null;
    }

    /** The tables of the prepared routing once computed (not yet installed), or {@code null}. */
    public TableSet preparedTables() {
        Prepared p = prepared;
        return p == null || p.outcome() == null ? null : p.outcome().tables();
    }

    /** True while a prepared routing waits for its {@link #consider} (done or still computing). */
    public boolean hasPrepared() {
        return prepared != null;
    }

    private void done(RoutingJob job, RoutingOutcome outcome, Throwable error) {
        running = false;
        refinementAbandoned = null;
        if (error != null) {
            Throwable cause = error.getCause() != null ? error.getCause() : error;
            milestones.record(Milestone.Kind.ROUTING_FAILED, "routing v" + job.version() + " failed: " + cause.getMessage()
                    + (active == null ? "" : "; keeping v" + active.version()));
            listener.failed(job.version(), cause);
            return;
        }
        if (outcome.unchanged()) {
            // the version number was not used: give it back (one job at a time, so it is still the last)
            nextVersion = Math.max(job.version(), highestHeld + 1);
            LOG.debug("fabric unchanged since v{}: nothing to route", active.version());
            listener.unchanged();
            return;
        }
        RoutingResult r = outcome.result();
        computations++;
        timer.record(outcome.nanos(), TimeUnit.NANOSECONDS);
        active = new ActiveRouting(job.version(), job.fabric(), outcome.fingerprint(), outcome.tables(), r.engine(),
                outcome.millis(), r.validity().isValid(), r.validity().unreachablePairs(), false, outcome.deadlockFree(),
                outcome.churn(), outcome.repaired(), outcome.impact());
        if (outcome.churn() != null) {
            changedEntries.record(outcome.churn().changedEntries());
            minimumEntries.record(outcome.churn().minimumEntries());
            takenBackEntries.record(outcome.churn().takenBack());
        }
        milestones.record(Milestone.Kind.ROUTING_COMPUTED, String.format("routing v%d %s in %.1f ms (%s, %s; %s)%s",
                job.version(), outcome.repaired() ? "repaired" : "computed", outcome.millis(), r.engine(),
                r.validity().isValid() ? "valid" : r.validity().unreachablePairs() + " unreachable leaf pairs",
                outcome.detail(), outcome.churn() == null ? "" : String.format("; %d entries changed, minimum %d%s",
                        outcome.churn().changedEntries(), outcome.churn().minimumEntries(),
                        outcome.churn().takenBack() == 0 ? ""
                                : ", " + outcome.churn().takenBack() + " taken back by returned elements")));
        LOG.debug("routing v{}: {} of {} switches' tables changed (compared in {} ms)", job.version(),
                outcome.tables().changedRows(), outcome.tables().rowCount(), String.format("%.1f", outcome.compareMillis()));
        stored = null;
        // written once the push is done and a quiet second passed (storeWhenQuiet at CONVERGED), at the latest after
        // STORE_DELAY_MS: compressing 335 MB of tables at 5,120 switches takes a core, which the push of the same
        // tables needs more (a crash before the write costs the next start one computation, nothing else)
        unsaved = new RoutingState(outcome.fingerprint(), job.version(), r.engine(), r.tables());
        installedVersion = job.version();
        if (job.previous() != null) {
            // one computed from nothing waits for the quiet second: a successor computes it again the same
            storeChanges(unsaved);
        }
        queue.scheduleDeferred(STORE, STORE_DELAY_MS, this::storeUnsaved);
        installed.accept(active);
        listener.computed(active, outcome.millis());
    }

    /**
     * Writes {@code state}, just installed, as its changes since the stored routing (off the control thread, before
     * its whole tables): a successor (a restart, a standby taking over) that started from the routing before it would
     * repair the next fault from other tables than the switches hold, and move entries no fault asked for.
     */
    private void storeChanges(RoutingState state) {
        storeExecutor.execute(() -> {
            try {
                store.saveChanges(state);
            } catch (StoreException e) {
                LOG.error("cannot store the changes of routing v{}: {}", state.version(), e.getMessage());
            }
        });
    }

    /**
     * The routing in force converged: it is written once it has stayed in force for {@link #STORE_QUIET_MS} (a newer
     * routing installed meanwhile takes its place, and is written in turn once it converged and stayed). Until then
     * its changes since the stored routing stand for it ({@link #storeChanges}).
     */
    public void storeWhenQuiet() {
        if (unsaved != null) {
            queue.scheduleDeferred(STORE, STORE_QUIET_MS, this::storeUnsaved);
        }
    }

    /**
     * Writes the routing in force to the state directory if it is not written yet (off the control thread): called
     * {@link #STORE_QUIET_MS} after its tables converged, {@link #STORE_DELAY_MS} after it was installed if they have
     * not by then, and when the daemon stops. A write still running when a newer routing is installed is abandoned
     * and leaves the file as it was: the newer one is written instead, and the cores go to its push.
     */
    public void storeUnsaved() {
        RoutingState toStore = unsaved;
        unsaved = null;
        queue.cancelDeferred(STORE);
        if (toStore == null) {
            return;
        }
        storeExecutor.execute(() -> {
            try {
                if (!store.save(toStore, () -> installedVersion != toStore.version())) {
                    LOG.debug("routing v{} not stored: a newer routing was installed while it was written", toStore.version());
                }
            } catch (StoreException e) {
                LOG.error("cannot store routing v{}: {}", toStore.version(), e.getMessage());
            }
        });
    }

    /**
     * Makes the next computation a routing by the engine even when changes are repaired, and the base of the repairs
     * after it (a rebalance).
     */
    public void routeInFullNext() {
        inFullNext = true;
    }

    /**
     * Makes the next computation refine the repair in force ({@link RoutingService#refinable}) when its fabric is the
     * routed one; a changed fabric is routed as usual.
     */
    public void refineNext() {
        refineNext = true;
    }

    /**
     * Gives up the refinement running, if one is: the fabric changed, and its computation must not wait for a full
     * routing's time. It ends as unchanged; the repair in force stays refinable, and its next convergence re-arms it.
     */
    public void abandonRefinement() {
        if (refinementAbandoned != null) {
            refinementAbandoned.set(true);
        }
    }

    /** Whether repairs are refined ({@code routing.rebalance.refineAfter} not off; set once, before the first). */
    public void refinesRepairs(boolean on) {
        service.refineRepairs(on);
    }

    /**
     * True when repairs are refined and the routing in force is a repair that a refinement would change
     * ({@link RoutingService#refinable}).
     */
    public boolean refinable() {
        return active != null && active.repaired() && service.refinable(active.tables());
    }

    /** Makes the next {@link #consider} compute even for the routed fabric (an operator's forced re-route). */
    public void forceNext() {
        if (active != null) {
            active = active.forcedStale();
        }
    }

    /** The routing in force, or {@code null} before the first. */
    public ActiveRouting active() {
        return active;
    }

    /** True while a computation runs (not a prepared one: {@link #busy}). */
    public boolean running() {
        return running;
    }

    /** True while any computation runs, prepared or not: {@link #consider} must wait. */
    public boolean busy() {
        return running || preparing;
    }

    /** Routing computations since start (0 when the stored routing was reused). */
    public long computations() {
        return computations;
    }

    public String engineName() {
        return service.engineName();
    }

    /** True when changes are routed by repairing the last full routing ({@code routing.onFault: repair} with dmodc). */
    public boolean repairs() {
        return service.repairs();
    }
}
