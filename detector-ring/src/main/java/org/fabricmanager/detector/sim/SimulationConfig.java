package org.fabricmanager.detector.sim;

import java.util.Objects;
import org.fabricmanager.detector.RingParameters;

/**
 * Parameters of one simulated ring.
 *
 * @param members            ring size n
 * @param parameters         η, δ, overlay and pause threshold
 * @param tauMinNanos        smallest message delay
 * @param tauNanos           largest message delay τ; each message's delay is uniform in [τmin, τ]
 * @param lossProbability    probability that a message is lost (0 for the paper's reliable links)
 * @param timerDelayMaxNanos every timer fires late by a uniform amount in [0, this] (0 for on-time timers)
 * @param seed               seed of the random generator; equal configurations give equal runs
 */
public record SimulationConfig(int members, RingParameters parameters, long tauMinNanos, long tauNanos,
                               double lossProbability, long timerDelayMaxNanos, long seed) {

    public SimulationConfig {
        Objects.requireNonNull(parameters, "parameters");
        if (members < 2) {
            throw new IllegalArgumentException("a ring needs at least 2 members, got " + members);
        }
        if (tauMinNanos < 0 || tauNanos < tauMinNanos) {
            throw new IllegalArgumentException("need 0 <= τmin <= τ, got τmin=" + tauMinNanos + " ns, τ=" + tauNanos + " ns");
        }
        if (!(lossProbability >= 0 && lossProbability < 1)) {
            throw new IllegalArgumentException("loss probability must be in [0, 1), got " + lossProbability);
        }
        if (timerDelayMaxNanos < 0) {
            throw new IllegalArgumentException("timer delay must be >= 0, got " + timerDelayMaxNanos);
        }
    }

    /** Reliable links, on-time timers, delays uniform in [τ/10, τ]. */
    public static SimulationConfig of(int members, RingParameters parameters, long tauNanos, long seed) {
        return new SimulationConfig(members, parameters, tauNanos / 10, tauNanos, 0.0, 0L, seed);
    }

    public SimulationConfig withLoss(double probability) {
        return new SimulationConfig(members, parameters, tauMinNanos, tauNanos, probability, timerDelayMaxNanos, seed);
    }

    public SimulationConfig withTimerDelay(long maxNanos) {
        return new SimulationConfig(members, parameters, tauMinNanos, tauNanos, lossProbability, maxNanos, seed);
    }

    public SimulationConfig withSeed(long newSeed) {
        return new SimulationConfig(members, parameters, tauMinNanos, tauNanos, lossProbability, timerDelayMaxNanos, newSeed);
    }
}
