package org.fabricmanager.daemon.testing;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.southbound.DetectorConfigReply;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.TableHash;

/**
 * A switch session without a network for managers' unit tests: it records what the daemon sends and
 * leaves each batch's future for the test to complete (an ACK, an ERROR, a timeout).
 */
public final class FakeSession implements SwitchSession {
    private static final AtomicLong IDS = new AtomicLong();

    /** A batch the daemon sent, with the timeout it gave and the future the test completes. */
    public record SentBatch(LftBatch batch, long timeoutMs, CompletableFuture<CommitAck> future) {
        /** Completes the batch with the ACK a correct agent sends. */
        public void ack() {
            future.complete(new CommitAck(0, batch.version(), batch.length(), batch.hash()));
        }
    }

    private final long id = IDS.incrementAndGet();
    private final Hello hello;
    public final List<SentBatch> batches = new ArrayList<>();
    /** Batches whose blocks were sent without a commit ({@link #stage}), in order. */
    public final List<LftBatch> staged = new ArrayList<>();
    public final List<String> events = new ArrayList<>();
    /** Every detector frame the daemon sent (DETECTOR_CONFIG chunks, DETECTOR_WINDOW, DETECTOR_PEERS), in order. */
    public final List<Message> detectorFrames = new ArrayList<>();
    public boolean closed;
    /** Every echo probe the daemon sent, with its deadline; the test answers it or lets it fail. */
    public final List<Probe> probes = new ArrayList<>();
    /** What {@link #lastRttNanos()} answers: the last keepalive round trip, -1 before the first. */
    public long rttNanos = -1;
    /** Every port-counter request the daemon sent (its timeout); each fails as an agent without counters would. */
    public final List<Long> counterRequests = new ArrayList<>();

    /** A probe the daemon sent: {@link #answer} plays an agent that replies, {@link #expire} one that does not. */
    public record Probe(long timeoutMs, CompletableFuture<Long> future) {
        public void answer() {
            future.complete(1_000_000L);
        }

        public void expire() {
            future.completeExceptionally(new org.fabricmanager.southbound.RequestFailedException(
                    "no echo reply within " + timeoutMs + " ms", true));
        }
    }

    public FakeSession(Hello hello) {
        this.hello = hello;
    }

    /** A session whose HELLO says: switch {@code guid}, {@code ports} ports, incarnation, holding nothing. */
    public static FakeSession of(long guid, String name, int ports, long incarnation) {
        return new FakeSession(new Hello(1, 1, 1, guid, incarnation, ports, 65536, 0, 0, TableHash.EMPTY, name));
    }

    /** As {@link #of}, with HELLO {@code features} (e.g. {@code Protocol.FEATURE_DETECTOR_WINDOW}). */
    public static FakeSession of(long guid, String name, int ports, long incarnation, int features) {
        return new FakeSession(new Hello(1, 1, 1, guid, incarnation, ports, 65536, 0, 0, TableHash.EMPTY, name, features));
    }

    @Override
    public CompletableFuture<PortCounters> requestCounters(long timeoutMs) {
        counterRequests.add(timeoutMs);
        return SwitchSession.super.requestCounters(timeoutMs);
    }

    /** The batch sent last. */
    public SentBatch last() {
        return batches.get(batches.size() - 1);
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public long guid() {
        return hello.guid();
    }

    @Override
    public Hello hello() {
        return hello;
    }

    @Override
    public SocketAddress remoteAddress() {
        return new InetSocketAddress("127.0.0.1", 40000 + (int) (id % 20000));
    }

    @Override
    public long lastRttNanos() {
        return rttNanos;
    }

    @Override
    public CompletableFuture<Long> probe(long timeoutMs) {
        CompletableFuture<Long> f = new CompletableFuture<>();
        probes.add(new Probe(timeoutMs, f));
        return f;
    }

    @Override
    public void acceptHello(long daemonId) {
        events.add("accepted");
    }

    @Override
    public void acknowledge(int txid, MessageType type) {
        events.add("ack " + type);
    }

    @Override
    public void reject(ErrorCode code, Message about, String message) {
        events.add("rejected " + code + ": " + message);
        closed = true;
    }

    @Override
    public void close(String reason) {
        events.add("closed: " + reason);
        closed = true;
    }

    @Override
    public void stage(LftBatch batch) {
        staged.add(batch);
    }

    @Override
    public CompletableFuture<CommitAck> sendBatch(LftBatch batch, long timeoutMs) {
        CompletableFuture<CommitAck> f = new CompletableFuture<>();
        batches.add(new SentBatch(batch, timeoutMs, f));
        return f;
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks, long timeoutMs) {
        detectorFrames.addAll(chunks);
        return CompletableFuture.completedFuture(new DetectorConfigReply(DetectorConfigReply.Outcome.NO_DETECTOR,
                "fake session"));
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        detectorFrames.add(window);
        return CompletableFuture.completedFuture(DetectorConfigReply.RUNNING);
    }

    @Override
    public void sendDetectorPeers(Message.DetectorPeers peers) {
        detectorFrames.add(peers);
    }

    @Override
    public String toString() {
        return "fake session #" + id + " (" + hello.name() + ")";
    }
}
