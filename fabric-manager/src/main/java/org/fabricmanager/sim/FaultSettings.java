package org.fabricmanager.sim;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.agent.ConnectionTap;

/**
 * Fault injection for one simulated agent's connection: delay or drop the messages it sends and
 * receives, or freeze it as a hung agent process looks to the daemon (nothing in or out, and the
 * connection stays open: no FIN even when the agent gives it up). Used as the agent's
 * {@link ConnectionTap}. Changes take effect for the next message; safe to change from any thread.
 */
public final class FaultSettings implements ConnectionTap {
    private volatile long delayMs;
    private volatile boolean dropOutbound;
    private volatile boolean dropInbound;
    private volatile boolean frozen;
    /** Connections whose close a frozen agent asked for, held open until {@link #clear}. */
    private final List<Channel> heldOpen = new ArrayList<>();

    @Override
    public ChannelHandler newHandler() {
        return new FaultInjectionHandler(this);
    }

    /** Delays every message the agent sends and receives by {@code ms} (0 = none). */
    public void delay(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("negative delay " + ms);
        }
        delayMs = ms;
    }

    /** Silently discards every message the agent sends (the daemon hears nothing). */
    public void dropOutbound(boolean drop) {
        dropOutbound = drop;
    }

    /** Silently discards every message the agent receives. */
    public void dropInbound(boolean drop) {
        dropInbound = drop;
    }

    /**
     * The agent process froze: it neither reads nor writes, and a close it asks for never reaches the
     * socket (the daemon sees an open, silent connection until its idle timeout).
     */
    public void freeze() {
        dropInbound = true;
        dropOutbound = true;
        frozen = true;
    }

    /** Back to a healthy connection; a connection held open by a freeze is closed now. */
    public void clear() {
        delayMs = 0;
        dropOutbound = false;
        dropInbound = false;
        frozen = false;
        List<Channel> held;
        synchronized (heldOpen) {
            held = new ArrayList<>(heldOpen);
            heldOpen.clear();
        }
        for (Channel c : held) {
            c.close();
        }
    }

    public long delayMs() {
        return delayMs;
    }

    public boolean dropsOutbound() {
        return dropOutbound;
    }

    public boolean dropsInbound() {
        return dropInbound;
    }

    boolean frozen() {
        return frozen;
    }

    /** Keeps {@code channel} open for a frozen agent; closed by {@link #clear}. */
    void holdOpen(Channel channel) {
        synchronized (heldOpen) {
            heldOpen.add(channel);
        }
    }
}
