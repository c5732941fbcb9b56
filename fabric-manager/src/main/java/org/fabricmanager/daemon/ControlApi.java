package org.fabricmanager.daemon;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.DrainResult;
import org.fabricmanager.daemon.api.FabricGraph;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.LinkLoad;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.PortCountersView;
import org.fabricmanager.daemon.api.QualityView;
import org.fabricmanager.daemon.api.RebalanceEstimate;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.api.RoutingView;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.control.EventQueue;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.counters.PortCounterService;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.daemon.view.DaemonViews;
import org.fabricmanager.daemon.view.FabricGraphView;
import org.fabricmanager.daemon.view.HandedReads;
import org.fabricmanager.daemon.view.LinkLoadService;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;

/**
 * The daemon's API ({@link DaemonApi}) as REST and the embedding programs call it from any thread: every read and
 * every action is an event on the control thread, in order with the fabric's own, and its answer a future; the
 * analyses that take seconds run beside it ({@link RoutingActions}, {@link LinkLoadService}).
 */
final class ControlApi implements DaemonApi {
    private final EventQueue queue;
    private final FabricCoordinator coordinator;
    private final RoutingActions actions;
    private final SwitchSessions sessions;
    private final DaemonViews views;
    private final HandedReads handedReads;
    private final FabricGraphView graphView;
    private final LinkLoadService linkLoads;
    private final RoutingManager routingManager;
    private final MilestoneLog milestones;
    private final PortCounterService counters;
    /** The gray-link monitor, or {@code null} when {@code linkHealth.policy} is off. */
    private final GrayLinks grayLinks;
    /** The REST actions' bearer token, as the last start or reload resolved it. */
    private final Supplier<String> adminToken;

    ControlApi(DaemonAssembly parts, Supplier<String> adminToken) {
        this.queue = parts.queue;
        this.coordinator = parts.coordinator;
        this.actions = parts.actions;
        this.sessions = parts.sessions;
        this.views = parts.views;
        this.grayLinks = parts.grayLinks;
        this.handedReads = parts.handedReads;
        this.graphView = parts.graphView;
        this.linkLoads = parts.linkLoads;
        this.routingManager = parts.routingManager;
        this.milestones = parts.milestones;
        this.counters = parts.counters;
        this.adminToken = adminToken;
    }

    @Override
    public CompletableFuture<Views.Status> status() {
        return queue.call("status", views::status);
    }

    @Override
    public CompletableFuture<Fabric> topology() {
        return queue.call("topology", views::topology);
    }

    @Override
    public <T> CompletableFuture<T> whenHanded(Function<Fabric, T> read) {
        return queue.call("read handed tables", () -> handedReads.read(read)).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<Views.DiscoveryReport> discovery() {
        return queue.call("discovery", views::discovery);
    }

    @Override
    public CompletableFuture<List<Views.Switch>> switches() {
        return queue.call("switches", views::switchList);
    }

    @Override
    public CompletableFuture<FabricGraph> fabricGraph() {
        return queue.call("fabric graph", graphView::graph);
    }

    @Override
    public CompletableFuture<LinkLoad> linkLoad(TrafficPattern pattern) {
        // the control thread only hands over the routing in force; the analysis runs on the service's thread
        return queue.call("link load", routingManager::active).thenCompose(a -> linkLoads.load(a, pattern));
    }

    @Override
    public CompletableFuture<Views.SwitchDetail> switchDetail(long guid) {
        return queue.call("switch " + Guids.format(guid), () -> views.switchDetail(guid));
    }

    @Override
    public CompletableFuture<PortCountersView> portCounters(long guid) {
        return queue.call("ports " + Guids.format(guid), () -> counters.views().view(guid));
    }

    @Override
    public CompletableFuture<Views.Lft> lft(long guid) {
        return queue.call("lft " + Guids.format(guid), () -> views.lft(guid));
    }

    @Override
    public CompletableFuture<Views.Vc> vc(long guid) {
        return queue.call("vc " + Guids.format(guid), () -> views.vc(guid));
    }

    @Override
    public CompletableFuture<Views.Route> route(int src, int dst) {
        return queue.call("route", () -> views.route(src, dst));
    }

    @Override
    public CompletableFuture<List<Milestone>> milestones(long since) {
        return queue.call("milestones", () -> milestones.since(since));
    }

    @Override
    public CompletableFuture<FaultReport> faults() {
        return queue.call("faults", views::faults);
    }

    @Override
    public CompletableFuture<String> reroute() {
        return queue.call("reroute", coordinator::forceReroute);
    }

    @Override
    public CompletableFuture<DrainResult> drain(DrainRequest request) {
        return actions.drain(request);
    }

    @Override
    public CompletableFuture<DrainResult> undrain(DrainRequest request) {
        return actions.undrain(request);
    }

    @Override
    public CompletableFuture<RebalanceResult> rebalance() {
        return actions.rebalance();
    }

    @Override
    public CompletableFuture<RoutingView> routing() {
        return queue.call("routing", () -> actions.routingView(views.routing()));
    }

    @Override
    public CompletableFuture<List<Views.Isolated>> isolated() {
        return queue.call("isolated links", () -> views.isolated(grayLinks == null ? end -> null
                : grayLinks::decidedFigures));
    }

    @Override
    public CompletableFuture<List<Views.LinkHealth>> linkHealth() {
        return queue.call("link health", () -> grayLinks == null ? List.of() : grayLinks.view(views::switchName));
    }

    @Override
    public CompletableFuture<List<Views.Drained>> drained() {
        return queue.call("drains", views::drained);
    }

    @Override
    public CompletableFuture<String> admit(long guid) {
        return queue.call("admit " + Guids.format(guid), () -> sessions.admitByAdmin(guid));
    }

    @Override
    public CompletableFuture<List<Views.PendingSwitch>> pendingSwitches() {
        return queue.call("pending switches", views::pending);
    }

    @Override
    public CompletableFuture<WhatIfResult> whatIf(WhatIfRequest request) {
        return actions.whatIf(request);
    }

    @Override
    public CompletableFuture<RebalanceEstimate> whatIfRebalance() {
        return actions.whatIfRebalance();
    }

    @Override
    public CompletableFuture<QualityView> routingQuality() {
        return CompletableFuture.completedFuture(actions.quality());
    }

    @Override
    public Hold holdAnalyses() {
        return actions.holdAnalyses();
    }

    @Override
    public String adminToken() {
        return adminToken.get();
    }
}
