package org.fabricmanager.daemon.view;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.topology.Fabric;

/**
 * Reads of the tables handed to the switches that wait for the routing in force to be installed
 * ({@link org.fabricmanager.daemon.api.DaemonApi#whenHanded}): each is done at once when it is, else at the first state
 * change that installs it (in the event after it). Control thread only.
 */
public final class HandedReads {
    private final Source views;
    private final List<Waiting<?>> waiting = new ArrayList<>();

    /** Where the tables are read: {@link DaemonViews#handed}. */
    public interface Source {
        /** {@code read} of the fabric of the routing in force, or {@code null} while it is not installed. */
        <T> T handed(Function<Fabric, T> read);
    }

    /**
     * @param stateChanges where it asks to be told of every change of the daemon's state; it looks at its reads in the
     *                     next event of {@code loop}, once the event that changed the state is over
     */
    public HandedReads(Source views, ControlLoop loop, Consumer<Runnable> stateChanges) {
        this.views = views;
        stateChanges.accept(() -> loop.append("handed reads", this::stateChanged));
    }

    private record Waiting<T>(Function<Fabric, T> read, CompletableFuture<T> done) {
        /** Whether it is done now (read, failed, or cancelled by its caller). */
        boolean tryRead(Source views) {
            if (done.isDone()) {
                return true;
            }
            try {
                T value = views.handed(read);
                return value != null && done.complete(value);
            } catch (RuntimeException e) {
                return done.completeExceptionally(e);
            }
        }
    }

    /** The read done once the routing in force is installed. */
    public <T> CompletableFuture<T> read(Function<Fabric, T> read) {
        Waiting<T> w = new Waiting<>(read, new CompletableFuture<>());
        if (!w.tryRead(views)) {
            waiting.add(w);
        }
        return w.done();
    }

    /** The daemon's state changed: the reads it installs tables for are done. */
    private void stateChanged() {
        for (Iterator<Waiting<?>> it = waiting.iterator(); it.hasNext(); ) {
            if (it.next().tryRead(views)) {
                it.remove();
            }
        }
    }
}
