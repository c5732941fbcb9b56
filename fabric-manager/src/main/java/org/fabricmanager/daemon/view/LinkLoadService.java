package org.fabricmanager.daemon.view;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.LinkLoad;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.DirectedLinks;
import org.fabricmanager.routing.analysis.LinkLoads;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Link loads of the tables in force under a traffic pattern ({@code GET /api/v1/fabric/load}), computed with
 * the {@link CongestionAnalyzer} the {@code quality} command uses, on one thread of its own so that neither
 * the control thread nor routing waits for a page. Answers are kept per (routing version, pattern), at most
 * {@value #MAX_KEPT}, and dropped when a new version comes; a pattern asked again while it is computed shares
 * the computation. At most {@value #MAX_WAITING} computations wait at once: more are refused (the page asks
 * again), so that a client cannot queue unbounded work.
 */
public final class LinkLoadService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LinkLoadService.class);
    /** Most random permutations one request may ask for. */
    public static final int MAX_PERMUTATIONS = 1000;
    static final int MAX_KEPT = 8;
    static final int MAX_WAITING = 4;

    private record Key(long version, String pattern) {
    }

    private final ExecutorService executor;
    private final Map<Key, CompletableFuture<LinkLoad>> kept = new LinkedHashMap<>(16, 0.75f, true);

    public LinkLoadService() {
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fm-link-load");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The pattern named by {@code text}, as {@link TrafficPattern#parse} reads it.
     *
     * @throws IllegalArgumentException for an unknown pattern or more than {@value #MAX_PERMUTATIONS} permutations
     */
    public static TrafficPattern pattern(String text) {
        TrafficPattern p = TrafficPattern.parse(text);
        if (p instanceof TrafficPattern.RandomPermutations r && r.count() > MAX_PERMUTATIONS) {
            throw new IllegalArgumentException("traffic pattern '" + text + "': at most " + MAX_PERMUTATIONS
                    + " random permutations per request, got " + r.count());
        }
        return p;
    }

    /**
     * The loads of {@code active}'s tables under {@code pattern}; never blocks. Fails with
     * {@link IllegalStateException} when there are no tables yet or too many computations wait.
     */
    public synchronized CompletableFuture<LinkLoad> load(ActiveRouting active, TrafficPattern pattern) {
        if (active == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("no tables yet: the fabric is not routed"));
        }
        Key key = new Key(active.version(), pattern.toString());
        CompletableFuture<LinkLoad> f = kept.get(key);
        if (f != null && !f.isCompletedExceptionally()) {
            return f;
        }
        int waiting = 0;
        for (Iterator<Map.Entry<Key, CompletableFuture<LinkLoad>>> it = kept.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Key, CompletableFuture<LinkLoad>> e = it.next();
            if (!e.getValue().isDone()) {
                waiting++;
            } else if (e.getKey().version() != active.version() || e.getValue().isCompletedExceptionally()) {
                it.remove();
            }
        }
        if (waiting >= MAX_WAITING) {
            return CompletableFuture.failedFuture(new IllegalStateException(waiting
                    + " link-load analyses are already running or waiting; ask again in a few seconds"));
        }
        CompletableFuture<LinkLoad> started = CompletableFuture.supplyAsync(() -> compute(active, pattern), executor);
        kept.put(key, started);
        while (kept.size() > MAX_KEPT) {
            Iterator<Map.Entry<Key, CompletableFuture<LinkLoad>>> it = kept.entrySet().iterator();
            Map.Entry<Key, CompletableFuture<LinkLoad>> eldest = it.next();
            if (!eldest.getValue().isDone()) {
                break; // never forget a computation in progress: it would escape the bound
            }
            it.remove();
        }
        return started;
    }

    /** The loads, one quadruple per directed switch-to-switch link (runs on the service's thread). */
    static LinkLoad compute(ActiveRouting active, TrafficPattern pattern) {
        long t0 = System.nanoTime();
        FabricIndex index = active.fabric().index();
        RoutedFabric routed = RoutedFabric.of(index, active.tables().tables());
        LinkLoads loads = new CongestionAnalyzer(routed, 1).linkLoads(pattern);
        DirectedLinks links = routed.links();
        int switchLinks = 0;
        for (int l = 0; l < links.count(); l++) {
            if (links.isSwitchLink(l)) {
                switchLinks++;
            }
        }
        long[] out = new long[switchLinks * 4];
        int k = 0;
        for (int l = 0; l < links.count(); l++) {
            if (links.isSwitchLink(l)) {
                out[k++] = links.sourceSwitch(l);
                out[k++] = links.port(l);
                out[k++] = links.peerSwitch(l);
                out[k++] = loads.loads()[l];
            }
        }
        List<String> guids = new ArrayList<>(index.switchCount());
        for (int s = 0; s < index.switchCount(); s++) {
            guids.add(Guids.format(index.switchGuid(s)));
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        LOG.debug("link loads of v{} under {} in {} ms", active.version(), pattern, Math.round(ms));
        return new LinkLoad(active.version(), active.engine(), pattern.toString(), loads.summary().permutations(),
                loads.summary().max(), loads.summary().mean(), loads.summary().unroutedPairs(), ms, guids, out);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
