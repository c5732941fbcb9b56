package org.fabricmanager.daemon.testing;

import java.time.Duration;
import org.fabricmanager.daemon.control.VirtualTimeLoop;
import org.fabricmanager.testing.Await;

/**
 * A control loop for managers' unit tests: the daemon's {@link VirtualTimeLoop}, and a wait for an action another
 * thread appends.
 */
public final class ManualControlLoop extends VirtualTimeLoop {
    /** Waits up to {@code seconds} for an action appended from another thread, then runs all pending ones. */
    public void awaitAndRun(long seconds) throws InterruptedException {
        Await.until("an action appended", Duration.ofSeconds(seconds), this::hasPending);
        runPending();
    }
}
