package org.fabricmanager.daemon;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.southbound.Message.LftBlock;

/**
 * Rebalances the routing in force (control thread): the fabric is routed again in full by the engine, as an undrain
 * is, not repaired, so that after repairs the tables are Dmodc's own again; the push sends only the blocks that
 * change. Asked by an operator ({@code POST /api/v1/routing/rebalance}) or by the quiet-period policy
 * ({@link QuietRebalance}). Refused while the fabric is changing (a routing under way or due: it would merge with
 * it) and before the first routing. Each rebalance is a {@code REBALANCED} event with what it changed, and an
 * operator reaction (a {@code REACTION} event at convergence). Only the active manager runs a daemon, so only the
 * leader of a hot-standby group rebalances.
 */
final class Rebalancer implements RoutingManager.Listener {
    private final MilestoneLog milestones;
    private final FabricCoordinator coordinator;
    private final FabricCoordinator.Managers managers;
    /** Askers waiting for the full routing under way, with why it was asked; empty when none is. */
    private final List<CompletableFuture<RebalanceResult>> waiting = new ArrayList<>();
    private String reason;
    private long previousVersion;
    private boolean previousRepaired;

    Rebalancer(MilestoneLog milestones, FabricCoordinator coordinator, FabricCoordinator.Managers managers) {
        this.milestones = milestones;
        this.coordinator = coordinator;
        this.managers = managers;
    }

    /**
     * Starts a rebalance (control thread); completes once its routing is installed, with what it changed.
     *
     * @throws WhatIfException {@code NOT_ROUTED} before the first routing, {@code BUSY} while the fabric is changing
     */
    CompletableFuture<RebalanceResult> rebalance(String why) {
        ActiveRouting active = managers.routing().active();
        if (active == null || !managers.discovery().done()) {
            throw new WhatIfException(WhatIfException.Kind.NOT_ROUTED, "the fabric has not been routed yet: nothing"
                    + " to rebalance");
        }
        CompletableFuture<RebalanceResult> answer = new CompletableFuture<>();
        if (!waiting.isEmpty()) {
            waiting.add(answer); // the rebalance under way is this one's too
            return answer;
        }
        if (managers.routing().busy() || managers.routing().hasPrepared() || coordinator.state() == DaemonState.ROUTING) {
            throw new WhatIfException(WhatIfException.Kind.BUSY, "the fabric is being routed (state "
                    + coordinator.state() + "): ask again once it has converged");
        }
        waiting.add(answer);
        reason = why;
        previousVersion = active.version();
        previousRepaired = active.repaired();
        managers.faults().reactions().operator("rebalance (" + why + ")");
        managers.routing().routeInFullNext();
        managers.routing().forceNext();
        coordinator.fabricChanged();
        return answer;
    }

    /** True while a rebalance waits for its routing. */
    boolean underWay() {
        return !waiting.isEmpty();
    }

    @Override
    public void computed(ActiveRouting routing, double engineMs) {
        if (waiting.isEmpty() || routing.repaired()) {
            return;
        }
        TableSet tables = routing.tables();
        long blocks = 0;
        int blocksPerRow = (tables.length() + LftBlock.SIZE - 1) / LftBlock.SIZE;
        for (int s = 0; s < tables.rowCount(); s++) {
            int[] changed = tables.changedBlocks(s);
            blocks += changed == null ? blocksPerRow : changed.length;
        }
        Long entries = routing.churn() == null ? null : routing.churn().changedEntries();
        RebalanceResult result = new RebalanceResult("rebalanced", reason, routing.version(), previousVersion,
                previousRepaired, entries, blocks, tables.changedRows(), engineMs);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("reason", reason);
        details.put("routingVersion", routing.version());
        details.put("previousVersion", previousVersion);
        details.put("replacedRepair", previousRepaired);
        details.put("changedEntries", entries);
        details.put("changedBlocks", blocks);
        details.put("switchesTouched", tables.changedRows());
        milestones.record(Milestone.Kind.REBALANCED, String.format("routing v%d rebalanced (%s): v%d%s routed in full,"
                        + " %s entries in %d blocks on %d switches changed", routing.version(), reason, previousVersion,
                previousRepaired ? ", a repair," : "", entries == null ? "?" : entries.toString(), blocks,
                tables.changedRows()), details);
        finish(result, null);
    }

    @Override
    public void failed(long version, Throwable cause) {
        if (waiting.isEmpty()) {
            return;
        }
        finish(null, new IllegalStateException("rebalance (" + reason + "): routing v" + version + " failed: "
                + cause.getMessage()));
    }

    @Override
    public void unchanged() {
        // forced: the rebalance's routing is never found unchanged; another computation's answer is not its
    }

    private void finish(RebalanceResult result, Throwable error) {
        List<CompletableFuture<RebalanceResult>> done = new ArrayList<>(waiting);
        waiting.clear();
        for (CompletableFuture<RebalanceResult> f : done) {
            if (error == null) {
                f.complete(result);
            } else {
                f.completeExceptionally(error);
            }
        }
    }
}
