package org.fabricmanager.agent;

import io.netty.channel.EventLoop;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * What the embedding lends a {@link SwitchAgent}: the event loop its connection and state live on (possibly
 * shared with thousands of other agents), the source of its backoff jitter, and the optional hooks and helpers:
 * an observer, a tap placed on every connection, an executor for the TLS handshake's CPU-heavy steps, and the
 * {@link ForwardingPlane} its tables are applied to.
 *
 * @param loop     the event loop this agent's connection and state live on
 * @param listener observer, or {@code null}
 * @param random   source of the backoff jitter
 * @param tap      placed on every connection, or {@code null}: none
 * @param tlsWork  runs the TLS handshake's heavy steps, or {@code null}: on {@code loop}. Many agents sharing a
 *                 few event loops (a simulator) pass a shared executor, so that one agent's handshake does not
 *                 hold up the echoes and acks of the others on its loop
 * @param plane    where committed tables are applied ({@link ForwardingPlane#SIMULATED} when {@code null}: the
 *                 agent's own table is the switch's)
 */
public record AgentDependencies(EventLoop loop, AgentListener listener, Random random, ConnectionTap tap,
                                Executor tlsWork, ForwardingPlane plane) {
    public AgentDependencies {
        if (plane == null) {
            plane = ForwardingPlane.SIMULATED;
        }
    }

    /** A simulated switch's dependencies (its table is the agent's own). */
    public AgentDependencies(EventLoop loop, AgentListener listener, Random random, ConnectionTap tap,
                             Executor tlsWork) {
        this(loop, listener, random, tap, tlsWork, ForwardingPlane.SIMULATED);
    }

    /** An agent's dependencies without a tap, its TLS handshakes run on its loop. */
    public AgentDependencies(EventLoop loop, AgentListener listener, Random random) {
        this(loop, listener, random, null, null);
    }
}
