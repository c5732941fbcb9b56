package org.fabricmanager.detector;

import org.fabricmanager.detector.message.DetectorEvent;

/**
 * Receives a member's {@link DetectorEvent}s, each exactly once. Called on the member's own thread
 * (the simulator's thread or the member's Netty event loop): an implementation must not block and
 * should hand the event to its own queue, as the daemon's control thread does.
 */
@FunctionalInterface
public interface DetectorListener {

    /** A listener that ignores everything. */
    DetectorListener NONE = event -> { };

    void onEvent(DetectorEvent event);
}
