package org.fabricmanager.southbound;

/**
 * How the members of a failure-detector ring watch each other, as a DETECTOR_WINDOW tells an agent
 * ({@code docs/protocol.md}, section 3.12).
 *
 * @param etaMs   heartbeat period
 * @param deltaMs silence after which a member is suspected
 * @param pauseMs gap in the member's own clock taken as a pause of its process, not a failure of others
 * @param overlay   how a member's broadcasts spread
 * @param transport what carries the heartbeats
 */
public record RingHeartbeats(int etaMs, int deltaMs, int pauseMs, Message.Overlay overlay, Message.Transport transport) {
}
