package org.fabricmanager.detector.sim;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.MemberPhase;
import org.fabricmanager.detector.RingMember;
import org.fabricmanager.detector.message.DetectorEvent;

/**
 * Crashes f members at one instant in a warmed-up simulated ring and measures what the paper bounds:
 * how long until a failure is detected, until every live member knows every failure, and until the
 * ring is stable (no live member changes its view, emitter or observer for 3δ, and all agree).
 *
 * <p>The run stops once stable, or at the horizon max(T(f), 10δ) + 5δ after the failures, in which
 * case the result says whether the members agree.
 */
public final class FailureExperiment {
    private final ExperimentSpec spec;

    private FailureExperiment(ExperimentSpec spec) {
        this.spec = spec;
    }

    /** Runs one experiment; deterministic for a given spec. */
    public static ExperimentResult run(ExperimentSpec spec) {
        return new FailureExperiment(spec).execute();
    }

    /**
     * The paper's worst-case stabilisation bound T(f) = f(f+1)δ + fτ + f(f+1)/2·B(n), B(n) = 8τ·log2 n,
     * in nanoseconds; stated for f &lt;= floor(log2 n) - 1.
     */
    public static double boundNanos(int f, int n, long deltaNanos, long tauNanos) {
        double broadcast = 8.0 * tauNanos * (Math.log(n) / Math.log(2));
        return (double) f * (f + 1) * deltaNanos + (double) f * tauNanos + f * (f + 1) / 2.0 * broadcast;
    }

    private ExperimentResult execute() {
        SimulationConfig config = spec.ring();
        int n = config.members();
        int f = spec.failures();
        long eta = config.parameters().heartbeatInterval().toNanos();
        long delta = config.parameters().suspicionTimeout().toNanos();
        MeterRegistry registry = new SimpleMeterRegistry();
        Tracker tracker = new Tracker(n, f);
        Simulation sim = new Simulation(config, registry, tracker);
        sim.startAll(eta);

        // Past the 2δ start-up grace every emitter is heard; then fail at a random phase of the heartbeats.
        SplittableRandom random = sim.random();
        long failAt = 3 * delta + random.nextLong(eta);
        int[] failed = spec.consecutive() ? consecutive(random, n, f) : distinct(random, n, f);
        boolean[] isFailed = new boolean[n];
        for (int m : failed) {
            isFailed[m] = true;
            sim.crash(m, failAt);
        }
        tracker.arm(failed);
        sim.runUntil(failAt);
        MessageCounts atFailure = sim.messageCounts();

        double bound = boundNanos(f, n, delta, config.tauNanos());
        long horizon = failAt + (long) Math.max(bound, 10.0 * delta) + 5 * delta;
        boolean agreed = false;
        while (sim.now() < horizon) {
            sim.runUntil(Math.min(horizon, sim.now() + delta / 2));
            if (tracker.knowledgeComplete() && sim.now() - sim.lastChangeNanos() >= 3 * delta) {
                agreed = agreed(sim, isFailed, failed);
                if (agreed) {
                    break;
                }
            }
        }
        if (!agreed) {
            agreed = agreed(sim, isFailed, failed);
        }

        long lastChange = Math.max(sim.lastChangeNanos(), failAt);
        MessageCounts counts = sim.lastChangeNanos() >= failAt ? sim.countsAtLastChange().minus(atFailure)
                : new MessageCounts(0, 0, 0, 0, 0);
        int live = n - f;
        double originated = count(registry, DetectorMetrics.BROADCASTS_ORIGINATED);
        double copies = count(registry, DetectorMetrics.BROADCAST_MESSAGES);
        return new ExperimentResult(n, f, config.parameters().overlay(), spec.consecutive(), config.seed(), failed,
                tracker.firstDetection < 0 ? Double.NaN : millis(tracker.firstDetection - failAt),
                tracker.knowledgeTime < 0 ? Double.NaN : millis(tracker.knowledgeTime - failAt),
                millis(lastChange - failAt), millis(delta), bound / 1e6, agreed,
                (long) count(registry, DetectorMetrics.FALSE_SUSPICIONS), tracker.wrong, tracker.duplicates,
                (long) originated, originated > 0 ? copies / originated : 0.0,
                (double) counts.total() / live, (double) counts.nonHeartbeat() / live, counts);
    }

    /**
     * Every live member is running with D equal to the failed set, the first live members before and
     * after it as emitter and observer, and the same view digest as every other live member.
     */
    static boolean agreed(Simulation sim, boolean[] isFailed, int[] failedSorted) {
        int n = sim.size();
        long digest = 0;
        boolean first = true;
        for (int i = 0; i < n; i++) {
            if (isFailed[i]) {
                continue;
            }
            RingMember m = sim.member(i);
            if (m.phase() != MemberPhase.RUNNING || !Arrays.equals(m.deadMembers(), failedSorted)
                    || m.emitter() != neighbour(isFailed, i, -1) || m.observer() != neighbour(isFailed, i, 1)) {
                return false;
            }
            if (first) {
                digest = m.viewDigest();
                first = false;
            } else if (m.viewDigest() != digest) {
                return false;
            }
        }
        return true;
    }

    private static int neighbour(boolean[] isFailed, int i, int direction) {
        int n = isFailed.length;
        for (int k = 1; k < n; k++) {
            int m = Math.floorMod(i + direction * k, n);
            if (!isFailed[m]) {
                return m;
            }
        }
        return -1;
    }

    private static int[] consecutive(SplittableRandom random, int n, int f) {
        int start = random.nextInt(n);
        int[] out = new int[f];
        for (int i = 0; i < f; i++) {
            out[i] = (start + i) % n;
        }
        Arrays.sort(out);
        return out;
    }

    private static int[] distinct(SplittableRandom random, int n, int f) {
        boolean[] chosen = new boolean[n];
        int[] out = new int[f];
        for (int i = 0; i < f; ) {
            int m = random.nextInt(n);
            if (!chosen[m]) {
                chosen[m] = true;
                out[i++] = m;
            }
        }
        Arrays.sort(out);
        return out;
    }

    private static double count(MeterRegistry registry, String name) {
        return registry.get(name).counter().count();
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    /** Follows every listener: first detection, per-member knowledge of the failures, wrong and duplicate events. */
    private static final class Tracker implements Simulation.Probe {
        private final int n;
        private final int f;
        private int[] failedIndex;
        private long[] knownBits;
        private int[] learned;
        private int complete;
        long firstDetection = -1;
        long knowledgeTime = -1;
        long wrong;
        long duplicates;

        Tracker(int n, int f) {
            this.n = n;
            this.f = f;
        }

        void arm(int[] failed) {
            failedIndex = new int[n];
            Arrays.fill(failedIndex, -1);
            for (int i = 0; i < failed.length; i++) {
                failedIndex[failed[i]] = i;
            }
            knownBits = new long[(int) (((long) n * f + 63) / 64)];
            learned = new int[n];
        }

        boolean knowledgeComplete() {
            return knowledgeTime >= 0;
        }

        @Override
        public void onEvent(int member, DetectorEvent event, long nanos) {
            if (failedIndex == null) {
                wrong++; // nothing may happen during warm-up
                return;
            }
            if (!(event instanceof DetectorEvent.MemberFailed failure) || failedIndex[failure.member()] < 0) {
                wrong++;
                return;
            }
            if (failedIndex[member] >= 0) {
                return;
            }
            if (firstDetection < 0) {
                firstDetection = nanos;
            }
            long bit = (long) member * f + failedIndex[failure.member()];
            int word = (int) (bit >>> 6);
            long mask = 1L << (bit & 63);
            if ((knownBits[word] & mask) != 0) {
                duplicates++;
                return;
            }
            knownBits[word] |= mask;
            if (++learned[member] == f && ++complete == n - f) {
                knowledgeTime = nanos;
            }
        }
    }
}
