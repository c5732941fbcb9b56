package org.fabricmanager.daemon.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Shrinks a failing chaos schedule by delta debugging (Zeller's ddmin): drops chunks of steps, halving their size down
 * to single steps, and keeps a smaller schedule whenever it still fails with the same {@link ChaosViolation.Kind}. A
 * step that no longer applies once another is gone is skipped by the simulation, so every subsequence is a schedule.
 * Each trial is one whole simulation: a budget of trials bounds the time spent.
 */
public final class ChaosShrinker {
    /** One trial: the violation a schedule ends in, or {@code null} when it ran clean. */
    interface Trial extends Function<ChaosSchedule, ChaosViolation> {
    }

    /** The smallest schedule found, the violation it ends in, and how many trials it took. */
    public record Shrunk(ChaosSchedule schedule, ChaosViolation violation, int trials) {
    }

    private final Trial trial;
    private final int maxTrials;

    ChaosShrinker(Trial trial, int maxTrials) {
        this.trial = trial;
        this.maxTrials = maxTrials;
    }

    /** Shrinks {@code failing}, which ended in {@code found}; at worst it returns {@code failing} itself. */
    Shrunk shrink(ChaosSchedule failing, ChaosViolation found) {
        List<ChaosStep> steps = failing.steps();
        ChaosViolation last = found;
        int trials = 0;
        int chunks = 2;
        while (!steps.isEmpty() && trials < maxTrials) {
            int size = Math.max(1, (steps.size() + chunks - 1) / chunks);
            boolean reduced = false;
            for (int from = 0; from < steps.size() && trials < maxTrials; from += size) {
                List<ChaosStep> candidate = new ArrayList<>(steps.subList(0, from));
                candidate.addAll(steps.subList(Math.min(steps.size(), from + size), steps.size()));
                trials++;
                ChaosViolation v = trial.apply(new ChaosSchedule(candidate));
                if (v != null && v.kind() == found.kind()) {
                    steps = candidate;
                    last = v;
                    chunks = Math.max(chunks - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                if (size == 1) {
                    break;
                }
                chunks = Math.min(steps.size(), chunks * 2);
            }
        }
        return new Shrunk(new ChaosSchedule(steps), last, trials);
    }
}
