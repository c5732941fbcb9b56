package org.fabricmanager.agent;

/** Observes an agent: connection state changes and applied tables. Called on the agent's event loop. */
public interface AgentListener {
    /** The agent's connection state changed. */
    default void stateChanged(SwitchAgent agent, SwitchAgent.State state) {
    }

    /** A commit was applied; {@code table} is now in force. */
    default void tableApplied(SwitchAgent agent, AppliedTable table) {
    }
}
