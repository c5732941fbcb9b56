package org.fabricmanager.daemon.opensm;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.fabricmanager.southbound.DetectorConfigReply;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.RequestFailedException;
import org.fabricmanager.southbound.SessionCapabilities;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.SwitchUnreachableException;
import org.fabricmanager.southbound.TableHash;

/**
 * A switch that OpenSM manages, as the daemon's managers see a session: its HELLO and ports come from OpenSM's
 * subnet, and the tables the daemon installs on it are held here (by destination index) until they go to OpenSM in
 * the answer to a routing pass, by LID. A commit counts as installed only once OpenSM reports, after that pass, that
 * the switch acknowledged every block of it (the plug-in's SET): until then it is pending, and the daemon asks the
 * plug-in for a pass ({@link PassRequests}). It has no failure-detector member (OpenSM's traps are the fault path).
 */
final class OpenSmSwitchSession implements SwitchSession {
    /**
     * The least time OpenSM is given to set a table: a pass may wait for a heavy sweep under way (seconds at thousands
     * of switches) before its answer and uploads.
     */
    static final long MIN_CONFIRM_MS = 15_000;
    private static final AtomicLong IDS = new AtomicLong(1L << 40);

    private final long id = IDS.incrementAndGet();
    private final Hello hello;
    private final SocketAddress address;
    private final SouthboundListener listener;
    private final PassRequests passes;
    /** Why OpenSM is lost, or {@code null}: a table handed meanwhile cannot reach the switch. */
    private final Supplier<String> openSmLost;
    private volatile boolean closed;
    /** What OpenSM confirmed the switch holds, and its version (0 before the first). */
    private byte[] confirmed = new byte[0];
    private long confirmedVersion;
    /** The table handed by the pusher and not confirmed yet, or {@code null}. */
    private Pending pending;
    /** The last pass answered, and what it carried for this switch. */
    private long answeredSeq;
    private byte[] answeredTable;
    private long answeredVersion;
    /** Why the last pass that carried the pending table did not confirm it, or {@code null}. */
    private String miss;
    /**
     * Each port's counters since OpenSM's performance manager first read them in this session, {@link
     * PortCounter#ALL} values per port from port 1, {@link PortCounters#UNAVAILABLE} for a port never read; or
     * {@code null} before the first reading. Guarded by this.
     */
    private long[] counters;
    /** The answer while the performance manager has read nothing of this switch (made once). */
    private CompletableFuture<PortCounters> noCounters;
    /** Blocks sent ahead of their commit ({@link #stage}), of {@code stagedVersion}. */
    private final List<LftBatch.Block> staged = new ArrayList<>();
    private long stagedVersion;

    OpenSmSwitchSession(Hello hello, SocketAddress address, SouthboundListener listener, PassRequests passes,
                        Supplier<String> openSmLost) {
        this.hello = hello;
        this.address = address;
        this.listener = listener;
        this.passes = passes;
        this.openSmLost = openSmLost;
    }

    /** OpenSM is lost ({@code why}): the table waiting for it cannot reach the switch now. */
    void unreachable(String why) {
        CompletableFuture<CommitAck> waiting;
        synchronized (this) {
            waiting = pending == null ? null : pending.ack;
            pending = null;
        }
        if (waiting != null) {
            waiting.completeExceptionally(new SwitchUnreachableException("OpenSM lost: " + why));
        }
    }

    /** A table handed by the pusher, waiting for OpenSM to set it. */
    private record Pending(LftBatch batch, byte[] table, CompletableFuture<CommitAck> ack) {
    }

    /**
     * What the answer to pass {@code seq} carries for this switch: the table waiting to be set, else the one OpenSM
     * confirmed. Remembered, so that the pass's SET confirms exactly it.
     */
    synchronized byte[] answer(long seq) {
        answeredSeq = seq;
        answeredTable = pending != null ? pending.table : confirmed;
        answeredVersion = pending != null ? pending.batch.version() : confirmedVersion;
        return answeredTable;
    }

    /**
     * OpenSM's word on pass {@code seq}: whether the switch acknowledged every block of what that pass answered. A
     * word on an older pass is stale (a newer answer may carry other tables) and changes nothing.
     *
     * @return whether that pass answered this switch
     */
    boolean set(long seq, boolean holds) {
        CompletableFuture<CommitAck> done = null;
        CommitAck ack = null;
        synchronized (this) {
            if (seq != answeredSeq || answeredTable == null) {
                return false;
            }
            if (!holds) {
                miss = "OpenSM's routing pass " + seq + " carried v" + answeredVersion + ", but the table the switch "
                        + "acknowledged differs (an upload that did not reach it)";
                return true;
            }
            confirmed = answeredTable;
            confirmedVersion = answeredVersion;
            miss = null;
            if (pending != null && pending.table == answeredTable) {
                done = pending.ack;
                ack = new CommitAck(0, pending.batch.version(), confirmed.length, TableHash.of(confirmed),
                        pending.batch.rulesHash());
                pending = null;
            }
        }
        if (done != null) {
            done.complete(ack);
        }
        return true;
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

    /**
     * Adds the changes OpenSM's performance manager read on {@code port} ({@code changes[from ..]}, one per {@link
     * PortCounter#ALL}); a port beyond the switch's is left out. Unsigned: a count wraps at 2^64 as an agent's does.
     */
    synchronized void countersChanged(int port, long[] changes, int from) {
        int fields = PortCounter.ALL.length;
        if (port < 1 || port > hello.portCount()) {
            return;
        }
        if (counters == null) {
            counters = new long[hello.portCount() * fields];
            Arrays.fill(counters, PortCounters.UNAVAILABLE);
        }
        int at = (port - 1) * fields;
        for (int f = 0; f < fields; f++) {
            long was = counters[at + f] == PortCounters.UNAVAILABLE ? 0 : counters[at + f];
            long now = was + changes[from + f];
            counters[at + f] = now == PortCounters.UNAVAILABLE ? 0 : now; // all ones means unmeasured, never a count
        }
    }

    /** The counters OpenSM's performance manager read (perfmgr TRUE in opensm.conf), as an agent reports its own. */
    @Override
    public synchronized CompletableFuture<PortCounters> requestCounters(long timeoutMs) {
        if (counters == null) {
            // asked every interval for as long as the performance manager is off: one failure, made once
            if (noCounters == null) {
                noCounters = CompletableFuture.failedFuture(RequestFailedException.standing("OpenSM's performance "
                        + "manager has read no counters of " + hello.name() + " (perfmgr TRUE in opensm.conf; "
                        + "docs/opensm.md)"));
            }
            return noCounters;
        }
        return CompletableFuture.completedFuture(new PortCounters(1, counters));
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
        CompletableFuture<CommitAck> waiting;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            waiting = pending == null ? null : pending.ack;
            pending = null;
        }
        if (waiting != null) {
            waiting.completeExceptionally(new RequestFailedException("switch " + hello.name() + ": " + reason, false));
        }
        listener.sessionClosed(this, reason);
    }

    /** No agent, no ring member; its end is OpenSM's discovery; its table goes in one answer for all switches. */
    @Override
    public SessionCapabilities capabilities() {
        return SessionCapabilities.OPENSM;
    }

    /**
     * Holds the batch's table (its blocks over what OpenSM confirmed, which is what the pusher diffed against) until
     * a pass carries it and OpenSM sets it, and asks for that pass.
     */
    @Override
    public CompletableFuture<CommitAck> sendBatch(LftBatch batch, long timeoutMs) {
        CompletableFuture<CommitAck> ack = new CompletableFuture<>();
        CompletableFuture<CommitAck> superseded;
        String lost = openSmLost.get();
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new RequestFailedException("switch " + hello.name()
                        + " left OpenSM's subnet", false));
            }
            if (lost != null) {
                staged.clear();
                return CompletableFuture.failedFuture(new SwitchUnreachableException("OpenSM lost: " + lost));
            }
            byte[] next = Arrays.copyOf(confirmed, batch.length());
            if (batch.length() > confirmed.length) {
                Arrays.fill(next, confirmed.length, next.length, (byte) 0xff);
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
            superseded = pending == null ? null : pending.ack;
            pending = new Pending(batch, next, ack);
            miss = null;
        }
        if (superseded != null) {
            superseded.completeExceptionally(new RequestFailedException("superseded by v" + batch.version(), true));
        }
        long bound = Math.max(timeoutMs, MIN_CONFIRM_MS);
        CompletableFuture.delayedExecutor(bound, TimeUnit.MILLISECONDS).execute(() -> timedOut(ack, bound));
        passes.handed();
        return ack;
    }

    private void timedOut(CompletableFuture<CommitAck> ack, long bound) {
        String why;
        synchronized (this) {
            if (pending == null || pending.ack != ack) {
                return;
            }
            long v = pending.batch.version();
            why = miss != null ? miss
                    : answeredTable == pending.table ? "OpenSM's routing pass " + answeredSeq + " carried v" + v
                            + ", and OpenSM has not reported it set on the switch"
                    : "no routing pass of OpenSM carried v" + v + " (" + passes.describe() + ")";
        }
        ack.completeExceptionally(new RequestFailedException(why + ", within " + bound + " ms", true));
    }

    @Override
    public synchronized void stage(LftBatch batch) {
        if (stagedVersion != batch.version()) {
            staged.clear(); // a block of another version discards what was staged, as on an agent
            stagedVersion = batch.version();
        }
        staged.addAll(batch.blocks());
    }

    /** Never asked: its capabilities say it runs no failure-detector member. */
    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks, long timeoutMs) {
        throw new UnsupportedOperationException(this + " runs no failure-detector member");
    }

    /** Never asked: its capabilities say it runs no failure-detector member. */
    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        throw new UnsupportedOperationException(this + " runs no failure-detector member");
    }

    /** Never asked: its capabilities say it runs no failure-detector member. */
    @Override
    public void sendDetectorPeers(Message.DetectorPeers peers) {
        throw new UnsupportedOperationException(this + " runs no failure-detector member");
    }

    @Override
    public String toString() {
        return "OpenSM switch " + hello.name();
    }
}
