package org.fabricmanager.daemon.push;

/**
 * What it took to install one table version: batches, blocks and bytes sent, commits acknowledged,
 * retries and full pushes (unknown content), from the moment the version was installed in the pusher
 * until every switch held it ({@code completedNanos}, or -1 while pending). {@code stagedAhead} commits
 * found their blocks staged on the switch before the version was installed ({@link LftPusher#stage}); those
 * blocks and bytes are counted here too.
 */
public record PushRound(long version, long startedNanos, long completedNanos, long blocks, long bytes, long commits,
                        long acked, long retries, long fullPushes, long stagedAhead) {

    /** Milliseconds from start to completion, or -1 while pending. */
    public double durationMs() {
        return completedNanos < 0 ? -1 : (completedNanos - startedNanos) / 1e6;
    }
}
