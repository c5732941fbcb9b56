package org.fabricmanager.daemon.chaos;

import java.util.List;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;

/**
 * Takes the steps of a {@link ChaosSchedule} in a {@link ChaosSimulation}: each on the simulated hardware ({@link
 * SimulatedFabric}), as an operator's action ({@link OperatorActions}) or on the daemon and the clock ({@link Runner}),
 * or, when it no longer applies (a shrunk schedule dropped what it needed, the daemon refused a drain), logged as
 * skipped: so every subsequence of a schedule is a schedule.
 */
final class ScheduleSteps {
    /** What a step does to the daemon and the clock, and where it is told. */
    interface Runner {
        /** {@code ms} of virtual time pass; the computation under way, if any, finishes {@code computeAt} ms in. */
        void pass(long ms, long computeAt);

        /** Runs to the next quiet point and judges it. */
        void check();

        /** The daemon crashes and starts again, or with {@code takeover} its standby takes over. */
        void crash(boolean takeover);

        /** Runs {@code action}, a violation it throws completed with what happened. */
        void judge(Runnable action);

        /** The daemon reads its configuration again, as {@link ChaosReloads} variant {@code variant}. */
        void reload(int variant);

        /** A line of what happened, at the virtual time it happened. */
        void log(String line);

        /** One more of {@code what} happened. */
        void count(String what);
    }

    private final Fabric intact;
    private final List<Link> cables;
    private final SimulatedFabric fabric;
    private final OperatorActions operators;
    private final Runner runner;

    ScheduleSteps(Fabric intact, List<Link> cables, SimulatedFabric fabric, OperatorActions operators, Runner runner) {
        this.intact = intact;
        this.cables = cables;
        this.fabric = fabric;
        this.operators = operators;
        this.runner = runner;
    }

    /**
     * Takes one step, or logs why it no longer applies (a shrunk schedule dropped what it needed); false when it changed
     * nothing: it no longer applied, or the daemon refused the drain or the rebalance it asked.
     */
    boolean take(ChaosStep step) {
        if (step instanceof ChaosStep.Pass p) {
            runner.pass(p.ms(), p.computeAt());
        } else if (step instanceof ChaosStep.Check) {
            runner.check();
        } else if (step instanceof ChaosStep.Restart) {
            runner.crash(false);
        } else if (step instanceof ChaosStep.Failover) {
            runner.crash(true);
        } else if (step instanceof ChaosStep.AgentRestart a && fabric.on().containsKey(guidOf(a.sw()))) {
            fabric.agentRestarted(guidOf(a.sw()));
            runner.count("agent restarts");
        } else if (step instanceof ChaosStep.CableDown d && usable(cables.get(d.cable()))) {
            fabric.cableDown(cables.get(d.cable()));
        } else if (step instanceof ChaosStep.CableUp u && fabric.cablesDown().contains(cables.get(u.cable()))
                && endsOn(cables.get(u.cable()))) {
            fabric.cableUp(cables.get(u.cable()));
        } else if (step instanceof ChaosStep.Flap f && usable(cables.get(f.cable()))) {
            Link c = cables.get(f.cable());
            fabric.cableDown(c);
            runner.pass(f.downMs(), -1);
            fabric.cableUp(c);
            runner.count("flaps");
        } else if (step instanceof ChaosStep.PowerOff o && fabric.on().size() > 1
                && fabric.on().containsKey(guidOf(o.sw()))) {
            fabric.powerOff(guidOf(o.sw()));
            runner.count("switches powered off");
        } else if (step instanceof ChaosStep.PowerOn o && !fabric.powered(guidOf(o.sw()))) {
            fabric.powerOn(guidOf(o.sw()), true);
        } else if (step instanceof ChaosStep.Drain d && usable(cables.get(d.cable()))) {
            runner.judge(() -> operators.drain(cables.get(d.cable())));
            return operators.drained().contains(cables.get(d.cable()));
        } else if (step instanceof ChaosStep.Undrain u && operators.drained().contains(cables.get(u.cable()))) {
            runner.judge(() -> operators.undrain(cables.get(u.cable())));
        } else if (step instanceof ChaosStep.SwitchDrain d && fabric.on().containsKey(guidOf(d.sw()))
                && !operators.switchesDrained().contains(guidOf(d.sw()))) {
            runner.judge(() -> operators.drainSwitch(guidOf(d.sw())));
            return operators.switchesDrained().contains(guidOf(d.sw()));
        } else if (step instanceof ChaosStep.Rebalance) {
            boolean[] asked = new boolean[1];
            runner.judge(() -> asked[0] = operators.rebalance());
            return asked[0];
        } else if (!takeAnother(step)) {
            runner.log(step.token() + " skipped: it no longer applies");
            return false;
        }
        return true;
    }

    /** The steps of the agents that hang and the operator's actions but drains; false when {@code step} does not apply. */
    private boolean takeAnother(ChaosStep step) {
        if (step instanceof ChaosStep.AgentHangs h && fabric.on().containsKey(guidOf(h.sw()))
                && fabric.on().size() > 1 && fabric.hung().size() < ChaosSchedule.MOST_HUNG) {
            fabric.agentHangs(guidOf(h.sw()));
            runner.count("agents hung");
        } else if (step instanceof ChaosStep.AgentResumes r && fabric.hung().contains(guidOf(r.sw()))) {
            fabric.agentResumes(guidOf(r.sw()));
        } else if (step instanceof ChaosStep.SwitchUndrain u && operators.switchesDrained().contains(guidOf(u.sw()))) {
            runner.judge(() -> operators.undrainSwitch(guidOf(u.sw())));
        } else if (step instanceof ChaosStep.WhatIf w && w.index() >= 0
                && w.index() < (w.sw() ? intact.switches().size() : cables.size())) {
            runner.judge(() -> operators.whatIf(w.sw() ? guidOf(w.index()) : 0, w.sw() ? null : cables.get(w.index())));
        } else if (step instanceof ChaosStep.Reload r && r.variant() >= 0 && r.variant() < ChaosReloads.VARIANTS) {
            runner.reload(r.variant());
        } else {
            return false;
        }
        return true;
    }

    private long guidOf(int sw) {
        return intact.switches().get(sw).guid();
    }

    private boolean endsOn(Link c) {
        return fabric.on().containsKey(c.a()) && fabric.on().containsKey(c.b());
    }

    private boolean usable(Link c) {
        return fabric.physicallyUp(c) && !operators.drained().contains(c);
    }
}
