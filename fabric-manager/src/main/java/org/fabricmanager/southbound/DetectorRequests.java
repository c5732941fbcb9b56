package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import org.fabricmanager.southbound.AgentSession.State;
import org.fabricmanager.southbound.Message.Ack;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.PendingRequests.Kind;
import org.fabricmanager.southbound.PendingRequests.Request;

/**
 * A session's failure-detector configurations in flight (DETECTOR_CONFIG chunks or one DETECTOR_WINDOW), in the
 * session's {@link PendingRequests} with their own ending: never a failure, but a {@link DetectorConfigReply}.
 * When the wait ends without an answer, the configuration is answered NO_ANSWER and still listened for, so that an
 * answer that comes later completes the reply's {@link DetectorConfigReply#late()}; at most one is: a newer
 * configuration supersedes it. Confined to the session's event loop but for {@link #send}.
 */
final class DetectorRequests {
    private final AgentSession session;
    private final PendingRequests requests;
    /** The configuration whose wait ended without an answer, still listened for; {@code null} when none. */
    private Request<DetectorConfigReply> lateConfig;

    DetectorRequests(AgentSession session, PendingRequests requests) {
        this.session = session;
        this.requests = requests;
    }

    /**
     * Sends {@code count} frames of one configuration under the session's txids, flushing once.
     *
     * @return completed (never exceptionally) with the agent's answer: RUNNING when it acknowledges the
     *         last frame (sent once its member runs), NO_DETECTOR on a non-fatal ERROR answering any
     *         frame, NO_ANSWER when the session closes or nothing comes within {@code timeoutMs}
     */
    <M extends Message> CompletableFuture<DetectorConfigReply> send(int count, IntFunction<M> frame,
                                                                  BiFunction<M, Integer, M> withTxid, String what,
                                                                  long timeoutMs) {
        CompletableFuture<DetectorConfigReply> future = new CompletableFuture<>();
        Channel ch = session.channel();
        if (ch == null || count == 0) {
            future.complete(noAnswer(session + " is not connected"));
            return future;
        }
        boolean taken = AgentSession.onLoopOf(ch, () -> {
            State state = session.state();
            if (state != State.ACTIVE) {
                future.complete(noAnswer(session + " is " + state));
                return;
            }
            supersedeLateConfig();
            int first = 0;
            int last = 0;
            for (int i = 0; i < count; i++) {
                last = session.takeTxid();
                first = i == 0 ? last : first;
                ch.write(withTxid.apply(frame.apply(i), last));
            }
            Request<DetectorConfigReply> p = requests.add(Kind.DETECTOR_CONFIG, future, first, last,
                    new Answer("no answer to " + what + " within " + timeoutMs + " ms"));
            ch.flush();
            requests.expireAfter(p, ch.eventLoop(), timeoutMs);
        });
        if (!taken) {
            future.complete(noAnswer(session + " is closing (the daemon stops)"));
        }
        return future;
    }

    /** An ACK from the agent: completes the configuration it ends; false when it answers none. */
    boolean acknowledged(Ack ack) {
        Request<DetectorConfigReply> c = requests.find(Kind.DETECTOR_CONFIG, ack.txid());
        if (c != null && (ack.ackedType() == MessageType.DETECTOR_CONFIG || ack.ackedType() == MessageType.DETECTOR_WINDOW)
                && c.endsWith(ack.txid())) {
            finish(c, DetectorConfigReply.RUNNING);
        }
        return c != null;
    }

    /** An ERROR from the agent: answers the configuration it is about with NO_DETECTOR; false when none. */
    boolean refused(ErrorReport error) {
        Request<DetectorConfigReply> c = requests.find(Kind.DETECTOR_CONFIG, error.txid());
        if (c != null) {
            finish(c, new DetectorConfigReply(DetectorConfigReply.Outcome.NO_DETECTOR,
                    error.errorCode().map(Enum::name).orElse("error " + error.code()) + ": " + error.message()));
        }
        return c != null;
    }

    /** A newer configuration replaces the one still listened for after its wait: that one will not be answered. */
    private void supersedeLateConfig() {
        if (lateConfig != null) {
            finish(lateConfig, noAnswer("superseded by a newer configuration"));
        }
    }

    /** Completes a configuration's answer (in time or late) once. */
    private void finish(Request<DetectorConfigReply> c, DetectorConfigReply reply) {
        if (c == lateConfig) {
            lateConfig = null;
        }
        requests.complete(c, reply);
    }

    private static DetectorConfigReply noAnswer(String why) {
        return new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER, why);
    }

    /** How a configuration ends without its answer: NO_ANSWER, listened for late after its wait. */
    private final class Answer implements PendingRequests.Ending<DetectorConfigReply> {
        private final String timeout;

        Answer(String timeout) {
            this.timeout = timeout;
        }

        /** The wait ended: NO_ANSWER, but its txids stay listened for (a late configuration). */
        @Override
        public void timedOut(Request<DetectorConfigReply> p) {
            CompletableFuture<DetectorConfigReply> late = new CompletableFuture<>();
            requests.complete(p, new DetectorConfigReply(DetectorConfigReply.Outcome.NO_ANSWER, timeout, late));
            State state = session.state();
            if (state != State.ACTIVE) {
                late.complete(noAnswer(session + " is " + state));
                return;
            }
            supersedeLateConfig();
            lateConfig = requests.add(Kind.DETECTOR_CONFIG, late, p.firstTxid(), p.lastTxid(), this);
        }

        @Override
        public void closed(Request<DetectorConfigReply> p, String why) {
            finish(p, noAnswer(why));
        }
    }
}
