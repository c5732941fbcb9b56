package org.fabricmanager.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.rest.RestExtension;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.routing.RoutingEngine;

/**
 * How a daemon starts, beside its configuration: who hears its events, where its meters go, and what the program
 * that embeds it adds (an engine instance, REST resources, the replication of a hot-standby group).
 *
 * @param listeners       told of every event, in order
 * @param registry        where components register meters, or {@code null}: a registry of the daemon's own; every
 *                        meter is also exported on {@code /metrics} whatever the registry ({@link DaemonMetrics})
 * @param engine          an engine instance instead of the configured one, or {@code null}: {@code routing.engine}
 * @param restExtensions  REST actions served by the caller under {@code /api/v1/{resource}} (the demo's simulator)
 * @param files           how the stores write: locally, or replicated by the active manager of a hot-standby group
 * @param managerTerm     the Raft term sent to agents, which fences a deposed manager; 0 = no group
 * @param beforeListening runs once the state is loaded, just before the ports are bound: a hot standby frees the
 *                        same ports there, so that they are unbound for as short a time as possible
 */
public record StartOptions(List<DaemonListener> listeners, MeterRegistry registry, RoutingEngine engine,
                           List<RestExtension> restExtensions, StateFiles files, long managerTerm,
                           Runnable beforeListening) {

    public StartOptions {
        listeners = List.copyOf(listeners);
        restExtensions = List.copyOf(restExtensions);
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(beforeListening, "beforeListening");
    }

    /** A standalone daemon telling {@code listeners} of its events: its own registry, the configured engine. */
    public static StartOptions of(List<DaemonListener> listeners) {
        return new StartOptions(listeners, null, null, List.of(), StateFiles.LOCAL, 0, () -> { });
    }

    public StartOptions registry(MeterRegistry to) {
        return new StartOptions(listeners, to, engine, restExtensions, files, managerTerm, beforeListening);
    }

    public StartOptions engine(RoutingEngine instance) {
        return new StartOptions(listeners, registry, instance, restExtensions, files, managerTerm, beforeListening);
    }

    public StartOptions rest(List<RestExtension> extensions) {
        return new StartOptions(listeners, registry, engine, extensions, files, managerTerm, beforeListening);
    }

    /** As the active manager of a hot-standby group: stores replicated through {@code through}, fenced by {@code term}. */
    public StartOptions replicated(StateFiles through, long term, Runnable freePorts) {
        return new StartOptions(listeners, registry, engine, restExtensions, through, term, freePorts);
    }
}
