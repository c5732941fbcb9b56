package org.fabricmanager.daemon.opensm;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks OpenSM's plug-in for a routing pass whenever the daemon has handed its OpenSM switches tables that no answer
 * carried yet (a drain, a rebalance, a reload, a re-route of its own), and when no pass came since its start while two
 * keepalives in a row found OpenSM master with no packet outstanding: OpenSM routes only when it sweeps, only a
 * pass's answer takes the daemon's tables to the switches, and only a pass tells a daemon started beside a running
 * OpenSM what its subnet is (a quiet fabric gives OpenSM no reason to route; a starting OpenSM routes by itself at
 * its first sweep, which one more pass asked meanwhile would repeat). Coalesced (one request covers every table handed before
 * it), none while a pass is being answered (it carries them, or the next request does), at most one per
 * {@value #MIN_INTERVAL_MS} ms, asked again after {@value #ASK_AGAIN_MS} ms when no pass came (OpenSM busy, or the
 * plug-in reconnecting), and every second while the plug-in's channel is closed. Thread-safe.
 */
final class PassRequests implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PassRequests.class);
    static final long MIN_INTERVAL_MS = 1_000;
    static final long ASK_AGAIN_MS = 10_000;

    /** Sends request {@code n} on the plug-in's channel; false when no channel is open. */
    private final LongPredicate send;
    private final LongSupplier clockMs;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fm-opensm-pass-requests");
        t.setDaemon(true);
        return t;
    });
    /** Tables handed to OpenSM switches' sessions so far (on the control thread). */
    private final AtomicLong handed = new AtomicLong();
    /** The handed count the last answer with tables covered. */
    private long covered;
    private boolean answering;
    private long requests;
    private long askedAtMs = Long.MIN_VALUE / 2;
    private long passAtMs = Long.MIN_VALUE / 2;
    private boolean channelClosed;
    /** No pass came since the start: the daemon knows no subnet yet. */
    private boolean subnetWanted = true;
    /** Keepalives in a row that found OpenSM master with no packet outstanding, while {@link #subnetWanted}. */
    private int idleMasterKeepalives;
    private ScheduledFuture<?> next;

    /** OpenSM's SM state MASTER in a keepalive. */
    static final int MASTER = 3;

    PassRequests(LongPredicate send, LongSupplier clockMs) {
        this.send = send;
        this.clockMs = clockMs;
    }

    /** A keepalive of OpenSM's plug-in: a quiet master that never routed for this daemon is asked for a pass. */
    void keepalive(int smState, int madsOutstanding) {
        synchronized (this) {
            if (!subnetWanted) {
                return;
            }
            idleMasterKeepalives = smState == MASTER && madsOutstanding == 0 ? idleMasterKeepalives + 1 : 0;
            if (idleMasterKeepalives < 2) {
                return;
            }
        }
        schedule(0);
    }

    /** A table was handed to an OpenSM switch's session: a pass must carry it. */
    void handed() {
        handed.incrementAndGet();
        schedule(0);
    }

    /** The handed count so far: read where the answer takes its tables, on the control thread. */
    long handedSoFar() {
        return handed.get();
    }

    /** A routing pass came and was refused before it was read: OpenSM routes by itself, asking again is refused. */
    synchronized void passSeen() {
        subnetWanted = false;
    }

    /** A routing pass came: no request while it is answered. */
    synchronized void passStarted() {
        answering = true;
        subnetWanted = false;
        passAtMs = clockMs.getAsLong();
    }

    /**
     * The pass was answered; {@code coveredUpTo} is the handed count its tables covered, or -1 when it was refused.
     */
    void passEnded(long coveredUpTo) {
        synchronized (this) {
            answering = false;
            covered = Math.max(covered, coveredUpTo);
        }
        schedule(0);
    }

    /** Where the requests stand, for a switch's pending reason. */
    synchronized String describe() {
        long now = clockMs.getAsLong();
        if (channelClosed) {
            return "the plug-in's channel is not open: OpenSM not running, or not with this release's plug-in";
        }
        if (requests == 0) {
            return "no pass asked yet";
        }
        return "asked OpenSM's plug-in for a pass " + (now - askedAtMs) + " ms ago (request " + requests + "); the last "
                + "pass came " + (now - passAtMs) + " ms ago";
    }

    private void schedule(long delayMs) {
        synchronized (this) {
            if (next != null && !next.isDone() && next.getDelay(TimeUnit.MILLISECONDS) <= delayMs) {
                return;
            }
            if (next != null) {
                next.cancel(false);
            }
            try {
                next = timer.schedule(this::ask, delayMs, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                // closed: the provider stops
            }
        }
    }

    private void ask() {
        long request;
        synchronized (this) {
            if (answering || (handed.get() <= covered && !(subnetWanted && idleMasterKeepalives >= 2))) {
                return; // the pass under way carries them, or nothing waits; passEnded looks again
            }
            long now = clockMs.getAsLong();
            long due = Math.max(askedAtMs + (requestAnswered() ? MIN_INTERVAL_MS : ASK_AGAIN_MS),
                    passAtMs + MIN_INTERVAL_MS);
            if (now < due && !channelClosed) {
                reschedule(due - now);
                return;
            }
            request = ++requests;
            askedAtMs = now;
        }
        boolean sent = send.test(request);
        synchronized (this) {
            if (sent != !channelClosed) {
                LOG.info(sent ? "OpenSM's plug-in's channel is open: asking it for routing passes"
                        : "OpenSM's plug-in's channel is not open: the daemon's tables wait for OpenSM's next pass");
            }
            channelClosed = !sent;
            reschedule(sent ? ASK_AGAIN_MS : MIN_INTERVAL_MS);
        }
        LOG.debug("asked OpenSM's plug-in for a routing pass (request {}): {}", request, sent ? "sent" : "no channel");
    }

    /** A pass came since the last request. */
    private boolean requestAnswered() {
        return passAtMs >= askedAtMs;
    }

    private void reschedule(long delayMs) {
        try {
            next = timer.schedule(this::ask, delayMs, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            // closed: the provider stops
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
