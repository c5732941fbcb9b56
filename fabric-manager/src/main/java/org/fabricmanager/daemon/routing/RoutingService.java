package org.fabricmanager.daemon.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.store.FabricFingerprint;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LinkChanges;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.analysis.DeadlockAnalyzer;
import org.fabricmanager.routing.analysis.DeadlockReport;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.VirtualChannels;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs routing computations one at a time on a dedicated dispatcher thread, so the control thread
 * never blocks; the engine parallelises each computation on its own pool (kept warm between
 * computations). Results come back through futures, which the daemon turns into control events.
 */
public final class RoutingService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RoutingService.class);
    private final RoutingEngine engine;
    /**
     * The last routing computed and the one it continued, for the next re-route (dispatcher thread only). Two, so that
     * a routing prepared and then not installed (a verdict refuted: {@link RoutingManager#prepare}) leaves the routing
     * in force to continue from, while one that is installed is continued from itself.
     */
    private RoutedSnapshot last;
    private RoutedSnapshot base;
    /** The engine's repairs ({@code null}: it has none); they also count every routing's churn. */
    private final TableRepairer repairer;
    /**
     * With {@code routing.onFault: repair} and an engine that repairs: the base that every later fabric's tables
     * repair (dispatcher thread only): the last full routing, the last refined repair (the repair itself when its
     * refinement changes nothing), or the last repair in which an element the base did not have came back. An
     * element that comes back then takes back what moved for it, and one the base never had the routes a full routing
     * of the fabric gives it.
     */
    private final boolean repair;
    private RoutedSnapshot full;
    /** The routing in force at the start was tried as the base ({@link #resume}); dispatcher thread only. */
    private boolean resumeTried;
    /**
     * Repairs are refined ({@link RoutingJob#refine}): the entries a repair moved from the base take the engine's full
     * routing's ports, and that becomes the base (the repair itself when no entry takes another port). The repair
     * stays the change's computation (milliseconds); its tables are {@link #refinable} until the refinement.
     */
    private volatile boolean refineRepairs;
    /** The tables of the last repair, which a refinement may change: written on the dispatcher thread. */
    private volatile ForwardingTables refinable;
    /** Counts churn inline on the dispatcher thread (one worker: no threads of its own). */
    private final RoutingPool churnPool = new RoutingPool(1, "churn");
    /** Computations submitted and not started yet: a rehearsal gives way to them. */
    private final AtomicInteger queued = new AtomicInteger();
    /**
     * Where computations run: a thread of the service's own, or a simulation's executor that runs each when it
     * chooses ({@link #RoutingService(RoutingEngine, boolean, Executor)}).
     */
    private final Executor dispatcher;
    /** Takes each larger routing's impact on the end nodes after its outcome is handed over ({@link NodeImpact}). */
    private final Executor impacts;
    private final Executor fingerprinter;
    /** The service's own threads, shut down by {@link #close}: none when a simulation runs the computations. */
    private final List<ExecutorService> threads = new ArrayList<>();
    private volatile boolean closed;
    /** Table entries up to which a routing's {@link NodeImpact} is taken with it (768 switches x 4,096 nodes). */
    static final long INLINE_ENTRIES = 1L << 22;

    /**
     * @throws org.fabricmanager.routing.RoutingException for an unknown engine name
     */
    public RoutingService(String engineName, int threads) {
        this(RoutingEngines.create(engineName, threads));
    }

    /** As {@link #RoutingService(RoutingEngine, boolean)}, repairing after faults when {@code repair} is true. */
    public RoutingService(String engineName, int threads, boolean repair) {
        this(RoutingEngines.create(engineName, threads), repair);
    }

    /** A service around an engine built elsewhere (the service closes it), routing every fabric in full. */
    public RoutingService(RoutingEngine engine) {
        this(engine, false);
    }

    /**
     * A service around an engine built elsewhere (the service closes it); with {@code repair} and an engine that
     * repairs ({@link RoutingEngine#repairer()}), every fabric after the first is routed by repairing the base's
     * tables ({@link TableRepairer#repair(RoutedSnapshot, FabricIndex)}), the others by the engine.
     */
    public RoutingService(RoutingEngine engine, boolean repair) {
        this(engine, repair, null);
    }

    /**
     * As {@link #RoutingService(RoutingEngine, boolean)}, the computations run on {@code dispatcher} and their
     * fingerprints and impacts inline with them, or on threads of the service's own when {@code dispatcher} is
     * {@code null}. A deterministic simulation of the daemon passes an executor that runs each computation at a point
     * of its seeded schedule.
     */
    public RoutingService(RoutingEngine engine, boolean repair, Executor dispatcher) {
        this.engine = engine;
        this.repairer = engine.repairer().orElse(null);
        this.repair = repair && repairer != null;
        if (dispatcher != null) {
            this.dispatcher = dispatcher;
            this.impacts = Runnable::run;
            this.fingerprinter = Runnable::run;
        } else {
            this.dispatcher = thread("fm-routing");
            this.impacts = thread("fm-node-impact");
            this.fingerprinter = thread("fm-fingerprint");
        }
    }

    private ExecutorService thread(String name) {
        ExecutorService e = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        threads.add(e);
        return e;
    }

    /** True when changes are routed by repairing the tables of the last full routing. */
    public boolean repairs() {
        return repair;
    }

    /**
     * Whether repairs are refined ({@code routing.rebalance.refineAfter} not off), for an engine whose full routing is
     * not Dmodc's own ({@link TableRepairer#refines}): set once, before the first computation.
     */
    public void refineRepairs(boolean on) {
        refineRepairs = on;
    }

    /**
     * True when {@code inForce} are the tables of the last repair and a refinement may change them: repairs are
     * refined, the engine's full routing is not Dmodc's own ({@link TableRepairer#refines}) and they are not the base.
     */
    public boolean refinable(TableSet inForce) {
        ForwardingTables r = refinable;
        return r != null && inForce != null && inForce.tables() == r;
    }

    /** The engine's name as configured. */
    public String engineName() {
        return engine.name();
    }

    /**
     * Fingerprints the job's fabric and computes its tables on the routing threads at the same time;
     * unless the fabric is the one routed (then the tables are dropped), compares them with the job's previous tables (hashes and changed blocks), so that the
     * control thread only installs them.
     */
    public CompletableFuture<RoutingOutcome> route(RoutingJob job) {
        return route(job, () -> false);
    }

    /**
     * {@link #route(RoutingJob)}; a refinement is given up once {@code abandon} is true (the fabric changed under
     * it), with an unchanged outcome: the repair stays in force and {@link #refinable}, and the change's own
     * computation does not wait for a full routing's time (seconds at 65,536 nodes: docs/performance.md, "Production
     * shape at 5,120 switches").
     */
    public CompletableFuture<RoutingOutcome> route(RoutingJob job, BooleanSupplier abandon) {
        queued.incrementAndGet();
        return CompletableFuture.supplyAsync(() -> {
            queued.decrementAndGet();
            long begin = System.nanoTime();
            FabricIndex index = job.fabric().index();
            long indexed = System.nanoTime();
            // The fingerprint is taken while the engine routes: a fabric equal to the routed one is rare (a
            // flap inside the settle window), and waiting for the hash first put it on every fault's path.
            CompletableFuture<String> print = CompletableFuture.supplyAsync(
                    () -> FabricFingerprint.of(job.fabric(), engine.name()), fingerprinter);
            // from the last routing when the job continues it: an incremental engine recomputes only what
            // the change affects (the result is exactly a routing from scratch)
            RoutedSnapshot previous = continued(job);
            boolean repairing = repair && job.previous() != null && !job.inFull();
            // a refinement of a fault's repair in force, for the fabric it routes (one that changed is routed as usual)
            boolean refining = repairing && job.refine() && refineRepairs && full != null && previous != null
                    && previous != full && print.join().equals(job.activeFingerprint());
            RoutedSnapshot snapshot;
            if (refining) {
                // the entries the repair moved from the base to the full routing's ports: the base from now on (below)
                try {
                    snapshot = repairer.refine(full.result().tables(), previous, abandon).orElse(null);
                } catch (AbandonedException e) {
                    LOG.info("refinement of routing v{} abandoned after {} ms: the fabric changed",
                            job.previous().version(), String.format("%.0f", (System.nanoTime() - begin) / 1e6));
                    return RoutingOutcome.unchanged(job, print.join());
                }
                if (snapshot == null || snapshot.result().tables().sameAs(previous.result().tables())) {
                    // the repair in force is its own refinement: the base from now on all the same, or the next
                    // loss repairs the older base, and the entries this repair moved take that loss's closed form
                    full = previous;
                    refinable = null;
                    return RoutingOutcome.unchanged(job, print.join());
                }
            } else if (repairing) {
                if (full == null && job.previousFabric() != null) {
                    resume(job.previous(), job.previousFabric()); // a fault before the rehearsal after a start
                }
                // from the base (the stored tables' when they could not be it), not from the tables in force: a return
                // then gives back exactly what moved for the element; what an earlier fault moved stays where it went
                snapshot = full != null ? repairer.repair(full, job.previous().tables(), index)
                        : repairer.repair(job.previous().tables(),
                        job.previousFabric() == null ? null : job.previousFabric().index(), index);
            } else {
                snapshot = previous == null ? engine.routeSnapshot(index) : engine.reroute(index, previous);
            }
            long routed = System.nanoTime();
            String fingerprint = print.join();
            long printed = System.nanoTime();
            if (fingerprint.equals(job.activeFingerprint()) && !refining) {
                return RoutingOutcome.unchanged(job, fingerprint);
            }
            base = previous;
            last = snapshot;
            RoutingResult result = snapshot.result();
            TableSet tables = TableSet.derive(job.version(), result.tables(), job.previous());
            TableChurn churn = job.previous() == null || repairer == null ? null
                    : repairer.churn(job.previous().tables(), snapshot, churnPool);
            if (repair && (full == null || !repairing || refining || LinkChanges.added(full.fabric(), index))) {
                // an element the base lacked came back into this repair, or a refinement: the base from now on, so
                // that the routes it took back or refined stay through later faults, and later returns take back
                // what moved
                full = snapshot;
            }
            refinable = refineRepairs && repairing && repairer.refines() && snapshot != full ? result.tables() : null;
            // where the time went, for the operator's log line: a slow re-route says which part to blame
            String detail = String.format("index %.1f ms, %s %.1f ms%s, then waited %.1f ms for the fingerprint",
                    (indexed - begin) / 1e6, refining ? "engine refining" : repairing ? "engine repairing"
                            : previous == null ? "engine from scratch"
                            : "engine re-routing",
                    (routed - indexed) / 1e6, phases(result), (printed - routed) / 1e6);
            long compared = System.nanoTime();
            Boolean deadlockFree = null;
            if (result.tables().vcRules().isPresent()) {
                // tables that rely on VC rules (vtftr) are checked as installed: the (link, VC) graph of the live tables
                DeadlockReport report = new DeadlockAnalyzer(RoutedFabric.of(index, result.tables()),
                        VirtualChannels.of(result.tables()), 1).analyze();
                deadlockFree = report.deadlockFree();
                detail += String.format(", (link, VC) check %.1f ms: %s", (System.nanoTime() - compared) / 1e6,
                        deadlockFree ? "acyclic" : "CYCLE through " + report.cycle().size() + " channels");
            }
            // which end nodes the change cut off or moved, for the reaction's figures and NODE_UNREACHABLE: at 5,120
            // switches long enough to delay the push, so taken on a thread of its own there; little below
            // INLINE_ENTRIES, taken here so that the reaction closes at its convergence (docs/performance.md, "Fault
            // reaction at 768 switches")
            CompletableFuture<NodeImpact> impact = (long) tables.rowCount() * tables.length() <= INLINE_ENTRIES
                    ? CompletableFuture.completedFuture(NodeImpact.between(job.previousFabric(), job.previous(),
                    job.fabric(), tables))
                    : CompletableFuture.supplyAsync(() -> NodeImpact.between(job.previousFabric(), job.previous(),
                    job.fabric(), tables), impacts);
            return new RoutingOutcome(job, fingerprint, result, tables, printed - begin, compared - printed,
                    detail, deadlockFree, churn, repairing, impact);
        }, dispatcher);
    }

    /**
     * Re-routes each fabric {@code variants} makes (on the routing thread: the fabric in force with a fault applied,
     * derived as discovery derives it) from the last routing and takes what a fault's computation takes of it (the
     * table set against {@code inForce}, the fingerprint, the churn, and the end nodes' impact where a fault takes it
     * inline), results dropped: the first real faults after a start otherwise run that path in the interpreter,
     * several times slower than warm (docs/performance.md, "Choices in the code, measured"). Nothing of the routing
     * kept for re-routes changes. Stops before the next variant as soon as a real computation is waiting. Only for
     * engines that repair ({@code routing.onFault: repair}) or re-route incrementally.
     *
     * @param fabricInForce the fabric {@code inForce} routes
     * @return the variants re-routed
     */
    public CompletableFuture<Integer> rehearse(Supplier<List<Fabric>> variants, Fabric fabricInForce,
                                               TableSet inForce) {
        return CompletableFuture.supplyAsync(() -> {
            if (repair && full == null) {
                resume(inForce, fabricInForce); // once, off the fault's path: a start reused the stored routing
            }
            // a repair starts from the last full routing, whatever the tables in force
            RoutedSnapshot from = repair ? full : last;
            int done = 0;
            // a repair is rehearsed whatever the engine's re-route (dmodc-home's is from scratch); a re-route only when
            // it is incremental and continues the tables in force
            if (from == null || !repair && (!engine.reroutesIncrementally() || from.result().tables() != inForce.tables())) {
                return done;
            }
            for (Fabric variant : variants.get()) {
                if (queued.get() > 0) {
                    break;
                }
                try {
                    RoutedSnapshot s = repair ? repairer.repair(from, inForce.tables(), variant.index())
                            : engine.reroute(variant.index(), from);
                    TableSet tables = TableSet.derive(inForce.version() + 1, s.result().tables(), inForce);
                    FabricFingerprint.of(variant, engine.name());
                    if (repairer != null) {
                        repairer.churn(inForce.tables(), s, churnPool);
                    }
                    if ((long) tables.rowCount() * tables.length() <= INLINE_ENTRIES) {
                        NodeImpact.between(fabricInForce, inForce, variant, tables);
                    }
                } catch (RuntimeException e) {
                    if (closed) {
                        return done; // the daemon is stopping: nothing to warm any more
                    }
                    throw e;
                }
                done++;
            }
            return done;
        }, dispatcher);
    }

    /**
     * Makes {@code inForce}, the routing in force since a start (a restart, or a standby's takeover) that reused the
     * stored one for {@code fabric}, the base of repairs, as the routing it continued was before the start (dispatcher
     * thread; tried once). The first fault's repair then changes exactly the entries it changes without the start, and
     * is refined the same; without a base that repair became the base itself, never refined, and one prepared for a
     * ring verdict later refuted made the fabric without the suspect the base (the next repair then searched it for
     * returns and took a full routing whole). The base is the engine's repair of the tables for their own fabric (every
     * entry checked, and on an intact PGFT its full routing), kept only when its tables are {@code inForce}'s.
     */
    private void resume(TableSet inForce, Fabric fabric) {
        if (resumeTried) {
            return;
        }
        resumeTried = true;
        long begin = System.nanoTime();
        FabricIndex index = fabric.index();
        RoutedSnapshot s;
        try {
            s = repairer.repair(inForce.tables(), index, index);
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.warn("routing v{} in force could not be made the base of repairs: {}", inForce.version(),
                        e.toString());
            }
            return; // a fault's repair then starts from the tables in force, as before a base existed
        }
        if (!s.result().tables().sameAs(inForce.tables())) {
            LOG.warn("routing v{} in force is not its own repair: the first repair since the start becomes the base",
                    inForce.version());
            return;
        }
        full = s;
        LOG.info("routing v{} in force since the start made the base of repairs in {} ms", inForce.version(),
                String.format("%.0f", (System.nanoTime() - begin) / 1e6));
    }

    /** The snapshot of the job's previous tables, if one of the two kept is theirs. */
    private RoutedSnapshot continued(RoutingJob job) {
        if (job.previous() == null) {
            return null;
        }
        for (RoutedSnapshot s : new RoutedSnapshot[] {last, base}) {
            if (s != null && job.previous().tables() == s.result().tables()) {
                return s;
            }
        }
        return null;
    }

    /** The engine's own phases, " (ranking 0.3, routes 16.1)", or nothing when it reports none. */
    private static String phases(RoutingResult result) {
        if (result.timings() == null || result.timings().phases().isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(" (");
        for (PhaseTimings.Phase p : result.timings().phases()) {
            sb.append(sb.length() > 2 ? ", " : "").append(p.name()).append(' ').append(String.format("%.1f", p.millis()));
        }
        return sb.append(')').toString();
    }

    /**
     * Routes {@code fabric}, a what-if's degraded copy of the fabric in force, with the live engine on the
     * routing thread (after the computation running, if any; never at the same time as one). From scratch,
     * and the last routing kept for re-routes is left as it is: nothing of the live routing changes.
     *
     * @return fails with {@link org.fabricmanager.routing.RoutingException} when the engine refuses the fabric
     */
    public CompletableFuture<RoutingResult> whatIf(Fabric fabric) {
        return CompletableFuture.supplyAsync(() -> engine.route(fabric.index()), dispatcher);
    }

    /**
     * Routes {@code fabric}, a what-if's degraded copy of the fabric in force, as the daemon would route that change:
     * with {@code routing.onFault: repair}, the repair of the same base a real fault's repair starts from (the last
     * full routing, or {@code inForce} when none was computed since the start), with its churn against
     * {@code inForce}; otherwise from scratch, without churn. On the routing thread; nothing of the live routing
     * changes.
     */
    public CompletableFuture<FaultRouting> whatIfFault(Fabric fabric, TableSet inForce) {
        return CompletableFuture.supplyAsync(() -> {
            FabricIndex index = fabric.index();
            if (!repair) {
                return new FaultRouting(engine.route(index), null);
            }
            RoutedSnapshot r = full != null ? repairer.repair(full, inForce.tables(), index)
                    : repairer.repair(inForce.tables(), null, index);
            return new FaultRouting(r.result(), repairer.churn(inForce.tables(), r, churnPool));
        }, dispatcher);
    }

    /** A what-if's routing of a fault and, for a repair, its churn against the tables in force ({@code null}: none). */
    public record FaultRouting(RoutingResult result, TableChurn churn) {
    }

    @Override
    public void close() {
        closed = true;
        threads.forEach(ExecutorService::shutdownNow);
        try {
            for (ExecutorService t : threads) {
                t.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        engine.close();
        churnPool.close();
    }
}
