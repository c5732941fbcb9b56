package org.fabricmanager.detector.message;

/**
 * "I am alive", sent every η to the observer. Carries a digest of the sender's view so that an
 * observer whose view keeps differing from its emitter's for longer than δ can repair it (anti-entropy
 * at the cost of 8 bytes per heartbeat and no extra message when views agree).
 *
 * @param digest order-independent hash of the sender's membership and link view
 */
public record Heartbeat(int from, long fromIncarnation, long digest) implements RingMessage {
}
