package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;

/**
 * The CLI's {@code --wait}: after an action that makes a routing version (drain, undrain, rebalance), polls the
 * daemon's status until it is CONVERGED on that version or a later one, which under OpenSM too means every switch
 * holds it (OpenSM reported it set), so that an operator may work on a drained element once the command returns.
 */
final class ConvergenceWait {
    /** The longest the CLI waits: OpenSM's pass and uploads take seconds at thousands of switches. */
    static final long WAIT_MS = 300_000;
    private static final long POLL_MS = 500;

    private ConvergenceWait() {
    }

    /** Usage line of the option. */
    static final String USAGE = "  --wait                  return once every switch holds the new routing (CONVERGED, "
            + "at most " + WAIT_MS / 1000 + " s)";

    /**
     * Waits until the daemon converged on {@code version} or later.
     *
     * @return the exit code: OK when it did, INTERNAL when the wait ran out (the status's counts printed)
     */
    static int await(DaemonClient client, long version, PrintStream out) {
        long start = System.nanoTime();
        JsonNode status = client.get("/api/v1/status");
        while (!converged(status, version)) {
            if (System.nanoTime() - start > WAIT_MS * 1_000_000) {
                JsonNode t = status.path("tables");
                out.printf("not converged on v%d after %d s: state %s, %d in sync, %d pending, %d failing "
                        + "(`fabric-manager switches` names them)%n", version, WAIT_MS / 1000,
                        status.path("state").asText(), t.path("inSync").asInt(), t.path("pending").asInt(),
                        t.path("failing").asInt());
                return ExitCodes.INTERNAL;
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCodes.INTERNAL;
            }
            status = client.get("/api/v1/status");
        }
        out.printf("converged: v%d on %d switches after %.1f s%n", status.path("routing").path("version").asLong(),
                status.path("tables").path("inSync").asInt(), (System.nanoTime() - start) / 1e9);
        return ExitCodes.OK;
    }

    private static boolean converged(JsonNode status, long version) {
        return "CONVERGED".equals(status.path("state").asText())
                && status.path("routing").path("version").asLong() >= version;
    }
}
