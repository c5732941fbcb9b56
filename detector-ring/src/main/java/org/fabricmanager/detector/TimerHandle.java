package org.fabricmanager.detector;

/** A pending timer from {@link RingTransport#schedule}; cancelling a timer that already ran does nothing. */
public interface TimerHandle {
    void cancel();
}
