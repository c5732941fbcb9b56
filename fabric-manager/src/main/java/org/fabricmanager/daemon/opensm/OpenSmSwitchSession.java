package org.fabricmanager.daemon.opensm;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.TableHash;

/**
 * A switch that OpenSM manages, as the daemon's managers see a session: its HELLO and ports come from OpenSM's
 * subnet, and the tables the daemon installs on it are held here (by destination index) until they go back to
 * OpenSM by LID. A commit counts as installed when it is applied here: OpenSM takes the tables in the answer to the
 * routing pass that is waiting for them. It has no failure-detector member (OpenSM's traps are the fault path).
 */
final class OpenSmSwitchSession implements SwitchSession {
    private static final AtomicLong IDS = new AtomicLong(1L << 40);

    private final long id = IDS.incrementAndGet();
    private final Hello hello;
    private final SocketAddress address;
    private final SouthboundListener listener;
    private volatile boolean closed;
    private byte[] table = new byte[0];
    private long version;
    /** Blocks sent ahead of their commit ({@link #stage}), of {@code stagedVersion}. */
    private final List<LftBatch.Block> staged = new ArrayList<>();
    private long stagedVersion;

    OpenSmSwitchSession(Hello hello, SocketAddress address, SouthboundListener listener) {
        this.hello = hello;
        this.address = address;
        this.listener = listener;
    }

    /** The table last committed and its version (0 before the first), copied. */
    synchronized Held held() {
        return new Held(version, table.clone());
    }

    /** A committed table. */
    record Held(long version, byte[] entries) {
    }

    boolean closed() {
        return closed;
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
        return address;
    }

    @Override
    public long lastRttNanos() {
        return -1;
    }

    @Override
    public CompletableFuture<Long> probe(long timeoutMs) {
        // OpenSM answers for the switch: it is there as long as OpenSM's last subnet holds it
        return closed ? CompletableFuture.failedFuture(new IllegalStateException("session closed"))
                : CompletableFuture.completedFuture(0L);
    }

    @Override
    public void acceptHello(long daemonId) {
        // the provider sends the PORT_INFO right after the HELLO: nothing to wait for
    }

    @Override
    public void acknowledge(int txid, MessageType type) {
    }

    @Override
    public void reject(ErrorCode code, Message about, String message) {
        close(code + ": " + message);
    }

    @Override
    public void close(String reason) {
        if (!closed) {
            closed = true;
            listener.sessionClosed(this, reason);
        }
    }

    /** OpenSM closes a session when its subnet no longer holds the switch: its discovery, not a lost connection. */
    @Override
    public boolean endIsFabricChange() {
        return true;
    }

    @Override
    public synchronized CompletableFuture<CommitAck> sendBatch(LftBatch batch, long timeoutMs) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("switch " + hello.name() + " left OpenSM's subnet"));
        }
        byte[] next = Arrays.copyOf(table, batch.length());
        if (batch.length() > table.length) {
            Arrays.fill(next, table.length, next.length, (byte) 0xff);
        }
        List<LftBatch.Block> blocks = new ArrayList<>();
        if (batch.stagedAhead() > 0 && stagedVersion == batch.version()) {
            blocks.addAll(staged);
        }
        blocks.addAll(batch.blocks());
        staged.clear();
        for (LftBatch.Block b : blocks) {
            int n = Math.min(b.entries().length, next.length - b.base());
            if (b.base() < 0 || n < 0) {
                return CompletableFuture.failedFuture(new IllegalArgumentException("block at " + b.base()
                        + " beyond a table of " + next.length));
            }
            System.arraycopy(b.entries(), 0, next, b.base(), n);
        }
        table = next;
        version = batch.version();
        return CompletableFuture.completedFuture(new CommitAck(0, batch.version(), next.length, TableHash.of(next),
                batch.rulesHash()));
    }

    @Override
    public synchronized void stage(LftBatch batch) {
        if (stagedVersion != batch.version()) {
            staged.clear(); // a block of another version discards what was staged, as on an agent
            stagedVersion = batch.version();
        }
        staged.addAll(batch.blocks());
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks, long timeoutMs) {
        return CompletableFuture.completedFuture(new DetectorConfigReply(DetectorConfigReply.Outcome.NO_DETECTOR,
                "an OpenSM-managed switch runs no failure-detector member"));
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        return sendDetectorConfig(List.of(), timeoutMs);
    }

    @Override
    public void sendDetectorPeers(Message.DetectorPeers peers) {
    }

    @Override
    public String toString() {
        return "OpenSM switch " + hello.name();
    }
}
