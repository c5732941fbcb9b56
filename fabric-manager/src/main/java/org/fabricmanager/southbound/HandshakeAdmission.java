package org.fabricmanager.southbound;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Lets at most {@link TlsAdmissionLimits#atOnce} TLS handshakes run at once on the daemon and admits the
 * others in the order they connected. A TLS handshake costs the daemon a few milliseconds of CPU (a key
 * exchange, one signature, two verifications); when thousands of agents reconnect at once (a daemon
 * restart), serving them all in parallel would finish every handshake late and the retries would repeat
 * the collapse. Served first come, first served, the early ones finish at once and only the tail waits.
 *
 * <p>Every phase has its own bound, and each timer starts where its work starts, so that a connection is
 * never timed out for the time it spent waiting behind others (the reconnect storm this replaced: both
 * ends timed a handshake from the TCP connect while it waited in this queue, and the tail's work was lost):
 * <ul>
 *   <li>the first TLS record: {@link TlsAdmissionLimits#firstByteMs} from the TCP connect
 *       ({@link Rejection#TIMEOUT}); a connection that sends nothing never waits for a slot, let alone holds one
 *       (the guard reads the record's first bytes, then stops reading until the connection is admitted);</li>
 *   <li>waiting for a slot: at most {@link TlsAdmissionLimits#queueLength} connections, unread beyond their
 *       first record; the next one is closed at once, and one whose turn comes after
 *       {@link TlsAdmissionLimits#queueWaitMs} (from its connect) is closed unread (both {@link Rejection#BUSY}:
 *       nothing was sent, the agent backs off and retries). One peer address holds at most
 *       {@link TlsAdmissionLimits#perPeer} slots: its other connections let those of other peers pass. When the
 *       queue is full, a newcomer whose address holds less than {@link TlsAdmissionLimits#queueShare} of it takes
 *       the place of the latest connection of an address holding more (that one is closed, {@link Rejection#BUSY}),
 *       so one address cannot fill the queue against the others, while a single busy address (a simulator, a
 *       fabric's start behind one NAT) still uses the whole queue when nobody else waits;</li>
 *   <li>the TLS handshake: {@link TlsAdmissionLimits#timeoutMs} from admission ({@link Rejection#TIMEOUT});</li>
 *   <li>HELLO to PORT_INFO: {@link SessionHandshake}'s timer, started when the handshake completes.</li>
 * </ul>
 * Such a connection is closed without writing anything: no TLS session exists to carry an ERROR. One
 * instance per server; {@link #gate()} makes the per-connection handler.
 */
final class HandshakeAdmission {
    private final TlsAdmissionLimits limits;
    private final SouthboundRejections rejections;
    private final LongSupplier nanoClock;
    // guarded by this
    private final ArrayDeque<Gate> waiting = new ArrayDeque<>();
    private final Map<InetAddress, Integer> activeByPeer = new HashMap<>();
    private final Map<InetAddress, Integer> waitingByPeer = new HashMap<>();
    /** The peers holding more than their share of the queue, whose latest connection a newcomer may displace. */
    private final Set<InetAddress> overShare = new HashSet<>();
    private int active;

    HandshakeAdmission(TlsAdmissionLimits limits, SouthboundRejections rejections, LongSupplier nanoClock) {
        this.limits = limits;
        this.rejections = rejections;
        this.nanoClock = nanoClock;
    }

    /** The handler of one connection; place it after the {@link TransportGuard}, on a channel created with autoRead off. */
    ChannelInboundHandlerAdapter gate() {
        return new Gate();
    }

    /** Handshakes in progress (admitted, not complete). */
    synchronized int active() {
        return active;
    }

    /** Connections waiting for a handshake slot. */
    synchronized int waiting() {
        return waiting.size();
    }

    /** Whether {@code g} may take a slot now (caller holds the lock). */
    private boolean mayTake(Gate g) {
        return active < limits.atOnce() && activeByPeer.getOrDefault(g.peer, 0) < limits.perPeer();
    }

    /** Takes a slot for {@code g} (caller holds the lock and checked {@link #mayTake}). */
    private void take(Gate g) {
        active++;
        activeByPeer.merge(g.peer, 1, Integer::sum);
    }

    /** Queues {@code g} (caller holds the lock and checked there is room). */
    private void enqueue(Gate g) {
        waiting.add(g);
        if (waitingByPeer.merge(g.peer, 1, Integer::sum) > limits.queueShare()) {
            overShare.add(g.peer);
        }
    }

    /** Counts {@code g} out of the queue it was just removed from (caller holds the lock). */
    private void dequeued(Gate g) {
        Integer left = waitingByPeer.computeIfPresent(g.peer, (p, n) -> n == 1 ? null : n - 1);
        if (left == null || left <= limits.queueShare()) {
            overShare.remove(g.peer);
        }
    }

    /**
     * With the queue full: the latest waiting connection of an address over its share, removed from the queue for
     * {@code newcomer} to take its place, or {@code null} when the newcomer's own address holds its share or no
     * address holds more (caller holds the lock).
     */
    private Gate displaceFor(Gate newcomer) {
        if (overShare.isEmpty() || waitingByPeer.getOrDefault(newcomer.peer, 0) >= limits.queueShare()) {
            return null;
        }
        InetAddress heavy = overShare.iterator().next();
        for (Iterator<Gate> it = waiting.descendingIterator(); it.hasNext(); ) {
            Gate g = it.next();
            if (Objects.equals(g.peer, heavy)) {
                it.remove();
                dequeued(g);
                return g;
            }
        }
        return null;
    }

    private void leave(Gate left) {
        Gate next = null;
        synchronized (this) {
            active--;
            activeByPeer.computeIfPresent(left.peer, (p, n) -> n == 1 ? null : n - 1);
            // the first in line whose peer is under its bound: a peer at its bound does not hold up the others
            for (Iterator<Gate> it = waiting.iterator(); it.hasNext(); ) {
                Gate g = it.next();
                if (mayTake(g)) {
                    it.remove();
                    dequeued(g);
                    take(g);
                    next = g;
                    break;
                }
            }
        }
        if (next != null) {
            next.admit();
        }
    }

    private final class Gate extends ChannelInboundHandlerAdapter {
        private ChannelHandlerContext ctx;
        private long connectedNanos;
        /** The peer's address: its slots are bounded ({@code null}: not an IP peer, counted as one). */
        private InetAddress peer;
        /** Holds one of the {@code atOnce} slots (given back exactly once, by {@link #finish}). */
        private boolean admitted;
        /** The handshake completed, failed, or the connection closed: nothing more to admit. */
        private boolean done;
        private ScheduledFuture<?> timer;

        @Override
        public void channelActive(ChannelHandlerContext context) throws Exception {
            ctx = context;
            connectedNanos = nanoClock.getAsLong();
            SocketAddress remote = context.channel().remoteAddress();
            peer = remote instanceof InetSocketAddress a ? a.getAddress() : null;
            super.channelActive(context);
            // read the first bytes only: the guard stops reading once it has seen a TLS record's header
            timer = context.executor().schedule(this::silent, limits.firstByteMs(), TimeUnit.MILLISECONDS);
            context.channel().config().setAutoRead(true);
        }

        private void silent() {
            if (done) {
                return;
            }
            done = true;
            rejections.record(ctx.channel(), Rejection.TIMEOUT, "sent no TLS record within " + limits.firstByteMs()
                    + " ms of connecting");
            ctx.close();
        }

        /** The guard saw the first TLS record (on the event loop): wait for a slot, or take one. */
        private void tlsRecordArrived() {
            if (done) {
                return;
            }
            cancelTimer();
            boolean now = false;
            boolean full = false;
            Gate displaced = null;
            synchronized (HandshakeAdmission.this) {
                if (mayTake(this)) {
                    take(this);
                    now = true;
                } else if (waiting.size() < limits.queueLength()) {
                    enqueue(this);
                } else if ((displaced = displaceFor(this)) != null) {
                    enqueue(this);
                } else {
                    full = true;
                }
            }
            if (displaced != null) {
                displaced.displaced();
            }
            if (now) {
                admit();
            } else if (full) {
                done = true;
                rejections.record(ctx.channel(), Rejection.BUSY, "the queue of " + limits.queueLength()
                        + " connections waiting for a TLS handshake slot is full (" + limits.atOnce()
                        + " handshakes at once); closed unread");
                ctx.close();
            }
        }

        /** Removed from the full queue for a connection of a less busy address: closed unread (any thread). */
        void displaced() {
            ctx.executor().execute(() -> {
                if (done) {
                    return;
                }
                done = true;
                rejections.record(ctx.channel(), Rejection.BUSY, "the TLS handshake queue is full and this address holds"
                        + " more than its share (" + limits.queueShare() + " of " + limits.queueLength()
                        + "); closed unread for another address's connection");
                ctx.close();
            });
        }

        /** Starts the TLS handshake once a slot is taken for it; on the channel's event loop. */
        void admit() {
            ctx.executor().execute(() -> {
                admitted = true;
                if (done || !ctx.channel().isActive()) {
                    finish();
                    return;
                }
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - connectedNanos);
                if (waitedMs > limits.queueWaitMs()) {
                    finish();
                    rejections.record(ctx.channel(), Rejection.BUSY, "waited " + waitedMs + " ms for a TLS handshake "
                            + "slot (at most " + limits.queueWaitMs() + "); closed unread");
                    ctx.close();
                    return;
                }
                timer = ctx.executor().schedule(this::timedOut, limits.timeoutMs(), TimeUnit.MILLISECONDS);
                TransportGuard guard = ctx.pipeline().get(TransportGuard.class);
                if (guard != null) {
                    guard.startTls();
                }
                ctx.channel().config().setAutoRead(true);
            });
        }

        private void timedOut() {
            if (done) {
                return;
            }
            finish();
            rejections.record(ctx.channel(), Rejection.TIMEOUT, "TLS handshake not complete " + limits.timeoutMs()
                    + " ms after its admission");
            ctx.close();
        }

        private void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }

        /** The connection needs its slot no more; gives it back once. */
        private void finish() {
            done = true;
            cancelTimer();
            if (admitted) {
                admitted = false;
                leave(this);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext context, Object evt) throws Exception {
            if (evt == TransportGuard.TLS_RECORD) {
                tlsRecordArrived();
                return;
            }
            if (evt instanceof SslHandshakeCompletionEvent) {
                finish();
            }
            super.userEventTriggered(context, evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext context) throws Exception {
            boolean wasWaiting;
            synchronized (HandshakeAdmission.this) {
                wasWaiting = waiting.remove(this);
                if (wasWaiting) {
                    dequeued(this);
                }
            }
            if (wasWaiting) {
                done = true;
            } else {
                finish();
            }
            super.channelInactive(context);
        }
    }
}
