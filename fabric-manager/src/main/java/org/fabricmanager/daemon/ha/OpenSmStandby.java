package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.opensm.OpenSmAnswer;
import org.fabricmanager.daemon.opensm.OpenSmSocket;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.opensm.Refusal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standby's end of OpenSM's plug-in: the manager follows OpenSM's master SM. Each management node runs OpenSM and a
 * member of the group, with the same {@code opensm.socket}; only the master SM sweeps and calls its routing engine, so
 * the plug-in that matters may be next to a standby. This listener takes that plug-in's connection on the same socket,
 * with the provider's admission checks ({@link OpenSmSocket}), and answers every SUBNET with REFUSED (OpenSM falls back
 * for that sweep) and a reason; the first one asks the leader to hand its leadership over to this member
 * ({@link Group#transferHere}). While that transfer runs the socket is unbound, and the REFUSED says "leadership is
 * moving here", on which the plug-in waits for the socket to listen again and then asks OpenSM to re-route: this
 * member's manager (its {@code OpenSmProvider}) binds it once the member leads, and answers the re-route's subnet.
 * <p>
 * Bounded: one transfer in flight; after a failed one, passes are refused with its reason for {@link #RETRY_MS}
 * before another is asked (the socket stays bound); a member that led within {@link #HOLD_MS} asks only once that
 * time is over, so that two members whose OpenSMs both sweep for a moment do not hand the leadership back and forth,
 * and one that knows no leader asks once an election had time to end: meanwhile its socket is unbound, so the
 * plug-in re-routes when it is back.
 */
final class OpenSmStandby {
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmStandby.class);
    /** The phrase of a REFUSED coded {@link Refusal#MOVING}, for the operator reading OpenSM's log. */
    static final String MOVING = "leadership is moving here";
    /** A member that led this recently asks for no transfer. */
    static final long HOLD_MS = 30_000;
    /** After a failed transfer, passes are refused with its reason for this long before another is asked. */
    static final long RETRY_MS = 10_000;
    /** A bind that failed is tried again after this long. */
    private static final long REBIND_MS = 1_000;
    /**
     * After a transfer done (or while elected), the socket stays unbound this long for this member's manager to bind
     * it; a member that lost the leadership again meanwhile binds it again then.
     */
    static final long SETTLE_MS = 10_000;
    /** At most one log line per this long for refusals of the same kind (one per OpenSM heavy sweep otherwise). */
    private static final long LOG_EVERY_MS = 10_000;

    /** What the listener asks of the Raft member. */
    interface Group {
        HaNode.View view() throws IOException;

        /** Asks {@code leaderId} to hand over to this member; blocks; {@code null} once done, else why not. */
        String transferHere(String leaderId) throws IOException;
    }

    /** What one pass gets: the reason sent, whether a transfer is asked, whether the socket is unbound after. */
    private record Decision(String reason, boolean request, boolean unbind, String kind) {
    }

    /** A transfer asked: of whom, for which pass, when (ms). */
    private record Request(String leaderId, long seq, long atMs) {
    }

    private final OpenSm config;
    private final String nodeId;
    private final Group group;
    private final LeadershipTransfers counts;
    private final LongSupplier clockMs;
    /** How long after a transfer was asked leadership arriving here is put down to it. */
    private final long attributeMs;

    // guarded by this
    private OpenSmSocket socket;
    private long rebindAtMs;
    private String bindFailure = "";
    private Request inFlight;
    /** The last transfer asked, until this member's manager started or it is too old to explain a leadership. */
    private Request lastRequest;
    private long failedUntilMs = Long.MIN_VALUE;
    private String failure = "";
    private long ledAtMs = Long.MIN_VALUE / 2;
    private String lastLogged = "";
    private long lastLogMs = Long.MIN_VALUE / 2;

    /**
     * @param transferTimeoutMs how long a transfer may take (the leader's wait for this member to catch up)
     * @param clockMs           milliseconds, for the hold and retry times
     */
    OpenSmStandby(OpenSm config, String nodeId, Group group, LeadershipTransfers counts,
                  long transferTimeoutMs, LongSupplier clockMs) {
        this.config = config;
        this.nodeId = nodeId;
        this.group = group;
        this.counts = counts;
        this.clockMs = clockMs;
        this.attributeMs = transferTimeoutMs + 30_000;
    }

    /** The listener of member {@code node} on {@code opensm}'s socket, in a group of that election timeout. */
    static OpenSmStandby of(OpenSm opensm, int electionTimeoutMs, HaNode node) {
        long timeoutMs = Math.max(3_000L, 5L * electionTimeoutMs);
        return new OpenSmStandby(opensm, node.nodeId(), new Group() {
            @Override
            public HaNode.View view() throws IOException {
                return node.view();
            }

            @Override
            public String transferHere(String leaderId) throws IOException {
                return node.transferLeadershipHere(leaderId, timeoutMs);
            }
        }, node.transfers(), timeoutMs, System::currentTimeMillis);
    }

    /** Binds the socket unless it is bound, a transfer is in flight, or its time has not come. */
    synchronized void open() {
        long now = clockMs.getAsLong();
        if (socket != null || inFlight != null || now < rebindAtMs) {
            return;
        }
        try {
            socket = OpenSmSocket.listen(config, "OpenSM standby", new Frames());
            bindFailure = "";
            LOG.info("ha standby: OpenSM's plug-in socket {} refuses routing passes and brings the leadership here",
                    socket.path());
        } catch (ConfigException e) {
            rebindAtMs = now + REBIND_MS;
            if (!e.getMessage().equals(bindFailure)) {
                bindFailure = e.getMessage();
                LOG.warn("ha standby: {}; retrying every {} ms", e.getMessage(), REBIND_MS);
            }
        }
    }

    /**
     * Unbinds the socket because this member's manager takes it (or the member stops); from now on, and for
     * {@link #HOLD_MS} after the last call, the member counts as having just led.
     */
    synchronized void release() {
        ledAtMs = clockMs.getAsLong();
        unbind();
    }

    /**
     * Once this member's manager started: what to record as its event when the leadership came here because of a
     * transfer this listener asked, else {@code null}.
     */
    synchronized String movedHere() {
        Request r = lastRequest;
        lastRequest = null;
        if (r == null || clockMs.getAsLong() - r.atMs() > attributeMs) {
            return null;
        }
        counts.record(LeadershipTransfers.Outcome.DONE);
        return "leadership moved to " + nodeId + " from " + r.leaderId() + " because OpenSM's master SM runs next to it: its"
                + " routing pass " + r.seq() + " reached " + nodeId + "'s standby socket " + config.socket();
    }

    /** Whether the socket is bound now (tests). */
    synchronized boolean listening() {
        return socket != null;
    }

    private void unbind() {
        if (socket != null) {
            socket.close();
            socket = null;
        }
    }

    private void subnet(OpenSmSocket.Reply reply, OpenSmWire.Subnet subnet) throws IOException {
        HaNode.View v = group.view();
        Decision d = decide(v, subnet.seq());
        // the plug-in takes the socket back (waits for it, then re-routes) only when it is unbound for the manager
        reply.send(new OpenSmAnswer.Refused(subnet.seq(), d.unbind() ? Refusal.MOVING : Refusal.NOT_READY, d.reason()));
        log(subnet.seq(), d);
        if (d.request()) {
            Thread t = new Thread(() -> transfer(v.leaderId()), "fm-ha-opensm-transfer");
            t.setDaemon(true);
            t.start();
        }
        if (d.unbind()) {
            synchronized (this) {
                unbind();
            }
        }
    }

    private synchronized Decision decide(HaNode.View v, long seq) {
        long now = clockMs.getAsLong();
        String falls = "; OpenSM falls back for this sweep";
        if (v.leading()) {
            // elected, manager not started yet: it binds the socket soon, and the plug-in re-routes then
            rebindAtMs = now + SETTLE_MS;
            return new Decision("this manager was just elected; " + MOVING + " (its manager is starting)" + falls, false,
                    true, "elected");
        }
        if (inFlight != null) {
            counts.record(LeadershipTransfers.Outcome.HELD);
            return new Decision("this manager is a standby; " + MOVING + " from " + inFlight.leaderId() + " (asked "
                    + (now - inFlight.atMs()) + " ms ago)" + falls, false, true, "in flight");
        }
        if (v.leaderId() == null) {
            // asked again once an election had time to end: the plug-in re-routes when the socket is back
            counts.record(LeadershipTransfers.Outcome.HELD);
            rebindAtMs = now + 2 * REBIND_MS;
            return new Decision("this manager is a standby and no leader is known in term " + v.term() + " (an election"
                    + " is under way); " + MOVING + " once a leader is known" + falls, false, true, "no leader");
        }
        if (now - ledAtMs < HOLD_MS) {
            // no back and forth between two members whose OpenSMs both sweep: asked again when the hold ends
            counts.record(LeadershipTransfers.Outcome.HELD);
            rebindAtMs = ledAtMs + HOLD_MS;
            return new Decision("this manager is a standby; it led until " + (now - ledAtMs) / 1000 + " s ago, so "
                    + MOVING + " from " + v.leaderId() + " only " + HOLD_MS / 1000 + " s after that (no back and forth"
                    + " between members)" + falls, false, true, "held");
        }
        if (now < failedUntilMs) {
            counts.record(LeadershipTransfers.Outcome.HELD);
            return new Decision("this manager is a standby; moving the leadership here from " + v.leaderId() + " failed ("
                    + failure + "); asked again in " + (failedUntilMs - now + 999) / 1000 + " s" + falls, false, false,
                    "failed");
        }
        inFlight = new Request(v.leaderId(), seq, now);
        lastRequest = inFlight;
        counts.record(LeadershipTransfers.Outcome.REQUESTED);
        return new Decision("this manager is a standby; " + MOVING + " from " + v.leaderId() + falls, true, true,
                "requested");
    }

    /** Asks for the leadership on its own thread: OpenSM's routing pass has its answer already. */
    private void transfer(String leaderId) {
        long begin = clockMs.getAsLong();
        String why;
        try {
            why = group.transferHere(leaderId);
        } catch (IOException | RuntimeException e) {
            why = e.getMessage() == null ? e.toString() : e.getMessage();
        }
        synchronized (this) {
            long now = clockMs.getAsLong();
            inFlight = null;
            if (why == null) {
                // the manager binds the socket once it starts; if it never does (lost the leadership at once), rebind
                rebindAtMs = now + SETTLE_MS;
                LOG.info("ha: {} took the leadership from {} in {} ms because OpenSM's master SM routes through this host",
                        nodeId, leaderId, now - begin);
                return;
            }
            counts.record(LeadershipTransfers.Outcome.FAILED);
            lastRequest = null; // a leadership that comes later is not put down to OpenSM
            failure = why.length() > 300 ? why.substring(0, 300) + "..." : why;
            failedUntilMs = now + RETRY_MS;
            rebindAtMs = now;
            LOG.warn("ha: {} could not take the leadership from {} for OpenSM's master SM: {}; its routing passes are"
                    + " refused with this reason for {} s, then it asks again", nodeId, leaderId, failure, RETRY_MS / 1000);
        }
    }

    /** One line per kind of refusal, at most one per {@link #LOG_EVERY_MS} for the same kind. */
    private void log(long seq, Decision d) {
        long now = clockMs.getAsLong();
        synchronized (this) {
            if (d.kind().equals(lastLogged) && now - lastLogMs < LOG_EVERY_MS) {
                return;
            }
            lastLogged = d.kind();
            lastLogMs = now;
        }
        LOG.warn("OpenSM subnet {} refused on standby {}: {}", seq, nodeId, d.reason());
    }

    /** Unbinds the socket for good. */
    synchronized void close() {
        unbind();
    }

    /** The socket's frames: SUBNET refused (and maybe a transfer asked), EVENT ignored (the manager's to record). */
    private final class Frames implements OpenSmSocket.Handler {
        @Override
        public void subnet(OpenSmSocket.Reply reply, OpenSmWire.Subnet subnet, double readMs) throws IOException {
            OpenSmStandby.this.subnet(reply, subnet);
        }

        @Override
        public void event(OpenSmWire.Event event) {
            // the master SM's events reach the leader's socket once it routes there; a standby keeps none
        }
    }
}
