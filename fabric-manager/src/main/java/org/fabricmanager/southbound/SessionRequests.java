package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.southbound.AgentSession.State;
import org.fabricmanager.southbound.Message.CommitAck;
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
        return p != null || config;
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
