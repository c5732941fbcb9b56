package org.fabricmanager.detector.message;

/** Why a {@link StateSync} was sent. */
public enum StateKind {
    /** Information only: the receiver merges it. */
    SYNC,
    /** Anti-entropy: the receiver merges it and answers with its own view. */
    SYNC_REPLY_WANTED,
    /** Answer to a {@link Join}: the joiner is admitted at the incarnation it asked for. */
    JOIN_ACCEPTED,
    /** Answer to a {@link Join}: the joiner's incarnation is too old; the view says which one it must exceed. */
    JOIN_REJECTED
}
