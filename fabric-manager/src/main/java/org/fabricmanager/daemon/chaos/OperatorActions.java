package org.fabricmanager.daemon.chaos;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.fabricmanager.daemon.VirtualDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.RebalanceResult;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.VirtualTimeLoop;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/**
 * What an operator asks the daemon in a {@link ChaosSimulation}, through its own actions: drains and undrains of
 * cables and switches, what-ifs, configuration reloads, rebalances. Keeps what the operator drained (the oracle's
 * model). A what-if, a refused drain or rebalance and a reload must leave everything as it was: taken while no routing
 * was under way, the routing in force, the state, the status and what every switch holds are compared before and
 * after ({@code ACTION_CHANGED}).
 */
final class OperatorActions {
    private final VirtualTimeLoop loop;
    private final Queue<Runnable> computations;
    private final SimulatedFabric fabric;
    private final Supplier<VirtualDaemon> daemon;
    private final List<String> steps;
    private final Consumer<String> count;
    private final Set<Link> drained = new LinkedHashSet<>();
    private final Set<Long> switchesDrained = new LinkedHashSet<>();
    /** What was wrong with a request answered after its step, thrown at the next {@link #answersJudged}. */
    private ChaosViolation answerWrong;

    OperatorActions(VirtualTimeLoop loop, Queue<Runnable> computations, SimulatedFabric fabric,
                    Supplier<VirtualDaemon> daemon, List<String> steps, Consumer<String> count) {
        this.loop = loop;
        this.computations = computations;
        this.fabric = fabric;
        this.daemon = daemon;
        this.steps = steps;
        this.count = count;
    }

    /** The cables drained by the operator (not those of a drained switch). */
    Set<Link> drained() {
        return Collections.unmodifiableSet(drained);
    }

    /** The switches drained by the operator, by GUID. */
    Set<Long> switchesDrained() {
        return Collections.unmodifiableSet(switchesDrained);
    }

    /** The cables that carry no traffic by the operator's will: drained, or of a drained switch. */
    Set<Link> unusable(List<Link> cables) {
        Set<Link> out = new LinkedHashSet<>(drained);
        for (Link c : cables) {
            if (switchesDrained.contains(c.a()) || switchesDrained.contains(c.b())) {
                out.add(c);
            }
        }
        return out;
    }

    void drain(Link c) {
        String outcome = judgedUnchangedIfRefused(() -> daemon.get().drain(new DrainRequest(c.a(), c.aPort(), false)),
                "a refused drain of " + fabric.describe(c));
        if (outcome == null) {
            drained.add(c);
        }
        count.accept(outcome == null ? "drains applied" : "drains refused");
        steps.add("t=" + loop.nowMs() + " drain " + fabric.describe(c) + (outcome == null ? "" : ": " + outcome));
    }

    void undrain(Link c) {
        undrain(new DrainRequest(c.a(), c.aPort(), false), fabric.describe(c));
        drained.remove(c);
    }

    void drainSwitch(long guid) {
        String outcome = judgedUnchangedIfRefused(() -> daemon.get().drain(new DrainRequest(guid, 0, false)),
                "a refused drain of " + fabric.name(guid));
        if (outcome == null) {
            switchesDrained.add(guid);
        }
        count.accept(outcome == null ? "switch drains applied" : "switch drains refused");
        steps.add("t=" + loop.nowMs() + " drain switch " + fabric.name(guid) + (outcome == null ? "" : ": " + outcome));
    }

    void undrainSwitch(long guid) {
        undrain(new DrainRequest(guid, 0, false), "switch " + fabric.name(guid));
        switchesDrained.remove(guid);
    }

    private void undrain(DrainRequest request, String what) {
        Throwable refused = await(daemon.get().undrain(request));
        if (refused != null) {
            throw new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, "undrain of " + what + " refused: "
                    + refused.getMessage(), refused);
        }
        steps.add("t=" + loop.nowMs() + " undrain " + what);
    }

    /** A drain judged by the daemon; {@code null} when applied, else why refused, which must have changed nothing. */
    private String judgedUnchangedIfRefused(Supplier<CompletableFuture<?>> drain, String what) {
        Snapshot before = snapshot();
        Throwable refused = await(drain.get());
        if (refused == null) {
            return null;
        }
        unchanged(before, what);
        return "refused: " + refused.getMessage();
    }

    /** An operator's what-if of a switch's or a cable's failure: answered or refused, it changes nothing. */
    void whatIf(long sw, Link cable) {
        WhatIfRequest request = cable == null ? new WhatIfRequest(List.of(sw), List.of())
                : new WhatIfRequest(List.of(), List.of(new PortRef(cable.a(), cable.aPort())));
        String what = cable == null ? "switch " + fabric.name(sw) : "cable " + fabric.describe(cable);
        Snapshot before = snapshot();
        Throwable refused = await(daemon.get().whatIf(request));
        if (refused != null && !(refused instanceof WhatIfException) && !(refused instanceof RoutingException)) {
            throw new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, "the what-if of " + what + " failed: "
                    + refused, refused);
        }
        unchanged(before, "a what-if of " + what);
        count.accept(refused == null ? "what-ifs answered" : "what-ifs refused");
        steps.add("t=" + loop.nowMs() + " what-if " + what + (refused == null ? "" : ": refused: "
                + refused.getMessage()));
    }

    /**
     * An operator's rebalance: refused at once while the fabric changes (a routing under way or due), which must
     * change nothing; else answered once its routing is installed, virtual time later, when it must be a full routing,
     * not a repair ({@link #rebalanceAnswered}). The schedule goes on meanwhile, as an operator's shell would. False
     * when refused.
     */
    boolean rebalance() {
        Snapshot before = snapshot();
        CompletableFuture<RebalanceResult> asked = daemon.get().rebalance();
        loop.runPending();
        if (!asked.isDone()) {
            steps.add("t=" + loop.nowMs() + " rebalance asked");
            asked.whenComplete(this::rebalanceAnswered);
            return true;
        }
        Throwable refused = await(asked);
        if (refused != null) {
            if (!(unwrapped(refused) instanceof WhatIfException)) {
                throw new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, "a rebalance failed: " + refused, refused);
            }
            unchanged(before, "a refused rebalance");
            count.accept("rebalances refused");
            steps.add("t=" + loop.nowMs() + " rebalance: refused: " + unwrapped(refused).getMessage());
            return false;
        }
        rebalanceAnswered(asked.join(), null);
        return true;
    }

    private void rebalanceAnswered(RebalanceResult result, Throwable failed) {
        if (failed != null) {
            answerWrong = new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, "a rebalance failed: "
                    + unwrapped(failed), failed);
            return;
        }
        ActiveRouting active = daemon.get().active();
        if (active != null && active.version() == result.routingVersion() && active.repaired()) {
            answerWrong = new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, "the rebalance answered v"
                    + result.routingVersion() + ", which is a repair, not a full routing", null);
            return;
        }
        count.accept("rebalances applied");
        steps.add("t=" + loop.nowMs() + " rebalance: v" + result.previousVersion() + " -> v" + result.routingVersion()
                + ", " + result.changedEntries() + " entries changed");
    }

    /** Throws what was wrong with an operator's request answered since the last call (its answer came later). */
    void answersJudged() {
        ChaosViolation wrong = answerWrong;
        answerWrong = null;
        if (wrong != null) {
            throw wrong;
        }
    }

    private static Throwable unwrapped(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /**
     * The configuration read again while {@code running} is in force: the reload must say what differs (judged by
     * {@link ChaosReloads#wrong}), apply it at run time and change nothing else at once; returns what is in force.
     */
    DaemonConfig reload(DaemonConfig running, DaemonConfig read, int variant) {
        Snapshot before = snapshot();
        CompletableFuture<ConfigReload> reload = daemon.get().reload(read);
        Throwable failed = await(reload);
        if (failed != null) {
            throw new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, "a reload of a valid configuration failed: "
                    + failed, failed);
        }
        ConfigReload plan = reload.join();
        String wrong = ChaosReloads.wrong(running, read, plan);
        if (wrong != null) {
            throw new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, wrong, null);
        }
        unchanged(before, "a reload");
        count.accept("reloads");
        steps.add("t=" + loop.nowMs() + " reload of variant " + variant + ": changed " + plan.changed());
        return plan.effective();
    }

    /**
     * Waits for an operator's request, running the control loop and the computations it needs meanwhile (a what-if,
     * and the one that judges a drain, runs on a thread of the daemon's own); {@code null} when it succeeded, else
     * why not.
     */
    Throwable await(CompletableFuture<?> request) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!request.isDone()) {
            loop.runPending();
            Runnable c = computations.poll();
            if (c != null) {
                c.run();
            } else if (System.nanoTime() > deadline) {
                throw new ChaosViolation(ChaosViolation.Kind.REQUEST_FAILED, "an operator's request still unanswered "
                        + "after 30 s", null);
            } else {
                LockSupport.parkNanos(100_000);
            }
        }
        loop.runPending();
        try {
            request.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * What an action that must change nothing is compared on; {@code null} while a routing is under way, which the
     * wait for the action's answer may finish (the daemon's computations run one after another). Reports and acks on
     * their way wait: no virtual time passes during the wait.
     */
    private Snapshot snapshot() {
        VirtualDaemon d = daemon.get();
        if (!computations.isEmpty() || d.routingBusy() || loop.hasPending()) {
            return null;
        }
        Map<Long, Integer> held = new TreeMap<>();
        fabric.on().forEach((guid, sw) -> held.put(guid, Arrays.hashCode(sw.entries())));
        Views.Status s = d.status();
        return new Snapshot(d.active() == null ? -1 : d.active().version(), d.state(), held, List.of(s.switches(),
                s.nodes(), s.routing(), s.tables(), s.drained(), d.quarantined()));
    }

    private void unchanged(Snapshot before, String what) {
        if (before == null) {
            count.accept("actions judged during other work");
            return;
        }
        Snapshot after = snapshot();
        if (!before.equals(after)) {
            Set<Long> differ = new HashSet<>();
            before.held().forEach((g, h) -> {
                if (after == null || !h.equals(after.held().get(g))) {
                    differ.add(g);
                }
            });
            throw new ChaosViolation(ChaosViolation.Kind.ACTION_CHANGED, what + " changed what it must not: before "
                    + before.brief() + ", after " + (after == null ? "work under way" : after.brief())
                    + (differ.isEmpty() ? "" : "; tables changed on " + differ.stream().map(fabric::name).toList()),
                    null);
        }
        count.accept("actions judged unchanged");
    }

    /** The routing in force, the state, what each switch holds (a hash per GUID), the status's figures. */
    private record Snapshot(long version, DaemonState state, Map<Long, Integer> held, List<Object> status) {
        String brief() {
            return "v" + version + " " + state + " " + status;
        }
    }
}
