package org.fabricmanager.daemon.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
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

    /**
     * Runs the appended actions until {@code done} holds, waiting up to {@code seconds} for other threads' actions.
     * For work that {@link #advance} starts: its last {@link #runPending} may already run what that work appended.
     */
    public void runUntil(String what, long seconds, BooleanSupplier done) {
        Await.until(what, Duration.ofSeconds(seconds), () -> {
            runPending();
            return done.getAsBoolean();
        });
    }
}
