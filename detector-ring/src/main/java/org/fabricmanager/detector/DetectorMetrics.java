package org.fabricmanager.detector;

import io.micrometer.core.instrument.Counter;
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

    public DetectorMetrics(MeterRegistry registry) {
        heartbeatsSent = counter(registry, HEARTBEATS_SENT, "heartbeats sent to the observer");
        heartbeatsReceived = counter(registry, HEARTBEATS_RECEIVED, "heartbeats received");
        heartbeatsLate = counter(registry, HEARTBEATS_LATE, "heartbeats sent later than the pause threshold");
        suspicions = counter(registry, SUSPICIONS, "emitters suspected after δ of silence");
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
}
