package org.fabricmanager.daemon.routing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.store.FabricFingerprint;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.FabricIndex;

/**
 * Runs routing computations one at a time on a dedicated dispatcher thread, so the control thread
 * never blocks; the engine parallelises each computation on its own pool (kept warm between
 * computations). Results come back through futures, which the daemon turns into control events.
 */
public final class RoutingService implements AutoCloseable {
    private final RoutingEngine engine;
    /** The last routing computed, for the next re-route (dispatcher thread only). */
    private RoutedSnapshot last;
    private final ExecutorService dispatcher = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fm-routing");
        t.setDaemon(true);
        return t;
    });

    /**
     * @throws org.fabricmanager.routing.RoutingException for an unknown engine name
     */
    public RoutingService(String engineName, int threads) {
        this(RoutingEngines.create(engineName, threads));
    }

    /** A service around an engine built elsewhere (the service closes it). */
    public RoutingService(RoutingEngine engine) {
        this.engine = engine;
    }

    /** The engine's name as configured. */
    public String engineName() {
        return engine.name();
    }

    /**
     * Fingerprints the job's fabric and, unless it is the one routed, computes its tables on the routing
     * threads, then compares them with the job's previous tables (hashes and changed blocks), so that the
     * control thread only installs them.
     */
    public CompletableFuture<RoutingOutcome> route(RoutingJob job) {
        return CompletableFuture.supplyAsync(() -> {
            long begin = System.nanoTime();
            FabricIndex index = job.fabric().index();
            long indexed = System.nanoTime();
            String fingerprint = FabricFingerprint.of(job.fabric(), engine.name());
            if (fingerprint.equals(job.activeFingerprint())) {
                return new RoutingOutcome(job, fingerprint, null, null, 0, 0, "");
            }
            long start = System.nanoTime();
            // from the last routing when the job continues it: an incremental engine recomputes only what
            // the change affects (the result is exactly a routing from scratch)
            RoutedSnapshot previous = last != null && job.previous() != null
                    && job.previous().tables() == last.result().tables() ? last : null;
            RoutedSnapshot snapshot = previous == null ? engine.routeSnapshot(index) : engine.reroute(index, previous);
            last = snapshot;
            RoutingResult result = snapshot.result();
            long routed = System.nanoTime();
            TableSet tables = TableSet.derive(job.version(), result.tables(), job.previous());
            // where the time went, for the operator's log line: a slow re-route says which part to blame
            String detail = String.format("index %.1f ms, fingerprint %.1f ms, %s %.1f ms", (indexed - begin) / 1e6,
                    (start - indexed) / 1e6, previous == null ? "engine from scratch" : "engine re-routing",
                    (routed - start) / 1e6);
            return new RoutingOutcome(job, fingerprint, result, tables, routed - begin, System.nanoTime() - routed,
                    detail);
        }, dispatcher);
    }

    @Override
    public void close() {
        dispatcher.shutdownNow();
        try {
            dispatcher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        engine.close();
    }
}
