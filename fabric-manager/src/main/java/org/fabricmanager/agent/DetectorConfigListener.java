package org.fabricmanager.agent;

/**
 * Receives the failure-detector configuration once all of its chunks have arrived. An agent without
 * one answers DETECTOR_CONFIG with {@code ERROR UNSUPPORTED_FEATURE}.
 */
@FunctionalInterface
public interface DetectorConfigListener {
    /** Called on the agent's event loop; must not block. */
    void configured(SwitchAgent agent, DetectorRing ring);
}
