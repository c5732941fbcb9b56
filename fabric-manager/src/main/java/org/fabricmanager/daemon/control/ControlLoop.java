package org.fabricmanager.daemon.control;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * What the daemon's managers need of the control loop: run an action after the events already queued,
 * and run one at a deadline under a tag (scheduling the tag again replaces the pending action, which is
 * how bursts are debounced), or cancel it. {@link EventQueue} is the loop; unit tests drive managers with
 * a manual one. All actions run on the one control thread, in order.
 */
public interface ControlLoop {

    /** Runs {@code action} after every event appended before it. */
    void append(String name, Runnable action);

    /** Runs {@code action} in {@code delayMs}, replacing any action pending under {@code tag}. */
    void scheduleDeferred(String tag, long delayMs, Runnable action);

    /** Cancels the action pending under {@code tag}; true when there was one. */
    boolean cancelDeferred(String tag);

    /** Runs {@code call} on the loop, after the events already queued, and completes the future with its result. */
    default <T> CompletableFuture<T> call(String name, Callable<T> call) {
        CompletableFuture<T> future = new CompletableFuture<>();
        append(name, () -> {
            try {
                future.complete(call.call());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        return future;
    }
}
