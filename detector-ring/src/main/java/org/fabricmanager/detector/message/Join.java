package org.fabricmanager.detector.message;

/**
 * A starting or rejoining member asks a running member to admit it at incarnation
 * {@code fromIncarnation}; the answer is a {@link StateSync} of kind
 * {@link StateKind#JOIN_ACCEPTED} or {@link StateKind#JOIN_REJECTED} carrying the current view.
 */
public record Join(int from, long fromIncarnation) implements RingMessage {
}
