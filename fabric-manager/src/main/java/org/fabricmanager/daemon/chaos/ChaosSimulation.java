package org.fabricmanager.daemon.chaos;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import org.fabricmanager.daemon.VirtualDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.VirtualTimeLoop;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.store.RoutingState;
import org.fabricmanager.daemon.store.RoutingStateStore;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/**
 * The whole daemon ({@link VirtualDaemon}) in one thread on one virtual clock: routing computations held until the
 * schedule lets each finish, simulated switches ({@link SimulatedSwitch}) whose acks arrive late or never as one seeded
 * {@link Random} says, and a {@link ChaosSchedule} of cables down and up, flaps, switches off and back, and drains and
 * undrains through the daemon's own actions, several at once or while a routing is under way. At every quiet point
 * (nothing pending, {@code CONVERGED}) and at the end, {@link ChaosOracle} judges the tables the switches hold; once
 * everything is back they must be the full routing of the intact fabric. A violation is a {@link ChaosViolation} with
 * the seed, the schedule and every step taken.
 */
public final class ChaosSimulation implements AutoCloseable {
    /**
     * What a simulation runs: a fabric, a seed (of the generated schedule and of the hardware's timing: acks lost or
     * late, reports a few ms apart) and a number of steps to generate.
     */
    public record Plan(PgftSpec spec, long seed, int steps) {
    }

    private final Plan plan;
    private final Sabotage sabotage;
    private final Random random;
    private final VirtualTimeLoop loop = new VirtualTimeLoop();
    /** Routing computations submitted to the routing service, run one at a time, in order, when the schedule says. */
    private final ConcurrentLinkedQueue<Runnable> computations = new ConcurrentLinkedQueue<>();
    /** The configuration file: the simulation's, then as the last reload read it (a restart reads it too). */
    private DaemonConfig config;
    /** The configuration the simulation started with, which a reload's variants change. */
    private final DaemonConfig base;
    /** The state directories of the active manager and its standby. */
    private final StandbyPair members;
    /** The daemon running; a new one after each restart, on the same state directory. */
    private VirtualDaemon daemon;
    private int restarts;
    private final OperatorActions operators;
    private final ScheduleSteps stepper;
    private final QuietPointChecks checks;
    /** Judges what each loss changed, quiet point after quiet point. */
    private final LossChurn churn;
    /** What the daemon's CONVERGED said that was not true yet, found as it said it. */
    private ChaosViolation saidConvergedEarly;
    private final Fabric intact;
    private final ChaosOracle oracle;
    /** New instances of the engine the daemon routes with: the end's check routes the intact fabric in full with one. */
    private final Supplier<RoutingEngine> engines;
    private final SimulatedFabric fabric;
    private final List<String> steps = new ArrayList<>();
    /** The schedule under way, for a violation's report. */
    private ChaosSchedule schedule;
    private int quietPoints;
    /** How often each kind of event happened, to show a campaign exercised it. */
    private final Map<String, Integer> tally = new TreeMap<>();

    /** A simulation of {@code plan} with its state directory {@code stateDirectory} (empty), nothing planted. */
    public ChaosSimulation(Plan plan, Path stateDirectory) {
        this(plan, stateDirectory, Sabotage.NONE);
    }

    /** A simulation of {@code plan} with {@code sabotage} planted, to show the oracle catches it. */
    public ChaosSimulation(Plan plan, Path stateDirectory, Sabotage sabotage) {
        this.plan = plan;
        this.sabotage = sabotage;
        this.random = new Random(~plan.seed());
        this.intact = PgftGenerator.generate(plan.spec());
        this.oracle = new ChaosOracle(intact);
        members = new StandbyPair(stateDirectory);
        base = config(members.active(), plan.spec());
        config = base;
        Supplier<RoutingEngine> real = () -> RoutingEngines.create(config.routing().engine(), 1);
        engines = sabotage.engines(real);
        fabric = new SimulatedFabric(intact, oracle, loop, random, steps, config.southbound().echoIntervalMs(),
                config.southbound().idleTimeoutMs());
        checks = new QuietPointChecks(intact, oracle, fabric);
        churn = new LossChurn(oracle, fabric::name);
        operators = new OperatorActions(loop, computations, fabric, () -> daemon, steps, this::count);
        stepper = new ScheduleSteps(intact, oracle.cables(), fabric, operators, new ScheduleSteps.Runner() {
            @Override
            public void pass(long ms, long computeAt) {
                ChaosSimulation.this.pass(ms, computeAt);
            }

            @Override
            public void check() {
                settleAndCheck();
            }

            @Override
            public void crash(boolean takeover) {
                ChaosSimulation.this.crash(takeover);
            }

            @Override
            public void judge(Runnable action) {
                ChaosSimulation.this.judge(action);
            }

            @Override
            public void reload(int variant) {
                // each member's file names its own state directory
                DaemonConfig read = ChaosReloads.variant(base.withStateDirectory(members.active()), variant);
                judge(() -> config = operators.reload(config, read, variant));
            }

            @Override
            public void log(String line) {
                steps.add("t=" + loop.nowMs() + " " + line);
            }

            @Override
            public void count(String what) {
                ChaosSimulation.this.count(what);
            }
        });
        daemon = newDaemon(0);
        fabric.connect(daemon.southbound());
    }

    /**
     * The daemon's configuration in a simulation: its defaults, the expected PGFT, discovery settling in 300 ms, acks
     * awaited 2 s and retried 3 times; no failure detector, as the simulated agents run no ring member.
     */
    static DaemonConfig config(Path state, PgftSpec expected) {
        return DaemonConfig.defaults().withDetector(false).withPorts(0, 0).withStateDirectory(state)
                .withExpectedPgft(expected).withDiscovery(300, 10_000).withPush(2_000, 3);
    }

    /** The schedule the plan's seed generates, of its number of steps, on its fabric. */
    public ChaosSchedule generated() {
        return ChaosSchedule.generate(plan.seed(), plan.steps(), oracle.cables(),
                intact.switches().stream().map(s -> s.guid()).toList());
    }

    /** Runs the plan's generated schedule. */
    public void run() {
        run(generated());
    }

    /**
     * Runs {@code schedule}: every switch connects, its steps, a check at every quiet point it asks for, then all back
     * and the end's checks; a {@link ChaosViolation} names what went wrong.
     */
    public void run(ChaosSchedule schedule) {
        this.schedule = schedule;
        try {
            runChecked(schedule);
        } catch (ChaosViolation v) {
            throw v;
        } catch (RuntimeException e) {
            throw violation(ChaosViolation.Kind.DAEMON_ERROR, "the daemon threw " + e, e);
        }
    }

    private void runChecked(ChaosSchedule schedule) {
        for (var s : intact.switches()) {
            fabric.powerOn(s.guid(), false);
        }
        String planted = sabotage.switchesOn(fabric.on(), random);
        if (planted != null) {
            steps.add("planted: " + planted);
        }
        settleAndCheck();
        boolean passed = true;
        for (ChaosStep step : schedule.steps()) {
            if (!computations.isEmpty()) {
                count("steps while a routing was under way");
            }
            boolean event = !(step instanceof ChaosStep.Pass) && !(step instanceof ChaosStep.Check);
            if (event && !passed && step instanceof ChaosStep.CableDown) {
                count("several at once");
            }
            churn.step(step, stepper.take(step));
            passed = !event;
            judge(operators::answersJudged);
            judgeIfQuiet();
        }
        restoreAll();
        settleAndCheck();
        // the cables quarantined for their flaps come back once stable long enough: everything is back only then
        long releaseBy = loop.nowMs() + 3 * 3_600_000L;
        while (!daemon.quarantined().isEmpty()) {
            if (loop.nowMs() > releaseBy) {
                throw violation(ChaosViolation.Kind.QUARANTINE_KEPT, "quarantines not released 3 h after every cable "
                        + "came back: " + daemon.quarantined(), null);
            }
            pass(10_000, -1);
        }
        settleAndCheck();
        judge(operators::answersJudged);
        judge(() -> checks.intact(daemon, engines, "once everything came back (" + loop.nowMs() + " ms)"));
        // past the refinement of repairs and the quiet rebalance, which change the tables by themselves
        pass(3_600_000, -1);
        settleAndCheck();
        judge(() -> checks.intact(daemon, engines, "an hour later"));
    }

    public int quietPoints() {
        return quietPoints;
    }

    /** Commits whose ack was lost or came too late: the daemon saw a timeout. */
    public int acksTimedOut() {
        return fabric.acksTimedOut();
    }

    public List<String> steps() {
        return List.copyOf(steps);
    }

    /** How often each kind of event happened: steps while a routing was under way, drains applied or refused... */
    public Map<String, Integer> tally() {
        Map<String, Integer> all = new TreeMap<>(tally);
        all.put("acks timed out", fabric.acksTimedOut());
        all.put("quiet points", quietPoints);
        all.putAll(churn.tally());
        return all;
    }

    private void count(String what) {
        tally.merge(what, 1, Integer::sum);
    }

    /** Lets {@code ms} of virtual time pass; the computation under way, if any, finishes {@code computeAt} ms in. */
    private void pass(long ms, long computeAt) {
        if (computeAt < 0) {
            loop.advance(ms);
            return;
        }
        loop.advance(computeAt);
        runOneComputation();
        loop.advance(ms - computeAt);
    }

    private void runOneComputation() {
        Runnable c = computations.poll();
        if (c != null) {
            c.run();
        }
        loop.runPending();
    }

    /** Runs until a quiet point (no event of the simulation pending, nothing computing, CONVERGED) and checks it. */
    private void settleAndCheck() {
        long limit = loop.nowMs() + 900_000;
        while (!quiet()) {
            if (loop.nowMs() > limit) {
                throw violation(ChaosViolation.Kind.NO_QUIET_POINT, "no quiet point within 900 s of virtual time: the "
                        + "daemon is " + daemon.state() + ", " + computations.size() + " computations waiting", null);
            }
            while (!computations.isEmpty()) {
                runOneComputation();
            }
            loop.advance(250);
        }
        quietPoints++;
        judge(() -> {
            checks.tablesAsSaid(daemon, "CONVERGED");
            LossChurn.Held held = checks.routes(daemon, operators.unusable(oracle.cables()),
                    operators.switchesDrained());
            checks.status(daemon, operators.drained(), operators.switchesDrained());
            churn.quietPoint(held, daemon.status().routing().refinePending());
        });
    }

    /**
     * Judges the routes and what the losses changed when the daemon happens to be quiet between two steps, without
     * running anything: the schedule's timeline is the same as without the look, and a chain of losses is judged
     * between the returns that end it, not only at the checks the schedule asks for.
     */
    private void judgeIfQuiet() {
        if (loop.hasPending() || fabric.pending() != 0 || !computations.isEmpty() || daemon.routingBusy()
                || daemon.state() != DaemonState.CONVERGED || saidConvergedEarly != null) {
            return;
        }
        count("quiet between steps");
        judge(() -> churn.quietPoint(checks.routes(daemon, operators.unusable(oracle.cables()), operators.switchesDrained()),
                daemon.status().routing().refinePending()));
    }

    /** Runs {@code check}; a violation it finds is completed with the seed, the schedule and what happened. */
    private void judge(Runnable check) {
        try {
            check.run();
        } catch (ChaosViolation v) {
            throw violation(v.kind(), v.getMessage(), v.getCause());
        }
    }

    private boolean quiet() {
        loop.runPending();
        if (saidConvergedEarly != null) {
            ChaosViolation v = saidConvergedEarly;
            throw violation(v.kind(), v.getMessage(), null);
        }
        return fabric.pending() == 0 && computations.isEmpty() && !daemon.routingBusy()
                && daemon.state() == DaemonState.CONVERGED;
    }

    /** The daemon says CONVERGED: every switch on must hold what it says, now, not once the wire has caught up. */
    private void heard(Milestone m) {
        if (m.kind() == Milestone.Kind.CONVERGED && saidConvergedEarly == null && daemon != null) {
            try {
                checks.tablesAsSaidWhenConverged(daemon, "the daemon said CONVERGED (" + m.message() + ")");
            } catch (ChaosViolation v) {
                saidConvergedEarly = v;
            }
        }
    }

    /**
     * The daemon crashes (its queued events, computations and sessions die with it) and a new one starts on the same
     * state directory, or with {@code takeover} the standby's manager starts on the copy its member holds: it must
     * have the drains and quarantines its predecessor had, before any switch reconnects; then every switch on
     * reconnects holding its table (an agent that hangs reconnects once it answers again).
     */
    private void crash(boolean takeover) {
        steps.add("t=" + loop.nowMs() + (takeover ? " failover: the active manager crashed, the standby takes over "
                + "from its copy of the state" : " daemon restart: crashed, started again on its state directory"));
        count(takeover ? "failovers" : "daemon restarts");
        Set<Integer> quarantined = checks.quarantines(daemon);
        long inForce = daemon.active() == null ? -1 : daemon.active().version();
        daemon.close();
        daemon = null;
        computations.clear();
        loop.clear();
        if (takeover) {
            members.takeOver();
            config = config.withStateDirectory(members.active());
        }
        long stored = storedVersion();
        churn.restarted(stored == inForce);
        daemon = newDaemon(++restarts);
        if (inForce >= 0 && stored >= 0 && stored != inForce) {
            // every routing installed is written at once (as its changes since the stored one), but a fabric's first
            // (computed again the same); with none in force yet, the stored routing waits to be reused
            judge(() -> {
                throw new ChaosViolation(ChaosViolation.Kind.STATE_LOST, "the routing in force was v" + inForce
                        + ", the state directory holds v" + stored, null);
            });
        }
        judge(() -> checks.roundTrip(daemon, operators.drained(), operators.switchesDrained(), quarantined));
        fabric.daemonRestarted(daemon.southbound());
    }

    /** The version of the routing written in the state directory, -1 when none can be read. */
    private long storedVersion() {
        try {
            return new RoutingStateStore(config.state().path()).load().map(RoutingState::version).orElse(-1L);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private VirtualDaemon newDaemon(int run) {
        RoutingService routing = new RoutingService(engines.get(), config.routing().repairs(), computations::add);
        return new VirtualDaemon(config, loop, routing, plan.seed() + run, sabotage.files(members.files()),
                this::heard);
    }

    private void restoreAll() {
        steps.add("t=" + loop.nowMs() + " all back:");
        churn.notALoss();
        for (long guid : List.copyOf(fabric.hung())) {
            fabric.agentResumes(guid);
        }
        for (var s : intact.switches()) {
            if (!fabric.powered(s.guid())) {
                fabric.powerOn(s.guid(), true);
            }
        }
        for (Link c : List.copyOf(fabric.cablesDown())) {
            fabric.cableUp(c);
        }
        judge(() -> {
            for (Link c : List.copyOf(operators.drained())) {
                operators.undrain(c);
            }
            for (long guid : List.copyOf(operators.switchesDrained())) {
                operators.undrainSwitch(guid);
            }
        });
    }

    private ChaosViolation violation(ChaosViolation.Kind kind, String what, Throwable cause) {
        StringBuilder sb = new StringBuilder("chaos: ").append(what).append("\n  seed ").append(plan.seed())
                .append(", ").append(plan.spec()).append(sabotage == Sabotage.NONE ? "" : ", planted " + sabotage).append(", virtual time ")
                .append(loop.nowMs()).append(" ms; the schedule: ").append(schedule == null ? "" : schedule.text())
                .append("\n  what happened:");
        for (int i = 0; i < steps.size(); i++) {
            sb.append("\n  ").append(i + 1).append(". ").append(steps.get(i));
        }
        List<Milestone> told = daemon.milestones();
        sb.append("\n  the daemon's last milestones:");
        for (var m : told.subList(Math.max(0, told.size() - 12), told.size())) {
            sb.append("\n    ").append(m.kind()).append(": ").append(m.message());
        }
        return new ChaosViolation(kind, sb.toString(), cause);
    }

    @Override
    public void close() {
        daemon.close();
    }
}
