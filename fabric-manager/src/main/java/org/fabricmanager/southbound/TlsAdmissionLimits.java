package org.fabricmanager.southbound;

/**
 * How the daemon paces TLS handshakes ({@link HandshakeAdmission}). A full TLS 1.3 handshake costs the
 * daemon milliseconds of CPU; when every agent of a large fabric connects at once (a daemon start or
 * restart), the handshakes are run a few at a time, the other connections wait unread in a bounded
 * queue, and each timer starts where the work it bounds starts: the handshake's at its admission, the
 * HELLO's when the handshake completes ({@link SouthboundSettings#handshakeTimeoutMs}). Waiting for a
 * slot is bounded on its own, so a queued agent is never timed out for the daemon's backlog.
 *
 * @param atOnce      TLS handshakes in progress at once
 * @param queueLength connections waiting for a handshake slot; a connection beyond it is closed at once and
 *                    counted as {@link Rejection#BUSY}
 * @param queueWaitMs a connection whose turn comes after waiting longer than this is closed unread (counted
 *                    as {@link Rejection#BUSY}): its agent has probably given up, so the handshake would be lost
 * @param timeoutMs   a TLS handshake must complete within this from its admission ({@link Rejection#TIMEOUT})
 *
 * <p>Two bounds follow from these: a connection must send its first TLS record within {@link #firstByteMs()} of its
 * TCP connect, before it may even wait for a slot, and one peer address holds at most {@link #perPeer()} of the
 * slots at once, so that idle connections, or a few hosts that start handshakes and go silent, cannot hold every
 * slot against the agents.
 */
public record TlsAdmissionLimits(int atOnce, int queueLength, int queueWaitMs, int timeoutMs) {
    /** Defaults: 64 at once, 4,096 waiting for at most 45 s, 10 s per handshake. */
    /**
     * An agent sends its ClientHello as soon as it is connected, but a starved host sends it late: 2 s lost most of
     * the simulated agents of a loaded 2-core host (each reconnected: docs/performance.md, "Choices in the code,
     * measured"). A connection waiting for its first record
     * holds no slot and no queue place, only a socket, so a longer wait costs the daemon little.
     */
    static final int FIRST_BYTE_MS = 5_000;

    public static final TlsAdmissionLimits DEFAULTS = new TlsAdmissionLimits(64, 4_096, 45_000, 10_000);

    public TlsAdmissionLimits {
        check("atOnce", atOnce, 1, 4_096);
        check("queueLength", queueLength, 0, 1_000_000);
        check("queueWaitMs", queueWaitMs, 100, 3_600_000);
        check("timeoutMs", timeoutMs, 100, 600_000);
    }

    /** Longest wait for a connection's first TLS record, from its TCP connect: 5 s, or the handshake timeout. */
    public int firstByteMs() {
        return Math.min(FIRST_BYTE_MS, timeoutMs);
    }

    /** Slots one peer address may hold at once: a quarter of them (at least one). */
    public int perPeer() {
        return Math.max(1, atOnce / 4);
    }

    /**
     * Queue places one peer address keeps when the queue is full and others want in: a quarter of them (at least
     * one). Below a full queue an address may hold any number.
     */
    public int queueShare() {
        return Math.max(1, queueLength / 4);
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("TLS admission " + name + " must be in [" + min + ", " + max + "], got "
                    + value);
        }
    }
}
