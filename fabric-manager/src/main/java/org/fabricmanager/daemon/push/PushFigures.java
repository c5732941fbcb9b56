package org.fabricmanager.daemon.push;

/**
 * The pusher's running totals, for figures over an interval (a fault reaction): what was sent and acknowledged between
 * two readings, each block and switch counted once, as {@code fabric_push_blocks_total} counts them. Control thread.
 */
public interface PushFigures {
    /** Blocks, bytes, commits and acknowledgements since the pusher started. */
    PushTotals totals();

    /** Attached switches whose last acknowledgement came after {@code acks} acknowledgements in all (each once). */
    int switchesAckedAfter(long acks);

    /** No pusher: every figure is zero. */
    PushFigures NONE = new PushFigures() {
        @Override
        public PushTotals totals() {
            return PushTotals.ZERO;
        }

        @Override
        public int switchesAckedAfter(long acks) {
            return 0;
        }
    };
}
