package org.fabricmanager.daemon.chaos;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.fabricmanager.topology.Link;

/**
 * A chaos schedule: the list of {@link ChaosStep}s a simulation takes, generated from a seed ({@link #generate}) or read
 * back from its text ({@link #parse}). The generator keeps its own model of the fabric (switches off, cables down,
 * cables drained) so that it picks steps that apply; a step that no longer applies when it runs (a shrunk schedule
 * dropped what it needed, the daemon refused a drain) is skipped by the simulation.
 */
public record ChaosSchedule(List<ChaosStep> steps) {
    /** The kinds of event drawn, in hundredths of the faults' share (100: the faults, drains and restarts). */
    private static final int ALL_KINDS = 121;
    /**
     * Agents hung at once, at most: three lost within a keepalive period with no port down towards them is a
     * management-network outage, whose switches the daemon keeps in the routing (a schedule of its own to judge).
     */
    static final int MOST_HUNG = 2;

    public ChaosSchedule {
        steps = List.copyOf(steps);
    }

    /**
     * {@code count} events drawn from {@code seed} on a fabric with {@code cables} (between switches, in the oracle's
     * order) and {@code switches} (in the fabric's order), each followed by time passing (mostly) and a check (often).
     */
    public static ChaosSchedule generate(long seed, int count, List<Link> cables, List<Long> switches) {
        Random random = new Random(seed);
        Set<Long> off = new TreeSet<>();
        Set<Integer> down = new LinkedHashSet<>();
        Set<Integer> drained = new LinkedHashSet<>();
        Set<Integer> hung = new LinkedHashSet<>();
        Set<Integer> switchesDrained = new LinkedHashSet<>();
        List<ChaosStep> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<Integer> usable = new ArrayList<>();
            List<Integer> plugBack = new ArrayList<>();
            for (int c = 0; c < cables.size(); c++) {
                boolean endsOn = answering(cables.get(c), off, hung, switches);
                if (endsOn && !down.contains(c) && !drained.contains(c)) {
                    usable.add(c);
                } else if (endsOn && down.contains(c)) {
                    plugBack.add(c);
                }
            }
            List<Integer> on = new ArrayList<>();
            List<Integer> offIndexes = new ArrayList<>();
            for (int s = 0; s < switches.size(); s++) {
                if (!hung.contains(s)) {
                    (off.contains(switches.get(s)) ? offIndexes : on).add(s);
                }
            }
            int kind = random.nextInt(ALL_KINDS);
            if (kind < 25 && !usable.isEmpty()) {
                int c = pick(random, usable);
                down.add(c);
                steps.add(new ChaosStep.CableDown(c));
            } else if (kind < 40 && !plugBack.isEmpty()) {
                int c = pick(random, plugBack);
                down.remove(c);
                steps.add(new ChaosStep.CableUp(c));
            } else if (kind < 55 && !usable.isEmpty()) {
                steps.add(new ChaosStep.Flap(pick(random, usable), random.nextInt(600)));
            } else if (kind < 65 && on.size() > 1) {
                int s = pick(random, on);
                off.add(switches.get(s));
                steps.add(new ChaosStep.PowerOff(s));
            } else if (kind < 75 && !offIndexes.isEmpty()) {
                int s = pick(random, offIndexes);
                off.remove(switches.get(s));
                steps.add(new ChaosStep.PowerOn(s));
            } else if (kind < 88 && !usable.isEmpty()) {
                int c = pick(random, usable);
                drained.add(c);
                steps.add(new ChaosStep.Drain(c));
            } else if (kind < 92 && !drained.isEmpty()) {
                int c = pick(random, new ArrayList<>(drained));
                drained.remove(c);
                steps.add(new ChaosStep.Undrain(c));
            } else if (kind >= 92 && kind < 94 && !on.isEmpty()) {
                steps.add(new ChaosStep.AgentRestart(pick(random, on)));
            } else if (kind >= 94 && kind < 97) {
                steps.add(new ChaosStep.Restart());
            } else if (kind >= 100 && kind < 103 && hung.size() < MOST_HUNG && on.size() > 1) {
                int s = pick(random, on);
                hung.add(s);
                steps.add(new ChaosStep.AgentHangs(s));
            } else if (kind >= 103 && kind < 106 && !hung.isEmpty()) {
                int s = pick(random, new ArrayList<>(hung));
                hung.remove(s);
                steps.add(new ChaosStep.AgentResumes(s));
            } else if (kind >= 106 && kind < 109 && !on.isEmpty()) {
                int s = pick(random, on);
                switchesDrained.add(s); // the daemon may refuse it (a leaf's end nodes): the simulation knows
                steps.add(new ChaosStep.SwitchDrain(s));
            } else if (kind >= 109 && kind < 111 && !switchesDrained.isEmpty()) {
                int s = pick(random, new ArrayList<>(switchesDrained));
                switchesDrained.remove(s);
                steps.add(new ChaosStep.SwitchUndrain(s));
            } else if (kind >= 111 && kind < 114 && !on.isEmpty()) {
                boolean sw = random.nextBoolean();
                steps.add(new ChaosStep.WhatIf(sw, sw ? pick(random, on) : random.nextInt(cables.size())));
            } else if (kind >= 114 && kind < 116) {
                steps.add(new ChaosStep.Reload(random.nextInt(ChaosReloads.VARIANTS)));
            } else if (kind >= 116 && kind < 118) {
                steps.add(new ChaosStep.Failover());
            } else if (kind >= 118) {
                steps.add(new ChaosStep.Rebalance());
            } else {
                // several cables at once: no time passes between them
                int n = 2 + random.nextInt(3);
                for (int k = 0; k < n && !usable.isEmpty(); k++) {
                    int c = usable.remove(random.nextInt(usable.size()));
                    down.add(c);
                    steps.add(new ChaosStep.CableDown(c));
                }
            }
            if (random.nextInt(4) != 0) {
                int ms = random.nextBoolean() ? random.nextInt(50) : random.nextInt(4_000);
                steps.add(new ChaosStep.Pass(ms, random.nextBoolean() ? random.nextInt(ms + 1) : -1));
            }
            if (random.nextInt(6) == 0) {
                steps.add(new ChaosStep.Check());
            }
        }
        return new ChaosSchedule(steps);
    }

    /** Whether both ends of {@code c} are on and their agents answer. */
    private static boolean answering(Link c, Set<Long> off, Set<Integer> hung, List<Long> switches) {
        return !off.contains(c.a()) && !off.contains(c.b()) && !hung.contains(switches.indexOf(c.a()))
                && !hung.contains(switches.indexOf(c.b()));
    }

    private static int pick(Random random, List<Integer> from) {
        return from.get(random.nextInt(from.size()));
    }

    /** Reads a schedule from its {@link #text()}: tokens separated by blanks or commas. */
    public static ChaosSchedule parse(String text) {
        List<ChaosStep> steps = new ArrayList<>();
        for (String token : text.trim().split("[\\s,]+")) {
            if (!token.isEmpty()) {
                steps.add(ChaosStep.parse(token));
            }
        }
        return new ChaosSchedule(steps);
    }

    /** The schedule as tokens separated by blanks, which {@link #parse} reads back. */
    public String text() {
        return String.join(" ", steps.stream().map(ChaosStep::token).toList());
    }

    /** Events in the schedule: the steps that are neither time passing nor a check. */
    public int events() {
        return (int) steps.stream().filter(s -> !(s instanceof ChaosStep.Pass) && !(s instanceof ChaosStep.Check))
                .count();
    }
}
