package org.fabricmanager.southbound;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.southbound.Message.CommitAck;

/**
 * The daemon's requests in flight on one session, keyed by transaction id: each request owns a run of txids
 * (a batch its blocks' and its commit's, a detector configuration its chunks', a probe one), completes a future
 * once, and ends without its answer by the rules it was added with ({@link Ending}): on its timeout, and when the
 * session closes. A {@link Kind} types the answer, so that an answer completes only a request of its kind.
 *
 * <p>Confined to the session's event loop. A session has a handful of requests in flight (a batch or two, a
 * configuration, a probe), so a list scanned by txid range is both the simplest and the cheapest table.
 */
final class PendingRequests {

    /** What a request waits for, a typed key: {@code T} is the value its future completes with. */
    static final class Kind<T> {
        /** An LFT batch: completed by the ACK of its commit, failed by an ERROR about any of its frames. */
        static final Kind<CommitAck> BATCH = new Kind<>("batch");
        /** A DETECTOR_CONFIG or DETECTOR_WINDOW: answered by the ACK of its last frame or an ERROR about any. */
        static final Kind<DetectorConfigReply> DETECTOR_CONFIG = new Kind<>("detector configuration");
        /** An ECHO_REQUEST of {@link SwitchSession#probe}: completed by its ECHO_REPLY with the round trip. */
        static final Kind<Long> PROBE = new Kind<>("probe");
        /** A PORT_COUNTERS_REQUEST: completed by its PORT_COUNTERS, failed by an ERROR about it. */
        static final Kind<PortCounters> COUNTERS = new Kind<>("port counters");
        /** The kinds in the order a closing session ends them. */
        static final List<Kind<?>> ALL = List.of(BATCH, DETECTOR_CONFIG, PROBE, COUNTERS);

        private final String name;

        private Kind(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** How a request ends without its answer: the rules differ by request, so they come with each one. */
    interface Ending<T> {
        /** The request's timeout passed while it was pending. */
        void timedOut(Request<T> request);

        /** The session closed while the request was pending; {@code why} names the session. */
        void closed(Request<T> request, String why);
    }

    /** One request in flight. */
    static final class Request<T> {
        private final Kind<T> kind;
        private final CompletableFuture<T> future;
        private final int firstTxid;
        private final int lastTxid;
        private final Ending<T> ending;
        private ScheduledFuture<?> timer;
        private boolean done;

        private Request(Kind<T> kind, CompletableFuture<T> future, int firstTxid, int lastTxid, Ending<T> ending) {
            this.kind = kind;
            this.future = future;
            this.firstTxid = firstTxid;
            this.lastTxid = lastTxid;
            this.ending = ending;
        }

        /** Whether {@code txid} is one of this request's frames. */
        boolean covers(int txid) {
            // txids count up from firstTxid to lastTxid, wrapping past 0 (never used): compare as offsets
            return Integer.toUnsignedLong(txid - firstTxid) <= Integer.toUnsignedLong(lastTxid - firstTxid);
        }

        /** Whether {@code txid} is the request's last frame, the one its success answers (a commit, a last chunk). */
        boolean endsWith(int txid) {
            return txid == lastTxid;
        }

        int firstTxid() {
            return firstTxid;
        }

        int lastTxid() {
            return lastTxid;
        }

        boolean done() {
            return done;
        }
    }

    private final List<Request<?>> requests = new ArrayList<>();

    /** Adds a request for the txids {@code firstTxid} up to {@code lastTxid}, without a timeout yet. */
    <T> Request<T> add(Kind<T> kind, CompletableFuture<T> future, int firstTxid, int lastTxid, Ending<T> ending) {
        Request<T> r = new Request<>(kind, future, firstTxid, lastTxid, ending);
        requests.add(r);
        return r;
    }

    /** Ends {@code r} by its {@link Ending#timedOut} rule unless it is answered within {@code timeoutMs}. */
    <T> void expireAfter(Request<T> r, EventExecutor loop, long timeoutMs) {
        r.timer = loop.schedule(() -> {
            if (!r.done) {
                r.ending.timedOut(r);
            }
        }, timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** The pending request of {@code kind} one of whose frames used {@code txid}, or {@code null}. */
    @SuppressWarnings("unchecked") // the kind is the request's type witness
    <T> Request<T> find(Kind<T> kind, int txid) {
        for (Request<?> r : requests) {
            if (r.kind == kind && r.covers(txid)) {
                return (Request<T>) r;
            }
        }
        return null;
    }

    /** Completes {@code r} with {@code value} once: forgets it, stops its timer, then completes its future. */
    <T> void complete(Request<T> r, T value) {
        if (forget(r)) {
            r.future.complete(value);
        }
    }

    /** Fails {@code r} with {@code failure} once, as {@link #complete} does. */
    <T> void fail(Request<T> r, Throwable failure) {
        if (forget(r)) {
            r.future.completeExceptionally(failure);
        }
    }

    /** A {@link Ending} that fails the request: {@code timeoutMessage} on its timeout, the session's closing after. */
    <T> Ending<T> failing(String timeoutMessage) {
        return new Ending<>() {
            @Override
            public void timedOut(Request<T> request) {
                fail(request, new RequestFailedException(timeoutMessage, true));
            }

            @Override
            public void closed(Request<T> request, String why) {
                fail(request, new RequestFailedException(why, false));
            }
        };
    }

    /** Ends every pending request by its {@link Ending#closed} rule, kind by kind. */
    void closeAll(String why) {
        for (Kind<?> kind : Kind.ALL) {
            for (Request<?> r : new ArrayList<>(requests)) {
                if (r.kind == kind) {
                    closed(r, why);
                }
            }
        }
    }

    private static <T> void closed(Request<T> r, String why) {
        if (!r.done) {
            r.ending.closed(r, why);
        }
    }

    private boolean forget(Request<?> r) {
        if (r.done) {
            return false;
        }
        r.done = true;
        requests.remove(r);
        if (r.timer != null) {
            r.timer.cancel(false);
        }
        return true;
    }
}
