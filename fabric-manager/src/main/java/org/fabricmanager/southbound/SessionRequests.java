package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.fabricmanager.southbound.AgentSession.State;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Counters;
import org.fabricmanager.southbound.Message.CountersRequest;
import org.fabricmanager.southbound.Message.EchoRequest;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.PendingRequests.Kind;
import org.fabricmanager.southbound.PendingRequests.Request;

/**
 * The daemon's requests to one agent and their answers: LFT batches (and blocks staged ahead), failure-detector
 * configurations ({@link DetectorRequests}) and probes, each sent on the session's event loop under the session's
 * txids and tracked in one {@link PendingRequests} table until its answer, its timeout or the session's close.
 * The requests may be made from any thread; the answers come on the event loop.
 */
final class SessionRequests {
    private final AgentSession session;
    private final PendingRequests table = new PendingRequests();
    private final DetectorRequests detector;
    private final BatchFrames batches;

    SessionRequests(AgentSession session) {
        this.session = session;
        this.detector = new DetectorRequests(session, table);
        this.batches = new BatchFrames(session::takeTxid);
    }

    CompletableFuture<Long> probe(long timeoutMs) {
        CompletableFuture<Long> future = new CompletableFuture<>();
        whenActive(future, ch -> {
            int txid = session.takeTxid();
            Request<Long> p = table.add(Kind.PROBE, future, txid, txid,
                    table.failing("no echo reply within " + timeoutMs + " ms"));
            ch.writeAndFlush(new EchoRequest(txid, System.nanoTime()));
            table.expireAfter(p, ch.eventLoop(), timeoutMs);
        });
        return future;
    }

    /**
     * See {@link SwitchSession#requestCounters}: ports 1..{@code portCount} in as many requests as the daemon's receive
     * limit needs (one at the default limit), each answered by its own PORT_COUNTERS.
     */
    CompletableFuture<PortCounters> counters(int portCount, int maxFrame, long timeoutMs) {
        int perFrame = PortCounters.portsPerFrame(maxFrame);
        List<CompletableFuture<PortCounters>> parts = new ArrayList<>();
        for (int first = 1; first <= portCount; first += perFrame) {
            int from = first;
            int to = Math.min(portCount, first + perFrame - 1);
            CompletableFuture<PortCounters> part = new CompletableFuture<>();
            whenActive(part, ch -> {
                int txid = session.takeTxid();
                Request<PortCounters> r = table.add(Kind.COUNTERS, part, txid, txid,
                        table.failing("no PORT_COUNTERS within " + timeoutMs + " ms"));
                ch.writeAndFlush(new CountersRequest(txid, from, to));
                table.expireAfter(r, ch.eventLoop(), timeoutMs);
            });
            parts.add(part.thenApply(c -> {
                if (c.firstPort() != from || c.lastPort() > to) {
                    // the agent answered other ports than asked: nothing of it is kept
                    throw new CompletionException(new RequestFailedException(session + " answered ports "
                            + c.firstPort() + ".." + c.lastPort() + " when asked for " + from + ".." + to, false));
                }
                return c;
            }));
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
            long[] all = new long[portCount * PortCounters.FIELDS];
            Arrays.fill(all, PortCounters.UNAVAILABLE);
            for (CompletableFuture<PortCounters> part : parts) {
                part.join().copyInto(all);
            }
            return new PortCounters(1, all);
        });
    }

    /** See {@link SwitchSession#sendBatch}; {@code managerTerm} goes into the commit. */
    CompletableFuture<CommitAck> sendBatch(LftBatch batch, long timeoutMs, long managerTerm) {
        CompletableFuture<CommitAck> future = new CompletableFuture<>();
        whenActive(future, ch -> {
            BatchFrames.Encoded frames = batches.writeBatch(ch, batch, session.blockRunEntries(), managerTerm);
            Request<CommitAck> p = table.add(Kind.BATCH, future, frames.firstTxid(), frames.commitTxid(),
                    table.failing("no ACK for the commit of v" + batch.version() + " within " + timeoutMs + " ms"));
            ch.writeAndFlush(frames.last());
            table.expireAfter(p, ch.eventLoop(), timeoutMs);
        });
        return future;
    }

    void stage(LftBatch batch) {
        // nothing to complete: a refused block makes the commit refused, and a closed session loses the staging
        whenActive(new CompletableFuture<Void>(), ch -> batches.writeStaged(ch, batch, session.blockRunEntries()));
    }

    CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks, long timeoutMs) {
        return detector.send(chunks.size(), chunks::get, Message.DetectorConfig::withTxid, "DETECTOR_CONFIG", timeoutMs);
    }

    CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        return detector.send(1, i -> window, Message.DetectorWindow::withTxid, "DETECTOR_WINDOW", timeoutMs);
    }

    // ---- answers (event loop) -------------------------------------------------------------------

    /** The agent's ACK of a commit: false when it answers no pending batch. */
    boolean committed(CommitAck ack) {
        Request<CommitAck> p = table.find(Kind.BATCH, ack.txid());
        if (p != null && p.endsWith(ack.txid())) {
            table.complete(p, ack);
            return true;
        }
        return false;
    }

    /** An ECHO_REPLY taking {@code rttNanos}: completes the probe it answers, if any. */
    void echoed(int txid, long rttNanos) {
        Request<Long> probe = table.find(Kind.PROBE, txid);
        if (probe != null) {
            table.complete(probe, rttNanos);
        }
    }

    /**
     * A PORT_COUNTERS: completes the request it answers; false when it answers none (the answer is then dropped:
     * only what the daemon asked for reaches the store, so an agent cannot report faster than the daemon polls).
     */
    boolean counted(Counters answer) {
        Request<PortCounters> r = table.find(Kind.COUNTERS, answer.txid());
        if (r == null) {
            return false;
        }
        table.complete(r, answer.counters());
        return true;
    }

    /** An ACK of any other request: false when it answers no pending configuration. */
    boolean acknowledged(Message.Ack ack) {
        return detector.acknowledged(ack);
    }

    /** An ERROR from the agent: fails the batch or answers the configuration it is about; false when none. */
    boolean refused(ErrorReport error) {
        Request<CommitAck> p = table.find(Kind.BATCH, error.txid());
        if (p != null) {
            table.fail(p, new AgentErrorException(error));
        }
        boolean config = detector.refused(error);
        Request<PortCounters> counters = table.find(Kind.COUNTERS, error.txid());
        if (counters != null) {
            table.fail(counters, new AgentErrorException(error));
        }
        return p != null || config || counters != null;
    }

    /** The session closed: every pending request ends by its rule. */
    void closeAll(String why) {
        table.closeAll(why);
    }

    /**
     * Runs {@code request} on the session's event loop if the session is active there; otherwise fails
     * {@code future} with a {@link RequestFailedException} saying why (not connected, or the state it is in).
     */
    private void whenActive(CompletableFuture<?> future, ActiveRequest request) {
        Channel ch = session.channel();
        if (ch == null) {
            future.completeExceptionally(new RequestFailedException(session + " is not connected", false));
            return;
        }
        if (!AgentSession.onLoopOf(ch, () -> {
            State state = session.state();
            if (state != State.ACTIVE) {
                future.completeExceptionally(new RequestFailedException(session + " is " + state, false));
                return;
            }
            request.send(ch);
        })) {
            future.completeExceptionally(new RequestFailedException(session + " is closing (the daemon stops)", false));
        }
    }

    /** A request's sending, on the event loop of the active session's channel. */
    private interface ActiveRequest {
        void send(Channel channel);
    }
}
