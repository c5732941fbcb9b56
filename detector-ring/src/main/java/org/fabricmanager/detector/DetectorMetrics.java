package org.fabricmanager.detector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;

/**
 * The detector's Micrometer meters. Meters carry no per-member tag: members sharing a registry (the
 * simulator, several agents in one JVM) add up into one set of totals, and a daemon embedding one
 * member gets that member's figures.
 */
public final class DetectorMetrics {
    public static final String HEARTBEATS_SENT = "fabric.detector.heartbeats.sent";
    public static final String HEARTBEATS_RECEIVED = "fabric.detector.heartbeats.received";
    public static final String HEARTBEATS_LATE = "fabric.detector.heartbeats.late";
    public static final String SUSPICIONS = "fabric.detector.suspicions";
    public static final String FALSE_SUSPICIONS = "fabric.detector.suspicions.false";
    public static final String BROADCASTS_ORIGINATED = "fabric.detector.broadcasts.originated";
    public static final String BROADCASTS_FORWARDED = "fabric.detector.broadcasts.forwarded";
    public static final String BROADCASTS_DUPLICATE = "fabric.detector.broadcasts.duplicate";
    public static final String BROADCAST_MESSAGES = "fabric.detector.broadcasts.messages";
    public static final String STATE_SYNCS = "fabric.detector.state.syncs";
    public static final String REJOINS = "fabric.detector.rejoins";
    public static final String DETECTION_LATENCY = "fabric.detector.detection.latency";
    public static final String SUSPICIONS_RAISED = "fabric.detector.suspicions.raised";
    public static final String SUSPICIONS_REFUTED = "fabric.detector.suspicions.refuted";
    public static final String CONFIRMATIONS = "fabric.detector.suspicions.confirmations";
    public static final String REFUTATIONS = "fabric.detector.refutations";
    public static final String HEALTH_SCORE = "fabric.detector.health.score";
    public static final String HEALTH_RAISED = "fabric.detector.health.raised";
    public static final String HEALTH_FORGIVEN = "fabric.detector.health.forgiven";

    private final Counter heartbeatsSent;
    private final Counter heartbeatsReceived;
    private final Counter heartbeatsLate;
    private final Counter suspicions;
    private final Counter falseSuspicions;
    private final Counter broadcastsOriginated;
    private final Counter broadcastsForwarded;
    private final Counter broadcastsDuplicate;
    private final Counter broadcastMessages;
    private final Counter stateSyncs;
    private final Counter rejoins;
    private final Timer detectionLatency;
    private final Counter suspicionsRaised;
    private final Counter suspicionsRefuted;
    private final Counter confirmations;
    private final Counter refutations;
    private final Counter healthRaised;
    private final Counter healthForgiven;

    public DetectorMetrics(MeterRegistry registry) {
        heartbeatsSent = counter(registry, HEARTBEATS_SENT, "heartbeats sent to the observer");
        heartbeatsReceived = counter(registry, HEARTBEATS_RECEIVED, "heartbeats received");
        heartbeatsLate = counter(registry, HEARTBEATS_LATE, "heartbeats sent later than the pause threshold");
        suspicions = counter(registry, SUSPICIONS, "emitters declared dead after δ (times the local health) of silence");
        falseSuspicions = counter(registry, FALSE_SUSPICIONS, "suspected members later heard from at the same incarnation");
        broadcastsOriginated = counter(registry, BROADCASTS_ORIGINATED, "broadcasts started");
        broadcastsForwarded = counter(registry, BROADCASTS_FORWARDED, "broadcast copies received and forwarded");
        broadcastsDuplicate = counter(registry, BROADCASTS_DUPLICATE, "broadcast copies whose event was already known");
        broadcastMessages = counter(registry, BROADCAST_MESSAGES, "broadcast copies sent, by sources and forwarders");
        stateSyncs = counter(registry, STATE_SYNCS, "views sent to joiners, new observers, zombies and for anti-entropy");
        rejoins = counter(registry, REJOINS, "times this member learned it was declared dead and rejoined");
        detectionLatency = Timer.builder(DETECTION_LATENCY)
                .description("silence of the emitter when its observer suspected it (δ plus the lateness of the timer)")
                .register(registry);
        suspicionsRaised = counter(registry, SUSPICIONS_RAISED, "suspicions raised: a silent emitter was asked to refute");
        suspicionsRefuted = counter(registry, SUSPICIONS_REFUTED, "suspicions ended because the emitter was heard");
        confirmations = counter(registry, CONFIRMATIONS, "suspicions confirmed to an observer by a helper");
        refutations = counter(registry, REFUTATIONS, "suspicions of this member it refuted by a higher incarnation");
        healthRaised = counter(registry, HEALTH_RAISED, "points added to local health scores");
        healthForgiven = counter(registry, HEALTH_FORGIVEN, "points forgiven from local health scores");
        // Members sharing a registry share these counters, so the gauge derives the sum of their scores
        // from them: whichever member registers the gauge first, it reports all of them (registered once: Micrometer
        // warns at a second registration, which the demo's daemon and simulated members did at every start). Under
        // the registry's lock: simulate starts members on 16 threads, and two of them both found none.
        synchronized (registry) {
            if (registry.find(HEALTH_SCORE).gauge() == null) {
                Gauge.builder(HEALTH_SCORE, registry, r -> r.counter(HEALTH_RAISED).count() - r.counter(HEALTH_FORGIVEN).count())
                        .description("local health score (0 healthy, up to 3): the member's own lateness; the sum over "
                                + "members sharing the registry")
                        .register(registry);
            }
        }
    }

    /** Meters in a private registry, for tests and for callers that do not export metrics. */
    public static DetectorMetrics unregistered() {
        return new DetectorMetrics(new SimpleMeterRegistry());
    }

    private static Counter counter(MeterRegistry registry, String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    void heartbeatSent() {
        heartbeatsSent.increment();
    }

    void heartbeatReceived() {
        heartbeatsReceived.increment();
    }

    void heartbeatLate() {
        heartbeatsLate.increment();
    }

    void suspicion(long silentNanos) {
        suspicions.increment();
        detectionLatency.record(silentNanos, TimeUnit.NANOSECONDS);
    }

    void falseSuspicion() {
        falseSuspicions.increment();
    }

    void broadcastOriginated() {
        broadcastsOriginated.increment();
    }

    void broadcastForwarded() {
        broadcastsForwarded.increment();
    }

    void broadcastDuplicate() {
        broadcastsDuplicate.increment();
    }

    void broadcastMessage() {
        broadcastMessages.increment();
    }

    void stateSync() {
        stateSyncs.increment();
    }

    void rejoin() {
        rejoins.increment();
    }

    void suspicionRaised() {
        suspicionsRaised.increment();
    }

    void suspicionRefuted() {
        suspicionsRefuted.increment();
    }

    void confirmation() {
        confirmations.increment();
    }

    void refutation() {
        refutations.increment();
    }

    /** A member's local health score changed by {@code change} points. */
    void healthChanged(int change) {
        if (change > 0) {
            healthRaised.increment(change);
        } else if (change < 0) {
            healthForgiven.increment(-change);
        }
    }
}
