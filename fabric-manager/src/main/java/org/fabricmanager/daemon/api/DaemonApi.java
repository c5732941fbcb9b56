package org.fabricmanager.daemon.api;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.topology.Fabric;

/**
 * What the daemon answers (REST and tests call it): each query runs on the control thread and
 * completes its future there, so it sees one consistent state.
 */
public interface DaemonApi {
    CompletableFuture<Views.Status> status();

    /** The fabric the tables in force were computed for, or {@code null} before discovery. */
    CompletableFuture<Fabric> topology();

    CompletableFuture<Views.DiscoveryReport> discovery();

    CompletableFuture<List<Views.Switch>> switches();

    /** {@code null} for an unknown GUID. */
    CompletableFuture<Views.SwitchDetail> switchDetail(long guid);

    /** {@code null} for a GUID without a table. */
    CompletableFuture<Views.Lft> lft(long guid);

    /** The virtual-channel rules of a switch in the tables in force; empty when it has none or they carry none. */
    CompletableFuture<Views.Vc> vc(long guid);

    /** Fails with {@link IllegalArgumentException} for an index that names no node. */
    CompletableFuture<Views.Route> route(int src, int dst);

    CompletableFuture<List<Milestone>> milestones(long since);

    /** Current switch and link faults and quarantined links. */
    CompletableFuture<FaultReport> faults();

    /** Admits switch {@code guid} into the fabric (admission control); completes with a one-line answer. */
    CompletableFuture<String> admit(long guid);

    /** Switches waiting for an admin's admission. */
    CompletableFuture<List<Views.PendingSwitch>> pendingSwitches();

    /** Forces a re-route; completes with a one-line answer. */
    CompletableFuture<String> reroute();

    /**
     * Routes the fabric in force without the request's switches and links, off the control thread and
     * without touching the live state, and compares with the tables in force; fails with a
     * {@link org.fabricmanager.daemon.api.WhatIfException} saying why it cannot (one runs at a time).
     */
    default CompletableFuture<WhatIfResult> whatIf(
            WhatIfRequest request) {
        return CompletableFuture.failedFuture(new IllegalStateException("what-if is not available here"));
    }

    /** The quality of the tables in force, as last measured after a routing. */
    default CompletableFuture<QualityView> routingQuality() {
        return CompletableFuture.failedFuture(new IllegalStateException("routing quality is not available here"));
    }

    /** The fabric as the status page draws it (switch states, groups, cables not up). */
    default CompletableFuture<FabricGraph> fabricGraph() {
        return CompletableFuture.failedFuture(new IllegalStateException("this daemon does not serve the fabric graph"));
    }

    /** Routes per directed switch link of the tables in force under {@code pattern}, computed off the control thread. */
    default CompletableFuture<LinkLoad> linkLoad(TrafficPattern pattern) {
        return CompletableFuture.failedFuture(new IllegalStateException("this daemon does not serve link loads"));
    }

    /** A switch's port counters ({@code GET /api/v1/switches/{guid}/ports}); {@code null} for an unknown GUID. */
    default CompletableFuture<PortCountersView> portCounters(long guid) {
        return CompletableFuture.failedFuture(new IllegalStateException("this daemon does not serve port counters"));
    }

    /**
     * Drains a switch or a cable: judged by a what-if unless forced, stored (and replicated), then routed around as
     * after a fault; fails with a {@link DrainException} saying why not.
     */
    default CompletableFuture<DrainResult> drain(DrainRequest request) {
        return CompletableFuture.failedFuture(new IllegalStateException("drains are not available here"));
    }

    /** Undrains a switch or a cable drained before: stored, then routed through again. */
    default CompletableFuture<DrainResult> undrain(DrainRequest request) {
        return CompletableFuture.failedFuture(new IllegalStateException("drains are not available here"));
    }

    /** The links the gray-link policy isolated (apart from the operator's drains). */
    default CompletableFuture<List<Views.Isolated>> isolated() {
        return CompletableFuture.failedFuture(new IllegalStateException("drains are not available here"));
    }

    /** The links judged suspect or bad now and those the gray-link policy holds isolated. */
    default CompletableFuture<List<Views.LinkHealth>> linkHealth() {
        return CompletableFuture.failedFuture(new IllegalStateException("link health is not available here"));
    }

    /** The drained switches and cables. */
    default CompletableFuture<List<Views.Drained>> drained() {
        return CompletableFuture.failedFuture(new IllegalStateException("drains are not available here"));
    }

    /**
     * Routes the fabric in full again (the engine from scratch, not a repair) and pushes the blocks that change;
     * completes once the routing is installed. Fails with a {@link WhatIfException} ({@code NOT_ROUTED}, {@code BUSY}).
     */
    default CompletableFuture<RebalanceResult> rebalance() {
        return CompletableFuture.failedFuture(new IllegalStateException("rebalance is not available here"));
    }

    /** What a rebalance would change and gain, without doing it (computed once per routing version). */
    default CompletableFuture<RebalanceEstimate> whatIfRebalance() {
        return CompletableFuture.failedFuture(new IllegalStateException("what-if is not available here"));
    }

    /** The routing in force and how far it is from a full recompute. */
    default CompletableFuture<RoutingView> routing() {
        return CompletableFuture.failedFuture(new IllegalStateException("the routing view is not available here"));
    }

    /**
     * Reads the tables the daemon has handed to its switches' sessions, on its control thread, where no routing or push
     * changes them meanwhile: {@code read} gets the fabric the routing in force covers once that routing is installed
     * (PUSHING or CONVERGED), at once if it is, else as soon as it is (a change being routed, or before the first
     * routing). Cancel the future to stop waiting. The OpenSM provider's answer takes its tables this way, since OpenSM's
     * switches hold them only once a pass carries them.
     */
    default <T> CompletableFuture<T> whenHanded(Function<Fabric, T> read) {
        return CompletableFuture.failedFuture(new IllegalStateException("handed tables are not available here"));
    }

    /**
     * Holds the daemon's background analyses of a new routing (its quality measurement) until the returned hold is
     * closed (any thread): the OpenSM provider's answer, whose tables by LID come after the tables converged, then
     * has both cores of a small host.
     */
    default Hold holdAnalyses() {
        return () -> { };
    }

    /** A hold on something, released once by {@link #close()}. */
    interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    /** The configured REST admin token, or {@code null} when none is configured. */
    default String adminToken() {
        return null;
    }
}
