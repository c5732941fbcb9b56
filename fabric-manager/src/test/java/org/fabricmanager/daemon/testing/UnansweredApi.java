package org.fabricmanager.daemon.testing;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.topology.Fabric;

/**
 * A {@link DaemonApi} that answers nothing: every query fails through {@link #unanswered()}. A test overrides the
 * queries it is about (and {@link #unanswered()} to record the others), so that a query it did not expect fails.
 */
public abstract class UnansweredApi implements DaemonApi {
    /** The answer to every query this test does not override. */
    protected <T> CompletableFuture<T> unanswered() {
        return CompletableFuture.failedFuture(new IllegalStateException("not in this test"));
    }

    @Override
    public CompletableFuture<Views.Status> status() {
        return unanswered();
    }

    @Override
    public CompletableFuture<Fabric> topology() {
        return unanswered();
    }

    @Override
    public CompletableFuture<Views.DiscoveryReport> discovery() {
        return unanswered();
    }

    @Override
    public CompletableFuture<List<Views.Switch>> switches() {
        return unanswered();
    }

    @Override
    public CompletableFuture<Views.SwitchDetail> switchDetail(long guid) {
        return unanswered();
    }

    @Override
    public CompletableFuture<Views.Lft> lft(long guid) {
        return unanswered();
    }

    @Override
    public CompletableFuture<Views.Vc> vc(long guid) {
        return unanswered();
    }

    @Override
    public CompletableFuture<Views.Route> route(int src, int dst) {
        return unanswered();
    }

    @Override
    public CompletableFuture<List<Milestone>> milestones(long since) {
        return unanswered();
    }

    @Override
    public CompletableFuture<FaultReport> faults() {
        return unanswered();
    }

    @Override
    public CompletableFuture<String> admit(long guid) {
        return unanswered();
    }

    @Override
    public CompletableFuture<List<Views.PendingSwitch>> pendingSwitches() {
        return unanswered();
    }

    @Override
    public CompletableFuture<String> reroute() {
        return unanswered();
    }
}
