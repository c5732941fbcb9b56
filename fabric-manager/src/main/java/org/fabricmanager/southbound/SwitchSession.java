package org.fabricmanager.southbound;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;

/**
 * One switch agent's session as the daemon's managers use it: its identity, the answers to its
 * handshake, and the requests the daemon sends it. {@link AgentSession} is the Netty implementation;
 * the managers' unit tests use their own. Every method may be called from any thread.
 */
public interface SwitchSession {

    /** A number unique to this session within the JVM, for logs and bookkeeping. */
    long id();

    /** The switch's GUID, or 0 before HELLO. */
    long guid();

    /** The HELLO this session sent, or {@code null} before it. */
    Hello hello();

    /** Where the agent connects from, or {@code null}. */
    SocketAddress remoteAddress();

    /** The last echo round-trip time in nanoseconds, or -1 before the first reply. */
    long lastRttNanos();

    /**
     * Sends an ECHO_REQUEST now, for a fresh sign of life: the reply can only come from an agent that ran after
     * this call, which traffic received earlier (already in the socket buffer, or read late by a busy daemon)
     * cannot prove.
     *
     * @return completed with the round trip in nanoseconds when the agent answers; failed with
     *         {@link RequestFailedException} when nothing comes within {@code timeoutMs} or the session closes
     */
    CompletableFuture<Long> probe(long timeoutMs);

    /**
     * Asks the agent for its ports' counters (PORT_COUNTERS_REQUEST, in as many requests as the daemon's receive limit
     * needs), if its HELLO set {@link Protocol#FEATURE_PORT_COUNTERS}.
     *
     * @return completed with the counters of ports 1..portCount; failed with {@link RequestFailedException} when the
     *         agent reports none, nothing comes within {@code timeoutMs} or the session closes, and with
     *         {@link AgentErrorException} when the agent cannot read them now
     */
    default CompletableFuture<PortCounters> requestCounters(long timeoutMs) {
        return CompletableFuture.failedFuture(new RequestFailedException(this + " reports no port counters", false));
    }

    /** Completes the handshake's GUID check: the agent may send its PORT_INFO. */
    void acceptHello(long daemonId);

    /** Acknowledges a request of the agent (PORT_INFO). */
    void acknowledge(int txid, MessageType type);

    /** Sends a fatal ERROR about {@code about} (or none) and closes. */
    void reject(ErrorCode code, Message about, String message);

    /** Closes the session (the listener hears of it once). */
    void close(String reason);

    /** What the session can do and what its end means. */
    default SessionCapabilities capabilities() {
        return SessionCapabilities.AGENT;
    }

    /**
     * Sends the blocks of {@code batch} and its commit.
     *
     * @return the agent's ACK of the commit; failed with {@link AgentErrorException} when the agent refuses,
     *         {@link RequestFailedException} on timeout or when the session closes
     */
    CompletableFuture<CommitAck> sendBatch(LftBatch batch, long timeoutMs);

    /**
     * Sends the blocks of {@code batch} without their commit (nor its rules): the agent stages them until a
     * {@link #sendBatch} of the same version commits them with {@link LftBatch#stagedAhead} counting them, or a block
     * of another version discards them. No answer comes unless the agent refuses a block, which its commit then
     * reports (a refused commit).
     */
    void stage(LftBatch batch);

    /**
     * Most entries {@link #sendBatch} puts in one frame: above 64 when the agent stages LFT_BLOCKS runs (HELLO
     * feature {@link Protocol#FEATURE_LFT_RUNS}), 64 (one LFT_BLOCK per block) otherwise. For byte counts.
     */
    default int blockRunEntries() {
        return Message.LftBlock.SIZE;
    }

    /**
     * Sends a failure-detector configuration in chunks.
     *
     * @return completed (never exceptionally) with the agent's answer
     */
    CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks, long timeoutMs);

    /**
     * Sends a failure-detector configuration as one DETECTOR_WINDOW (agents with
     * {@link Protocol#FEATURE_DETECTOR_WINDOW}).
     *
     * @return completed (never exceptionally) with the agent's answer
     */
    CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs);

    /**
     * Sends ring members' addresses (DETECTOR_PEERS; not acknowledged): an answer to a lookup carries the lookup's
     * txid, an update 0 (the session takes its own).
     */
    void sendDetectorPeers(Message.DetectorPeers peers);
}
