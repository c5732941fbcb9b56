package org.fabricmanager.agent;

/**
 * Fault injection for one agent's connection: delay or drop the messages it sends and receives.
 * Changes take effect for the next message; safe to change from any thread.
 */
public final class FaultSettings {
    private volatile long delayMs;
    private volatile boolean dropOutbound;
    private volatile boolean dropInbound;

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

    /** Back to a healthy connection. */
    public void clear() {
        delayMs = 0;
        dropOutbound = false;
        dropInbound = false;
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
}
