package org.fabricmanager.detector;

import org.fabricmanager.detector.message.RingMessage;

/**
 * What a {@link RingMember} needs from its environment: a clock, a way to send a message to another
 * member by ring index, and timers. All callbacks into the member (message deliveries and timer
 * actions) must run on one thread, the member's thread, which is also the thread that calls these
 * methods. Implementations: the discrete-event simulator and the Netty UDP transport.
 */
public interface RingTransport {

    /** Monotonic time in nanoseconds (virtual in the simulator). */
    long nanoTime();

    /** Sends {@code message} to member {@code to}; delivery is not guaranteed. */
    void send(int to, RingMessage message);

    /** Runs {@code action} on the member's thread after {@code delayNanos} (possibly later, never earlier). */
    TimerHandle schedule(long delayNanos, Runnable action);
}
