package org.fabricmanager.cli;

import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.Milestone;

/**
 * The demo's progress lines: each of the daemon's milestones as it comes, switches connected by quarters of the fabric,
 * and the first convergence as a future the demo waits on.
 */
final class DemoProgress implements DaemonListener {
    private final PrintStream out;
    private final int total;
    private final AtomicInteger connected = new AtomicInteger();
    private final CompletableFuture<Void> converged = new CompletableFuture<>();

    /** Prints to {@code out}; {@code switches} is the fabric's switch count. */
    DemoProgress(PrintStream out, int switches) {
        this.out = out;
        this.total = switches;
    }

    /** Completes at the first {@code CONVERGED}. */
    CompletableFuture<Void> converged() {
        return converged;
    }

    @Override
    public void milestone(Milestone m) {
        switch (m.kind()) {
            case STARTED -> {
            }
            case SWITCH_CONNECTED -> {
                int n = connected.incrementAndGet();
                if (n == total || n * 4 / total != (n - 1) * 4 / total) {
                    out.printf("switches connected: %d/%d%n", n, total);
                }
            }
            case CONVERGED -> {
                out.println(m.message());
                converged.complete(null);
            }
            default -> out.println(m.message());
        }
    }
}
