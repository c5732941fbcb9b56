package org.fabricmanager.southbound;

/**
 * What a session can do and what its end means: the daemon's managers branch on these, never on what kind of session
 * it is. An agent of its own has them all; a switch of OpenSM's subnet, reported through OpenSM's plug-in, none.
 *
 * @param agent             the switch is managed by an agent of its own over the southbound (not reported by OpenSM):
 *                          such a switch is never taken over by a report of OpenSM's
 * @param pacedOnWire       its batches go on a connection of its own and wait for room on the wire
 *                          ({@code push.maxInFlight}); OpenSM's go in one answer for all switches, which waits for
 *                          every one of them
 * @param endIsLoss         its session's end may be a loss of the management network (judged with the burst of losses
 *                          it belongs to, the switches still forwarding), not the switch leaving the fabric as the
 *                          fabric's own management saw it (OpenSM's subnet no longer holds it: routed around at once)
 * @param failureDetector   its switch runs a member of the ring failure detector
 */
public record SessionCapabilities(boolean agent, boolean pacedOnWire, boolean endIsLoss, boolean failureDetector) {
    /** An agent of our own. */
    public static final SessionCapabilities AGENT = new SessionCapabilities(true, true, true, true);
    /** A switch of OpenSM's subnet. */
    public static final SessionCapabilities OPENSM = new SessionCapabilities(false, false, false, false);
}
