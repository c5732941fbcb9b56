package org.fabricmanager.detector.message;

/**
 * A message between two members of a ring. Every message names its sender and the sender's
 * incarnation, so that a receiver can recognise a zombie (a member it believes dead at that
 * incarnation) and answer it with the view that tells it so.
 */
public sealed interface RingMessage permits Heartbeat, NewObserver, Join, StateSync, BroadcastCopy, Suspicion {

    /** Ring index of the sender. */
    int from();

    /** The sender's incarnation when it sent the message. */
    long fromIncarnation();
}
