package org.fabricmanager.agent;

import java.util.List;
import java.util.concurrent.CompletionStage;
import org.fabricmanager.southbound.Message;

/**
 * Receives the failure-detector configuration once all of its chunks have arrived. An agent without
 * one answers DETECTOR_CONFIG with {@code ERROR UNSUPPORTED_FEATURE}.
 */
@FunctionalInterface
public interface DetectorConfigListener {
    /**
     * Called on the agent's event loop; must not block.
     *
     * @return completed once the member runs (the agent then acknowledges the configuration's last
     *         chunk), or exceptionally when it cannot start (the agent answers DETECTOR_UNAVAILABLE)
     */
    CompletionStage<Void> configured(SwitchAgent agent, RingAssignment ring);

    /**
     * Addresses of members of ring epoch {@code epoch} (the one last configured): answers to the member's
     * lookups ({@link SwitchAgent#lookupDetectorPeers}) or updates when a member moved. Called on the agent's
     * event loop; must not block.
     */
    default void peers(SwitchAgent agent, long epoch, List<Message.DetectorPeer> peers) {
    }
}
