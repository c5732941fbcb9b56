package org.fabricmanager.daemon;

import java.util.HashSet;
import java.util.Set;

/**
 * Whether the fabric changes waiting for a re-route are a complete picture: every link whose state changed was
 * reported by both its ends. A cable pulled, or one that comes back, is reported by the two switches it joins within
 * a few milliseconds of each other; once both reports are in, nothing more about that fault can come, and the fault
 * settle window (there to coalesce the reports of one fault) has nothing left to wait for. A switch that dies is
 * reported by its neighbours only, and any other change (a switch lost or admitted, a verdict) is not a link: the
 * picture then stays incomplete and the whole window is waited, as before.
 *
 * <p>Link ends are remembered as (switch GUID, port) until the other end reports the same state or the re-route
 * starts ({@link #clear}); bounded by the ports of the fabric. Control thread only.
 */
final class LinkReports {
    /** Link ends whose change is reported by that end only, as GUID × 256 + port (ports are 1..254). */
    private final Set<Long> waitingForPeer = new HashSet<>();
    /** Something other than a link changed since the last re-route started. */
    private boolean otherChange;

    private static long key(long guid, int port) {
        return guid * 256 + port;
    }

    /**
     * Switch {@code guid}'s port {@code port} changed state; its link's other end, switch {@code peerGuid} port
     * {@code peerPort}, has reported the same state already when {@code peerAgrees}. A port without a switch at the
     * other end (a node, or nobody known: {@code peerGuid} 0) is complete by itself.
     */
    void portChanged(long guid, int port, long peerGuid, int peerPort, boolean peerAgrees) {
        if (peerGuid == 0) {
            return;
        }
        if (peerAgrees) {
            waitingForPeer.remove(key(peerGuid, peerPort));
        } else {
            waitingForPeer.add(key(guid, port));
        }
    }

    /** A change that is not a link's (a switch lost or admitted, a mask change, a verdict). */
    void otherChange() {
        otherChange = true;
    }

    /** True when every change since the last {@link #clear} was a link reported by both its ends. */
    boolean complete() {
        return !otherChange && waitingForPeer.isEmpty();
    }

    /** The re-route started: it takes every change reported so far. */
    void clear() {
        waitingForPeer.clear();
        otherChange = false;
    }

    /** Link ends waiting for their peer's report. */
    int waiting() {
        return waitingForPeer.size();
    }
}
