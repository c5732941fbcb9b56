package org.fabricmanager.daemon.chaos;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.southbound.DetectorConfigReply;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.TableHash;

/**
 * One powered-on run of a simulated switch and its agent's session: it applies the blocks it receives (staged ahead
 * or sent with their commit) to the table it holds, as an agent does, and answers each commit with the version, length
 * and hash of what it then holds. When its answer arrives, or whether it does, is the simulation's ({@link Wire}).
 * Power it off and the table is gone: the next run starts empty.
 */
public final class SimulatedSwitch implements SwitchSession {
    /** Where a commit's outcome goes: the simulation decides when (or whether) the ack reaches the daemon. */
    interface Wire {
        void commit(SimulatedSwitch from, LftBatch batch, long timeoutMs, CompletableFuture<CommitAck> answer);
    }

    private final long id;
    private final Hello hello;
    private final Wire wire;
    /** A planted defect: this switch drops one block of the next batch with blocks and acknowledges it as sent. */
    private boolean skipOneBlock;
    /** A planted defect: the next batch's last block lands after its ack; the block waiting to land. */
    private boolean lastBlockLate;
    private LftBatch.Block late;
    private long version;
    private byte[] entries = new byte[0];
    private long stagedVersion = -1;
    private final Map<Integer, byte[]> staged = new HashMap<>();
    boolean closedByDaemon;
    /** While its agent hangs: the frames that reached it, unread, in order; {@code null} while it answers. */
    private List<Runnable> held;
    /** Times its agent hung; a deadline set at one hang does not apply after the next. */
    private int hangs;
    /** Its ports that changed while its agent hung: reported when it answers again on the same session. */
    final SortedSet<Integer> portsChanged = new TreeSet<>();
    /** What reached the switch, in order, for a violation's report. */
    final List<String> received = new ArrayList<>();

    SimulatedSwitch(long id, long guid, String name, int ports, long incarnation, Wire wire) {
        this.id = id;
        this.hello = new Hello(1, 1, 1, guid, incarnation, ports, 65536, 0, 0, TableHash.EMPTY, name);
        this.wire = wire;
    }

    /**
     * A new session {@code id} of the agent run {@code incarnation}, holding the table this one holds (its HELLO says
     * which).
     */
    private SimulatedSwitch(SimulatedSwitch from, long id, long incarnation) {
        this.id = id;
        this.hello = new Hello(1, 1, 1, from.hello.guid(), incarnation, from.hello.portCount(), 65536,
                from.version, from.entries.length, TableHash.of(from.entries), from.hello.name());
        this.wire = from.wire;
        this.entries = from.entries.clone();
        this.version = from.version;
    }

    /** The same agent run reconnecting as session {@code id} (its daemon restarted): it keeps its table. */
    SimulatedSwitch reconnected(long id) {
        return new SimulatedSwitch(this, id, hello.incarnation());
    }

    /** Its agent restarted as run {@code incarnation}, connecting as session {@code id}; the switch kept its table. */
    SimulatedSwitch restarted(long id, long incarnation) {
        return new SimulatedSwitch(this, id, incarnation);
    }

    /** Its agent stops reading and answering; the frames sent to it wait. Returns which hang this is. */
    int hang() {
        held = new ArrayList<>();
        return ++hangs;
    }

    /** True while its agent hangs in hang {@code which}. */
    boolean hungIn(int which) {
        return held != null && hangs == which;
    }

    boolean hung() {
        return held != null;
    }

    /** A frame that reached it while its agent hangs, read (run) when it answers again on the same session. */
    void hold(Runnable frame) {
        held.add(frame);
    }

    /** Its agent answers again: the frames that waited, in the order they came (gone when its session closed). */
    List<Runnable> resume(boolean sessionOpen) {
        List<Runnable> frames = sessionOpen ? held : List.of();
        held = null;
        return frames;
    }

    /** Plants the defect: the next batch with blocks loses one on this switch, and the ack says it did not. */
    public void skipOneBlock() {
        skipOneBlock = true;
    }

    /**
     * Plants the defect: the next batch with blocks is acknowledged as applied while its last block has not landed
     * yet; it lands when {@link #landLateBlock} is called.
     */
    public void lastBlockAfterAck() {
        lastBlockLate = true;
    }

    /** The block acknowledged before it landed, if any, lands now. */
    void landLateBlock() {
        if (late != null) {
            copy(late.entries(), late.base(), entries);
            late = null;
        }
    }

    boolean hasLateBlock() {
        return late != null;
    }

    /** The name it says HELLO with. */
    public String name() {
        return hello.name();
    }

    /** The entries the switch forwards by. */
    byte[] entries() {
        return entries.clone();
    }

    long version() {
        return version;
    }

    /**
     * Applies {@code batch} as an agent does: the blocks staged ahead for its version, then its own, over the table
     * held (resized to the batch's length); returns the ack the agent sends.
     */
    CommitAck apply(LftBatch batch) {
        received.add("commit v" + batch.version() + " (" + batch.blocks().size() + " blocks, " + batch.stagedAhead()
                + " staged ahead, " + staged.size() + " staged for v" + stagedVersion + ")");
        late = null; // a block acknowledged early and still on its way is overtaken by this batch
        byte[] next = Arrays.copyOf(entries, batch.length());
        if (batch.length() > entries.length) {
            Arrays.fill(next, entries.length, batch.length(), (byte) 0xff);
        }
        byte[] before = next.clone();
        if (batch.stagedAhead() > 0 && stagedVersion == batch.version()) {
            staged.forEach((base, block) -> copy(block, base, next));
        }
        boolean lied = false;
        for (LftBatch.Block b : batch.blocks()) {
            if (skipOneBlock && !lied) {
                lied = true; // the planted defect: this block never lands
                continue;
            }
            copy(b.entries(), b.base(), next);
        }
        staged.clear();
        stagedVersion = -1;
        version = batch.version();
        if (lastBlockLate && !batch.blocks().isEmpty()) {
            // the ack says the whole batch landed; the last block's entries are still those held before it
            lastBlockLate = false;
            late = batch.blocks().get(batch.blocks().size() - 1);
            entries = next.clone();
            int end = Math.min(before.length, late.base() + late.entries().length);
            System.arraycopy(before, late.base(), entries, late.base(), Math.max(0, end - late.base()));
            return new CommitAck(0, version, next.length, TableHash.of(next), batch.rulesHash());
        }
        entries = next;
        if (lied) {
            skipOneBlock = false;
            return new CommitAck(0, batch.version(), batch.length(), batch.hash(), batch.rulesHash());
        }
        return new CommitAck(0, version, entries.length, TableHash.of(entries), batch.rulesHash());
    }

    private static void copy(byte[] block, int base, byte[] into) {
        System.arraycopy(block, 0, into, base, Math.min(block.length, Math.max(0, into.length - base)));
    }

    @Override
    public void stage(LftBatch batch) {
        if (held != null) {
            held.add(() -> staged(batch));
        } else {
            staged(batch);
        }
    }

    private void staged(LftBatch batch) {
        received.add("stage v" + batch.version() + " (" + batch.blocks().size() + " blocks)");
        if (stagedVersion != batch.version()) {
            staged.clear();
            stagedVersion = batch.version();
        }
        for (LftBatch.Block b : batch.blocks()) {
            staged.put(b.base(), b.entries().clone());
        }
    }

    @Override
    public CompletableFuture<CommitAck> sendBatch(LftBatch batch, long timeoutMs) {
        CompletableFuture<CommitAck> answer = new CompletableFuture<>();
        wire.commit(this, batch, timeoutMs, answer);
        return answer;
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
        return -1;
    }

    @Override
    public CompletableFuture<Long> probe(long timeoutMs) {
        return CompletableFuture.completedFuture(1_000_000L);
    }

    @Override
    public void acceptHello(long daemonId) {
    }

    @Override
    public void acknowledge(int txid, MessageType type) {
    }

    @Override
    public void reject(ErrorCode code, Message about, String message) {
        closedByDaemon = true;
    }

    @Override
    public void close(String reason) {
        closedByDaemon = true;
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorConfig(List<Message.DetectorConfig> chunks, long timeoutMs) {
        return CompletableFuture.completedFuture(new DetectorConfigReply(DetectorConfigReply.Outcome.NO_DETECTOR,
                "simulated switch"));
    }

    @Override
    public CompletableFuture<DetectorConfigReply> sendDetectorWindow(Message.DetectorWindow window, long timeoutMs) {
        return CompletableFuture.completedFuture(DetectorConfigReply.RUNNING);
    }

    @Override
    public void sendDetectorPeers(Message.DetectorPeers peers) {
    }

    @Override
    public String toString() {
        return "simulated " + hello.name() + " #" + id;
    }
}
