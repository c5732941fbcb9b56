package org.fabricmanager.daemon;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.DrainException;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.DrainResult;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.daemon.whatif.WhatIfService;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/**
 * An operator's drains and undrains ({@code POST /api/v1/drain}, {@code /api/v1/undrain}), and the gray-link policy's
 * isolations (the same judgement and path, stored apart; an operator's drain of such a link pins it, an undrain
 * releases it): a drain is first judged by a
 * what-if of the routing in force without the element (off the control thread, like {@code whatif}) and refused when
 * it would cut off end nodes or leave leaf pairs unreachable, unless forced; then, on the control thread, it is stored
 * ({@link Drains}: replicated with a hot-standby group), recorded as a {@code DRAINED} event, and the fabric is
 * re-routed as after a fault (the same snapshot, the same repair or recomputation, the same push). An undrain is
 * stored, recorded ({@code UNDRAINED}) and routed in full, so that the element gets its routes back even when the
 * repairs' base is a stored routing computed without it (after a restart or a failover).
 */
final class Maintenance {
    private final ControlLoop queue;
    private final MilestoneLog milestones;
    private final FabricCoordinator coordinator;
    private final FabricCoordinator.Managers managers;
    private final Drains drains;
    private final WhatIfService whatIfs;

    /** What a drain was judged with: the routing in force (or null) and the end nodes it would cut off. */
    private record Judged(ActiveRouting active, int nodesCutOff, WhatIfResult whatIf) {
    }

    Maintenance(ControlLoop queue, MilestoneLog milestones, FabricCoordinator coordinator,
                FabricCoordinator.Managers managers, Drains drains, WhatIfService whatIfs) {
        this.queue = queue;
        this.milestones = milestones;
        this.coordinator = coordinator;
        this.managers = managers;
        this.drains = drains;
        this.whatIfs = whatIfs;
    }

    /**
     * Drains the request's element once judged (any thread); fails with a {@link DrainException} saying why not. A link
     * the gray-link policy isolated is pinned: the operator's drain from now on, with no re-route (it is out already).
     */
    CompletableFuture<DrainResult> drain(DrainRequest request) {
        String what = Drains.describe(request.element());
        return queue.call("pin " + what, () -> pin(request)).thenCompose(pinned -> pinned != null
                ? CompletableFuture.completedFuture(pinned) : judged(request, judged -> apply(request, judged)));
    }

    /**
     * Isolates the link {@code end}-{@code isolation.peer()} for the gray-link policy (any thread): judged as an
     * operator's unforced drain (refused when it would cut off end nodes or leave the fabric unroutable), then stored
     * apart from the operator's drains, recorded as a {@code LINK_ISOLATED} event with {@code figures}, and routed
     * around.
     */
    CompletableFuture<DrainResult> isolate(PortRef end, Drains.Isolation isolation, String figures,
                                           Map<String, Object> details) {
        DrainRequest request = new DrainRequest(end.guid(), end.port(), false);
        return judged(request, judged -> {
            check(request);
            if (managers.routing().active() != judged.active() || rerouteDue()) {
                throw new DrainException(DrainException.Kind.BUSY, "the fabric changed while the isolation was judged");
            }
            store(() -> drains.isolate(end, isolation));
            milestones.record(Milestone.Kind.LINK_ISOLATED, "link " + end + "-" + isolation.peer() + " ("
                    + name(end.guid()) + ") isolated by the gray-link policy: " + figures + "; given back after "
                    + isolation.probationMs() / 1000 + " s healthy", details);
            managers.faults().reactions().operator("gray-link policy: isolated link " + end);
            coordinator.maskChanged();
            return result("isolated", request, name(end.guid()), false, 0, judged.whatIf());
        });
    }

    /** Gives back the link isolated by the policy under {@code end}'s name (any thread), recorded with {@code why}. */
    CompletableFuture<DrainResult> reinstate(PortRef end, String why, Map<String, Object> details) {
        return queue.call("reinstate link " + end, () -> {
            Drains.Isolation i = drains.isolatedView().get(end);
            if (i == null) {
                throw new DrainException(DrainException.Kind.CONFLICT, "link " + end + " is not isolated");
            }
            store(() -> drains.reinstate(end));
            milestones.record(Milestone.Kind.LINK_REINSTATED, "link " + end + "-" + i.peer() + " (" + name(end.guid())
                    + ") given back: " + why, details);
            managers.faults().reactions().operator("gray-link policy: reinstated link " + end);
            coordinator.maskChanged();
            return result("reinstated", new DrainRequest(end.guid(), end.port(), false), name(end.guid()), false, 0,
                    null);
        });
    }

    /** Control thread: turns the policy's isolation of the request's link into the operator's drain, or null. */
    private DrainResult pin(DrainRequest request) {
        Drains.Isolation i = request.isSwitch() ? null : drains.isolation(request.element());
        if (i == null) {
            return null;
        }
        PortRef stored = drains.isolatedView().containsKey(request.element()) ? request.element() : i.peer();
        store(() -> drains.drain(stored, System.currentTimeMillis()));
        milestones.record(Milestone.Kind.DRAINED, "link " + stored + " (" + name(stored.guid()) + ") pinned by an "
                + "operator: isolated by the gray-link policy, drained until undrained");
        return result("drained", request, name(stored.guid()), false, 0, null);
    }

    /** Judges the request as an unforced drain's what-if, unless forced, then applies it on the control thread. */
    private CompletableFuture<DrainResult> judged(DrainRequest request, Function<Judged, DrainResult> apply) {
        String what = Drains.describe(request.element());
        return queue.call("drain " + what, () -> check(request)).thenCompose(judged -> {
            if (request.force() || judged.active() == null) {
                return CompletableFuture.completedFuture(judged);
            }
            WhatIfRequest failures = request.isSwitch() ? new WhatIfRequest(List.of(request.guid()), List.of())
                    : new WhatIfRequest(List.of(), List.of(request.element()));
            CompletableFuture<WhatIfResult> judging;
            try {
                judging = whatIfs.start(judged.active(), failures);
            } catch (WhatIfException e) {
                judging = CompletableFuture.failedFuture(e); // another what-if runs: judged as BUSY, a 429
            }
            return judging.handle((result, error) -> judge(what, judged, result, error));
        }).thenCompose(judged -> queue.call("drain " + what, () -> apply.apply(judged)));
    }

    /** Undrains the request's element (any thread); fails with a {@link DrainException} when it is not drained. */
    CompletableFuture<DrainResult> undrain(DrainRequest request) {
        return queue.call("undrain " + Drains.describe(request.element()), () -> {
            PortRef element = request.element();
            Drains.Isolation isolated = request.isSwitch() ? null : drains.isolation(element);
            if (!drains.contains(element) && isolated != null) {
                PortRef stored = drains.isolatedView().containsKey(element) ? element : isolated.peer();
                store(() -> drains.reinstate(stored));
                PortRef peer = stored.equals(element) ? isolated.peer() : element;
                milestones.record(Milestone.Kind.LINK_REINSTATED, "link " + stored + "-" + peer + " ("
                        + name(stored.guid()) + ") released by an operator: routed through again");
                managers.faults().reactions().operator("operator: released link " + stored);
                coordinator.maskChanged();
                return result("released", request, name(element.guid()), false, 0, null);
            }
            if (!drains.contains(element)) {
                throw new DrainException(DrainException.Kind.CONFLICT, Drains.describe(element) + " is not drained"
                        + (drains.view().isEmpty() ? " (nothing is)" : ": see GET /api/v1/drains"));
            }
            store(() -> drains.undrain(element));
            String name = name(element.guid());
            milestones.record(Milestone.Kind.UNDRAINED, Drains.describe(element) + " (" + name
                    + ") undrained by an operator: routed through again");
            managers.faults().reactions().operator("operator: undrained " + Drains.describe(element));
            // repaired like any return: the element takes back the routes a full routing gives it, also after a
            // restart or a failover, when the repairs' base is the stored routing computed without it
            coordinator.maskChanged();
            return result("undrained", request, name, false, 0, null);
        });
    }

    /** Control thread: the element is known and not drained yet; the end nodes it would cut off. */
    private Judged check(DrainRequest request) {
        PortRef element = request.element();
        if (drains.contains(element) || !request.isSwitch() && drains.isolation(element) != null) {
            throw new DrainException(DrainException.Kind.CONFLICT, Drains.describe(element) + " is drained already");
        }
        if (!request.isSwitch() && drains.isSwitchDrained(element.guid())) {
            throw new DrainException(DrainException.Kind.CONFLICT, "switch " + Guids.format(element.guid())
                    + " is drained already, with all its cables");
        }
        ActiveRouting active = managers.routing().active();
        Fabric fabric = active == null ? null : active.fabric();
        ManagedSwitch ms = managers.registry().get(element.guid());
        int ports = ms != null ? ms.ports().portCount()
                : fabric == null ? -1 : fabric.switchByGuid(element.guid()).map(FabricSwitch::ports).orElse(-1);
        if (ports < 0) {
            throw new DrainException(DrainException.Kind.UNKNOWN, "switch " + Guids.format(element.guid())
                    + " is neither connected nor in the fabric routed now");
        }
        if (element.port() > ports) {
            throw new DrainException(DrainException.Kind.UNKNOWN, "link " + element + ": switch "
                    + Guids.format(element.guid()) + " has ports 1.." + ports);
        }
        if (active == null && !request.force()) {
            throw new DrainException(DrainException.Kind.NOT_ROUTED, "the fabric has not been routed yet: a drain"
                    + " cannot be judged (wait for the first routing, or force it)");
        }
        if (!request.force() && rerouteDue()) {
            // the routing in force is about to be replaced (another drain's, an undrain's): judged against it, a drain
            // would not see that change (two uplinks drained at once, each judged alone; a cable just undrained
            // taken for one without a cable)
            throw new DrainException(DrainException.Kind.BUSY, "the fabric is being routed (state "
                    + coordinator.state() + "): ask again once it has converged");
        }
        return new Judged(active, fabric == null ? 0 : nodesCutOff(fabric, element), null);
    }

    /** End nodes whose only cable the element is or holds, in the fabric routed now. */
    static int nodesCutOff(Fabric fabric, PortRef element) {
        int cut = 0;
        for (Link l : fabric.links()) {
            boolean aSide = l.a() == element.guid() && (element.port() == 0 || l.aPort() == element.port());
            boolean bSide = l.b() == element.guid() && (element.port() == 0 || l.bPort() == element.port());
            if (aSide && fabric.isNode(l.b()) || bSide && fabric.isNode(l.a())) {
                cut++;
            }
        }
        return cut;
    }

    /** The what-if's verdict on a drain: refused (unless forced, which never asks) when it disconnects or cannot route. */
    private static Judged judge(String what, Judged judged, WhatIfResult result, Throwable error) {
        if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof WhatIfException w) {
                throw switch (w.kind()) {
                    case BUSY -> new DrainException(DrainException.Kind.BUSY, "a what-if is running: ask again when it"
                            + " has answered");
                    case NOT_ROUTED -> new DrainException(DrainException.Kind.NOT_ROUTED, w.getMessage());
                    case BAD_REQUEST -> new DrainException(DrainException.Kind.UNKNOWN, w.getMessage()
                            + " (a cable that is down can be drained with force, to keep it out once it is up)");
                    case REFUSED -> new DrainException(DrainException.Kind.CONFLICT, "draining " + what
                            + " would leave the fabric unroutable (" + w.getMessage() + "): refused; force to drain anyway");
                };
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        }
        if (judged.nodesCutOff() > 0 || !result.valid()) {
            throw new DrainException(DrainException.Kind.CONFLICT, "draining " + what + " would "
                    + (judged.nodesCutOff() > 0 ? "cut off " + judged.nodesCutOff() + " end node(s)" : "")
                    + (judged.nodesCutOff() > 0 && !result.valid() ? " and " : "")
                    + (result.valid() ? "" : "leave " + result.unreachableLeafPairs() + " leaf pair(s) unreachable")
                    + ": refused; force to drain anyway");
        }
        return new Judged(judged.active(), judged.nodesCutOff(), result);
    }

    /** Control thread: stores the drain, records it and re-routes around the element. */
    private DrainResult apply(DrainRequest request, Judged judged) {
        PortRef element = request.element();
        if (drains.contains(element)) {
            throw new DrainException(DrainException.Kind.CONFLICT, Drains.describe(element) + " is drained already");
        }
        if (!request.force() && (managers.routing().active() != judged.active() || rerouteDue())) {
            throw new DrainException(DrainException.Kind.BUSY, "the fabric changed while the drain was judged: ask"
                    + " again once it has converged");
        }
        store(() -> drains.drain(element, System.currentTimeMillis()));
        String name = name(element.guid());
        milestones.record(Milestone.Kind.DRAINED, Drains.describe(element) + " (" + name
                + ") drained by an operator: routed around until undrained"
                + (request.force() ? " (forced" + (judged.nodesCutOff() > 0 ? ": " + judged.nodesCutOff()
                + " end node(s) cut off)" : ")") : ""));
        managers.faults().reactions().operator("operator: drained " + Drains.describe(element));
        coordinator.maskChanged();
        return result("drained", request, name, request.force(), judged.nodesCutOff(), judged.whatIf());
    }

    /** Control thread: a routing is computing or due, so the routing in force is not the one the mask asks for. */
    private boolean rerouteDue() {
        return managers.routing().busy() || managers.routing().hasPrepared() || coordinator.state() == DaemonState.ROUTING;
    }

    private DrainResult result(String result, DrainRequest request, String name, boolean forced, int cut,
                               WhatIfResult whatIf) {
        ActiveRouting active = managers.routing().active();
        return new DrainResult(result, Drains.describe(request.element()), Guids.format(request.guid()),
                request.isSwitch() ? null : request.port(), name, active == null ? 0 : active.version(), forced, cut,
                whatIf);
    }

    private static void store(Runnable change) {
        try {
            change.run();
        } catch (StoreException e) {
            // the next manager would not know it: not done at all
            throw new IllegalStateException("not stored, nothing changed: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new DrainException(DrainException.Kind.CONFLICT, e.getMessage());
        }
    }

    private String name(long guid) {
        ManagedSwitch ms = managers.registry().get(guid);
        if (ms != null) {
            return ms.name();
        }
        ActiveRouting active = managers.routing().active();
        return active == null ? Guids.format(guid) : active.fabric().switchByGuid(guid).map(FabricSwitch::name)
                .orElse(Guids.format(guid));
    }
}
