package org.fabricmanager.daemon;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.DrainResult;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.VirtualTimeLoop;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.SouthboundListener;

/**
 * The daemon as {@link DaemonAssembly} wires it, run by its caller's thread on a {@link VirtualTimeLoop}: the chaos
 * simulation ({@code org.fabricmanager.daemon.chaos}) drives one with simulated switches and judges what it does. It
 * opens no port: the caller hands the agents' messages to {@link #southbound()}. The routing service is the caller's
 * (a simulation holds each computation until its schedule lets it finish); the stored routing and the discovery check
 * run at once, on the caller's thread; the background analyses (quality, rebalance estimate) are held, as their
 * threads would hand the routing service work at moments of real time. It loads the state directory when made.
 */
public final class VirtualDaemon implements AutoCloseable {
    private final DaemonAssembly daemon;
    private final LongSupplier clockNanos;
    private final VirtualTimeLoop loop;
    /** The configuration in force: the one made with, then each reload's run-time changes. */
    private DaemonConfig config;

    /**
     * A daemon of {@code config} on {@code loop}, routing with {@code routing}, its identity {@code daemonId}, its
     * stores writing through {@code files}, its milestones told to {@code listener} as they happen.
     */
    public VirtualDaemon(DaemonConfig config, VirtualTimeLoop loop, RoutingService routing, long daemonId,
                         StateFiles files, DaemonListener listener) {
        this.loop = loop;
        this.config = config;
        DirectExecutor direct = new DirectExecutor();
        clockNanos = () -> loop.nowMs() * 1_000_000L;
        daemon = new DaemonAssembly(config, new StartOptions(List.of(listener), new SimpleMeterRegistry(), null,
                List.of(), files, 0, () -> { }),
                new DaemonAssembly.Clockwork(loop, null, direct, direct, direct, clockNanos, loop::nowMs, routing,
                        daemonId));
        loop.call("load-state", () -> {
            daemon.coordinator.loadState();
            return null;
        });
        daemon.actions.holdAnalyses();
        loop.append("gauges", daemon.gauges::refresh);
        loop.runPending();
    }

    /** Where the agents' messages go: HELLO, port reports, a session's end. */
    public SouthboundListener southbound() {
        return daemon.sessions;
    }

    public DaemonState state() {
        return daemon.coordinator.state();
    }

    /** What {@code GET /api/v1/status} answers now. */
    public Views.Status status() {
        return daemon.views.status();
    }

    /** The routing in force. */
    public ActiveRouting active() {
        return daemon.routingManager.active();
    }

    /** True while a routing is computed or waits to be. */
    public boolean routingBusy() {
        return daemon.routingManager.busy();
    }

    /** The cables quarantined for their flaps. */
    public List<FaultReport.Quarantine> quarantined() {
        return daemon.faults.flaps().quarantined();
    }

    /** An operator's drain, judged by the daemon's what-if on a thread of its own. */
    public CompletableFuture<DrainResult> drain(DrainRequest request) {
        return daemon.actions.drain(request);
    }

    public CompletableFuture<DrainResult> undrain(DrainRequest request) {
        return daemon.actions.undrain(request);
    }

    /**
     * Switch {@code guid}'s port counters, read now (virtual time), as its poll would bring them: judged when the
     * configuration's {@code linkHealth.policy} is not off, at once on the caller's thread.
     */
    public void portCounters(long guid, PortCounters counters) {
        if (daemon.grayLinks != null) {
            daemon.grayLinks.reported(guid, counters, clockNanos.getAsLong());
        }
    }

    /** The links the gray-link policy holds isolated, as {@code GET /api/v1/drains/isolated} lists them. */
    public List<Views.Isolated> isolated() {
        return daemon.views.isolated(end -> null);
    }

    /** An operator's what-if of failures, answered on a thread of the daemon's own; it changes nothing in force. */
    public CompletableFuture<WhatIfResult> whatIf(WhatIfRequest request) {
        return daemon.actions.whatIf(request);
    }

    /** An operator's rebalance: completes once its full routing is installed, or refused while the fabric changes. */
    public CompletableFuture<RebalanceResult> rebalance() {
        return daemon.actions.rebalance();
    }

    /**
     * A configuration read again ({@code SIGHUP}), applied on the control loop as the daemon's own reload applies it:
     * the run-time changes in force from now on, the others reported as waiting for a restart.
     */
    public CompletableFuture<ConfigReload> reload(DaemonConfig read) {
        return loop.call("reload", () -> {
            ConfigReload plan = ConfigReload.plan(config, read);
            daemon.reloaded(plan);
            config = plan.effective();
            return plan;
        });
    }

    /** What the daemon told its operators since it was made. */
    public List<Milestone> milestones() {
        return daemon.milestones.since(0);
    }

    @Override
    public void close() {
        daemon.actions.close();
        daemon.routing.close();
    }

    /** Runs what the daemon hands its store and check executors at once, on the caller's thread. */
    private static final class DirectExecutor extends AbstractExecutorService {
        private boolean shutdown;

        @Override
        public void execute(Runnable command) {
            command.run();
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
