package org.fabricmanager.daemon.push;

/**
 * The pusher's totals since it started: blocks and bytes sent (blocks staged ahead counted when they went out),
 * commits sent, acknowledgements of the expected version, and commits that found their blocks staged ahead.
 */
public record PushTotals(long blocks, long bytes, long commits, long acks, long stagedAhead) {
    /** Nothing sent. */
    public static final PushTotals ZERO = new PushTotals(0, 0, 0, 0, 0);

    /** What was sent between {@code earlier} and these totals. */
    public PushTotals since(PushTotals earlier) {
        return new PushTotals(blocks - earlier.blocks, bytes - earlier.bytes, commits - earlier.commits,
                acks - earlier.acks, stagedAhead - earlier.stagedAhead);
    }
}
