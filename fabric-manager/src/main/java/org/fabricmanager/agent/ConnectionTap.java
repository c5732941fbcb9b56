package org.fabricmanager.agent;

import io.netty.channel.ChannelHandler;

/**
 * A handler the embedding places on each of an agent's connections, between the message codec and
 * the agent's own handler: it sees every decoded message in and out and every close, and may pass,
 * delay or drop them. For tracing on a real switch, and for the fabric simulator's fault injection.
 */
@FunctionalInterface
public interface ConnectionTap {
    /** A new handler for one connection (called on the agent's event loop at every connect). */
    ChannelHandler newHandler();
}
