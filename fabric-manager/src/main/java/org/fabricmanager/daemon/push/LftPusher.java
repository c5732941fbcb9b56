package org.fabricmanager.daemon.push;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.southbound.AgentErrorException;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.RequestFailedException;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Installs the current tables on every connected switch and tracks what each one holds. Per switch:
 * at most one batch in flight (the blocks that differ from the held table, then the commit); the
 * switch is in sync only when the commit's ACK carries the expected version and hash; no ACK within
 * the timeout re-sends the batch (counted) with a doubled timeout (up to 32 times the configured one),
 * a refused commit turns into a full push, and after {@code push.retries} failures in a row the switch
 * is reported as failing but still retried: a slow agent converges, a session that is really dead is
 * closed by the southbound idle timeout, never by the pusher.
 * At most {@code push.maxInFlight} full tables' worth of batches are on the wire; the other switches wait
 * their turn, first come first served (like OpenSM's limit on SMPs on the wire), so that keepalives and ACKs
 * are not queued behind megabytes of blocks on thousands of connections. A batch counts as its share of a
 * full table, at least a sixty-fourth: when a node's link changes one block on each of 5,120 switches, they
 * are not paced like 5,120 full pushes.
 * On (re)connection the HELLO's version and hash tell what the switch holds: when they match a table
 * the daemon still has, only the differences are sent, and nothing at all when it is current.
 * Tables likely to be installed soon (the routing prepared while a switch's death is confirmed) can be
 * {@link #stage staged} ahead: their blocks go out now, and their installation sends only the commits.
 *
 * <p>Runs on the control thread; completions of batches come back as control events.
 */
public final class LftPusher {
    private static final Logger LOG = LoggerFactory.getLogger(LftPusher.class);
    private static final int HISTORY = 4;
    /** Each retry doubles the ACK timeout, up to 32 times the configured one. */
    private static final int MAX_TIMEOUT_DOUBLINGS = 5;

    /** Told after every acknowledgement or failure, to re-evaluate convergence. */
    @FunctionalInterface
    public interface Listener {
        void progress();
    }

    private final long ackTimeoutMs;
    private final int retries;
    private final int maxInFlight;
    /** Batches on the wire (at most {@code maxInFlight} full tables' worth); the switches beyond wait in {@code waiting}. */
    private final Set<InFlight> active = new HashSet<>();
    /** Switches waiting for room on the wire, first come first served. */
    private final LinkedHashSet<Long> waiting = new LinkedHashSet<>();
    /** The {@link #weight}s of the batches in {@code active}. */
    private long activeWeight;
    private final ControlLoop queue;
    private final Listener listener;
    private final Map<Long, SwitchPush> switches = new HashMap<>();
    private final LinkedHashMap<Long, TableSet> history = new LinkedHashMap<>();
    private final Counter blocksCounter;
    private final Counter bytesCounter;
    private final Counter commitsCounter;
    private final Counter retriesCounter;
    private TableSet current;
    /** The tables whose blocks are staged on some switches (each {@link SwitchPush#staged} says), or {@code null}. */
    private TableSet staging;
    private Round round;
    /** Attached switches by status, and those failing: kept as statuses change, so every count is O(1). */
    private int inSyncCount;
    private int pendingCount;
    private int uncoveredCount;
    private int failingCount;
    private long totalBlocks;
    private long totalBytes;
    private long totalCommits;
    private long totalRetries;

    private static final class SwitchPush {
        final long guid;
        final String name;
        final SwitchSession session;
        HeldTable held;
        InFlight inFlight;
        Status status = Status.DETACHED;
        boolean failing;
        int attempts;
        long retries;
        String lastError;
        /** Blocks sent ahead of their version's installation, or {@code null}. */
        Staged staged;
        /** The blocks it waits to be sent, computed when it came first in line without room on the wire, or {@code null}. */
        Diff waitingDiff;

        SwitchPush(long guid, String name, SwitchSession session, HeldTable held) {
            this.guid = guid;
            this.name = name;
            this.session = session;
            this.held = held;
        }

        @Override
        public String toString() {
            return name + " (" + Guids.format(guid) + ")";
        }
    }

    /** A batch on the wire; compared by identity (a record would hash every block of the batch). */
    private static final class InFlight {
        final LftBatch batch;
        final TableSet target;
        final int row;
        final boolean full;
        final int weight;

        InFlight(LftBatch batch, TableSet target, int row, boolean full, int weight) {
            this.batch = batch;
            this.target = target;
            this.row = row;
            this.full = full;
            this.weight = weight;
        }
    }

    /** The blocks of row {@code row} of {@code target} for a switch holding {@code base}. */
    private record Diff(TableSet target, int row, HeldTable base, List<LftBatch.Block> blocks) {
        /** Still the blocks to send for row {@code r} of {@code t} to a switch holding {@code held}. */
        boolean isFor(TableSet t, int r, HeldTable held) {
            return target == t && row == r && base == held;
        }
    }

    /** A full table's {@link #weight}: {@code push.maxInFlight} counts full tables. */
    private static final int FULL_TABLE_WEIGHT = 64;

    /**
     * Blocks sent ahead ({@code bytes} on the wire) without their commit: the commit alone installs them as long as
     * the switch holds the diff's base still and was sent nothing since.
     */
    private record Staged(Diff diff, long bytes) {
    }

    /** Where an attached switch stands against the current tables. */
    private enum Status {
        /** Not attached (yet, or any more): counted nowhere. */
        DETACHED,
        /** The current tables have no row for it (or there are none yet). */
        UNCOVERED,
        /** Covered, and it does not hold its row yet. */
        PENDING,
        /** Covered, and it holds its row (confirmed). */
        IN_SYNC
    }

    private static final class Round {
        final long version;
        final long started = System.nanoTime();
        long completed = -1;
        long blocks;
        long bytes;
        long commits;
        long acked;
        long retries;
        long fullPushes;
        long stagedAhead;

        Round(long version) {
            this.version = version;
        }

        PushRound snapshot() {
            return new PushRound(version, started, completed, blocks, bytes, commits, acked, retries, fullPushes,
                    stagedAhead);
        }
    }

    /**
     * @param maxInFlight how many full tables may be on the wire at once; a batch of fewer blocks takes its share (a
     *                    sixty-fourth at least), so that a change of one block on every switch (a node's link) is not
     *                    paced like a full push
     */
    public LftPusher(long ackTimeoutMs, int retries, int maxInFlight, ControlLoop queue, MeterRegistry registry,
                     Listener listener) {
        this.ackTimeoutMs = ackTimeoutMs;
        this.retries = retries;
        this.maxInFlight = maxInFlight;
        this.queue = queue;
        this.listener = listener;
        this.blocksCounter = Counter.builder("fabric.push.blocks").description("LFT blocks sent").register(registry);
        this.bytesCounter = Counter.builder("fabric.push.bytes").baseUnit("bytes").description("bytes of LFT blocks and commits sent").register(registry);
        this.commitsCounter = Counter.builder("fabric.push.commits").description("LFT commits sent").register(registry);
        this.retriesCounter = Counter.builder("fabric.push.retries").description("batches re-sent after a timeout or a refusal").register(registry);
    }

    /** The tables being installed, or {@code null} before the first routing. */
    public TableSet current() {
        return current;
    }

    /**
     * Sends {@code next}'s blocks, without their commits, to the switches whose rows it changes, as long as they
     * hold the current tables and have nothing on the wire: if {@code next} is {@link #install installed} before
     * anything else is sent to them, each gets only its commit. At a switch's death that takes the blocks off the
     * reaction's path (about 1,000 blocks for each of 64 switches at 5,120), sent during the echo wait that
     * confirms the death; if it is refuted, {@link #dropStaged} forgets them, and the switches discard them at
     * their next batch (another version). {@code next}'s version must never be used by other tables.
     * At most {@code push.maxInFlight} full tables' worth, as a push puts on the wire at once.
     *
     * @return the switches that got blocks
     */
    public int stage(TableSet next) {
        dropStaged();
        if (current == null || next.version() <= current.version() || next.length() <= 0) {
            return 0;
        }
        int count = 0;
        long blocks = 0;
        long room = (long) maxInFlight * FULL_TABLE_WEIGHT;
        for (SwitchPush sp : switches.values()) {
            int row = next.row(sp.guid);
            if (sp.status != Status.IN_SYNC || sp.inFlight != null || waiting.contains(sp.guid) || row < 0) {
                continue;
            }
            List<LftBatch.Block> diff = BlockDiff.blocks(sp.held, next, row);
            if (diff.isEmpty()) {
                continue;
            }
            room -= weight(next, diff.size());
            if (room < 0) {
                break; // as much as a push puts on the wire at once; the rest goes with the commits
            }
            LftBatch batch = new LftBatch(next.version(), diff, next.length(), next.hash(row));
            long bytes = batch.blockBytes(sp.session.blockRunEntries());
            sp.session.stage(batch);
            sp.staged = new Staged(new Diff(next, row, sp.held, diff), bytes);
            count++;
            blocks += diff.size();
            countSent(diff.size(), bytes);
        }
        if (count > 0) {
            staging = next;
            LOG.debug("staged v{} ahead on {} switches: {} blocks", next.version(), count, blocks);
        }
        return count;
    }

    /** Forgets the blocks {@link #stage staged} ahead (their tables will not be installed). */
    public void dropStaged() {
        if (staging == null) {
            return;
        }
        staging = null;
        for (SwitchPush sp : switches.values()) {
            sp.staged = null; // frees the tables too: the staging's references are the last to a dropped routing
        }
    }

    /** Makes {@code tables} the version to install and starts pushing it. */
    public void install(TableSet tables) {
        if (staging != null && staging != tables) {
            dropStaged();
        }
        staging = null; // the staged commits are sent now, from each switch's own reference
        current = tables;
        history.put(tables.version(), tables);
        while (history.size() > HISTORY) {
            history.remove(history.keySet().iterator().next());
        }
        round = new Round(tables.version());
        for (SwitchPush sp : switches.values()) {
            classify(sp);
        }
        for (SwitchPush sp : switches.values()) {
            sync(sp);
        }
        drain(); // a switch first in line that needs nothing any more must not hold the others back
        checkRoundComplete();
    }

    /** A switch connected (its HELLO says what it holds); pushes what it lacks if it is routed. */
    public void attach(long guid, String name, SwitchSession session, Hello hello) {
        SwitchPush sp = new SwitchPush(guid, name, session, reconcile(guid, hello));
        SwitchPush previous = switches.put(guid, sp);
        if (previous != null) {
            forget(previous);
        }
        classify(sp);
        sync(sp);
        drain();
    }

    private HeldTable reconcile(long guid, Hello hello) {
        if (hello.tableLength() == 0 && hello.tableHash() == TableHash.EMPTY) {
            return HeldTable.empty(hello.tableVersion(), hello.tableHash());
        }
        if (current != null) {
            int row = current.row(guid);
            if (row >= 0 && current.length() == hello.tableLength() && current.hash(row) == hello.tableHash()) {
                return HeldTable.of(current, row, hello.tableVersion());
            }
        }
        TableSet known = history.get(hello.tableVersion());
        if (known != null) {
            int row = known.row(guid);
            if (row >= 0 && known.length() == hello.tableLength() && known.hash(row) == hello.tableHash()) {
                return HeldTable.of(known, row);
            }
        }
        return HeldTable.unknown(hello.tableVersion(), hello.tableLength(), hello.tableHash());
    }

    /** A switch disconnected; its in-flight batch is abandoned. */
    public void detach(long guid) {
        SwitchPush sp = switches.remove(guid);
        waiting.remove(guid);
        if (sp != null) {
            forget(sp);
            if (sp.inFlight != null) {
                retire(sp.inFlight);
            }
            drain();
        }
        checkRoundComplete();
    }

    /** True when the switch holds the current version (confirmed). */
    public boolean inSync(long guid) {
        SwitchPush sp = switches.get(guid);
        return sp != null && inSync(sp);
    }

    /**
     * True when the switch holds its current row, by content: a switch whose row a new version did not
     * change is in sync without a round trip, keeping the version number under which it last received a
     * change.
     */
    private boolean inSync(SwitchPush sp) {
        if (current == null) {
            return false;
        }
        int row = current.row(sp.guid);
        return row >= 0 && sp.held.length() == current.length() && sp.held.hash() == current.hash(row)
                && (!current.hasRules() || sp.held.rulesHash() == current.rulesHash(row));
    }

    /** Attached switches that the current tables cover and that hold them. */
    public int inSyncCount() {
        return inSyncCount;
    }

    /** Attached switches that the current tables cover and that do not hold them yet. */
    public int pendingCount() {
        return pendingCount;
    }

    /** Attached switches that the current tables do not cover (none before the first tables). */
    public int uncoveredCount() {
        return uncoveredCount;
    }

    /** Re-evaluates the status of {@code sp} against the current tables and the counts with it. */
    private void classify(SwitchPush sp) {
        Status next;
        int row = current == null ? -1 : current.row(sp.guid);
        if (row < 0) {
            next = Status.UNCOVERED;
        } else if (inSync(sp)) {
            next = Status.IN_SYNC;
            if (sp.held.source() != current) {
                // the same content under this version: later diffs start from these tables
                sp.held = HeldTable.of(current, row, sp.held.version()).withRules(sp.held.rulesHash());
            }
        } else {
            next = Status.PENDING;
        }
        count(sp.status, -1);
        sp.status = next;
        count(next, 1);
    }

    /** Takes a switch that is no longer attached out of every count. */
    private void forget(SwitchPush sp) {
        count(sp.status, -1);
        sp.status = Status.DETACHED;
        if (sp.failing) {
            sp.failing = false;
            failingCount--;
        }
    }

    private void count(Status s, int delta) {
        switch (s) {
            case IN_SYNC -> inSyncCount += delta;
            case PENDING -> pendingCount += delta;
            case UNCOVERED -> uncoveredCount += delta;
            case DETACHED -> {
            }
        }
    }

    private void failing(SwitchPush sp, boolean now) {
        if (sp.failing != now && sp.status != Status.DETACHED) {
            failingCount += now ? 1 : -1;
        }
        sp.failing = now;
    }

    /** The push state of one switch, or {@code null} when it is not attached. */
    public SwitchPushState state(long guid) {
        SwitchPush sp = switches.get(guid);
        if (sp == null) {
            return null;
        }
        return new SwitchPushState(sp.held.version(), sp.held.hash(), sp.held.known(), inSync(sp), sp.inFlight != null,
                sp.retries, sp.lastError);
    }

    /** Whether the push to an attached switch failed more than {@code push.retries} times in a row (still retried). */
    public boolean isFailing(long guid) {
        SwitchPush sp = switches.get(guid);
        return sp != null && sp.failing;
    }

    /** The hash of the VC rules the switch acknowledged (0: none), {@link HeldTable#RULES_UNKNOWN} when unknown or detached. */
    public long heldRulesHash(long guid) {
        SwitchPush sp = switches.get(guid);
        return sp == null ? HeldTable.RULES_UNKNOWN : sp.held.rulesHash();
    }

    /** Figures of the current version's installation, or {@code null} before the first. */
    public PushRound round() {
        return round == null ? null : round.snapshot();
    }

    public long totalBlocks() {
        return totalBlocks;
    }

    public long totalBytes() {
        return totalBytes;
    }

    public long totalCommits() {
        return totalCommits;
    }

    public long totalRetries() {
        return totalRetries;
    }

    /**
     * Sends {@code sp} the blocks it lacks and the commit if there is room on the wire and no switch is waiting before
     * it; otherwise it waits its turn ({@link #drain}).
     *
     * @return false when it waits for room on the wire
     */
    private boolean sync(SwitchPush sp) {
        if (current == null || sp.inFlight != null) {
            return true;
        }
        int row = current.row(sp.guid);
        if (row < 0 || inSync(sp)) {
            waiting.remove(sp.guid);
            sp.waitingDiff = null;
            return true;
        }
        if (!waiting.isEmpty() && waiting.iterator().next() != sp.guid) {
            waiting.add(sp.guid); // first come, first served: and its blocks are not computed until its turn
            return false;
        }
        Staged staged = sp.staged;
        boolean ahead = staged != null && staged.diff().isFor(current, row, sp.held);
        Diff diff = sp.waitingDiff;
        if (!ahead && (diff == null || !diff.isFor(current, row, sp.held))) {
            diff = new Diff(current, row, sp.held, BlockDiff.blocks(sp.held, current, row));
        }
        List<LftBatch.Block> blocks = ahead ? List.of() : diff.blocks();
        int weight = weight(current, blocks.size());
        if (!active.isEmpty() && activeWeight + weight > (long) maxInFlight * FULL_TABLE_WEIGHT) {
            waiting.add(sp.guid);
            sp.waitingDiff = ahead ? null : diff; // not computed again at each try
            return false;
        }
        waiting.remove(sp.guid);
        sp.waitingDiff = null;
        sp.staged = null; // used now, or outdated: anything sent to the switch from here on discards it there
        // rules go with every batch of a fabric that has them: the HELLO does not say which rules a switch holds
        LftBatch batch = new LftBatch(current.version(), blocks, current.length(), current.hash(row),
                current.rules(row), current.rulesHash(row), ahead ? staged.diff().blocks().size() : 0);
        InFlight f = new InFlight(batch, current, row, !sp.held.known(), weight);
        sp.inFlight = f;
        active.add(f);
        activeWeight += weight;
        long bytes = batch.wireBytes(sp.session.blockRunEntries());
        countSent(blocks.size(), bytes);
        totalCommits++;
        commitsCounter.increment();
        if (round != null && round.version == batch.version()) {
            // blocks staged ahead count in the round that installs them (sent earlier, counted in the totals then)
            round.blocks += batch.commitBlocks();
            round.bytes += bytes + (ahead ? staged.bytes() : 0);
            round.commits++;
            if (f.full) {
                round.fullPushes++;
            }
            if (ahead) {
                round.stagedAhead++;
            }
        }
        LOG.debug("push v{} to {}: {} blocks{}", batch.version(), sp, batch.commitBlocks(), f.full ? " (full)"
                : ahead ? " (staged ahead)" : "");
        long timeout = ackTimeoutMs << Math.min(sp.attempts, MAX_TIMEOUT_DOUBLINGS);
        CompletableFuture<CommitAck> future = sp.session.sendBatch(batch, timeout);
        future.whenComplete((ack, error) -> queue.append("push-done " + sp.name,
                () -> batchDone(sp, f, ack, error)));
        return true;
    }

    /**
     * What a batch of {@code blocks} blocks of {@code tables} takes of the room on the wire: its share of a full table, at least a
     * sixty-fourth (a commit alone still costs both ends a round trip).
     */
    private static int weight(TableSet tables, int blocks) {
        long tableBlocks = Math.max(1, ((long) tables.length() + LftBlock.SIZE - 1) / LftBlock.SIZE);
        return (int) Math.max(1, Math.min(FULL_TABLE_WEIGHT, (blocks * (long) FULL_TABLE_WEIGHT + tableBlocks - 1) / tableBlocks));
    }

    /** Counts blocks and bytes sent, with their commit or ahead of it, in the totals and the meters. */
    private void countSent(int blocks, long bytes) {
        totalBlocks += blocks;
        totalBytes += bytes;
        blocksCounter.increment(blocks);
        bytesCounter.increment(bytes);
    }

    /** Takes {@code f} off the wire; false when it was not on it (abandoned already). */
    private boolean retire(InFlight f) {
        if (!active.remove(f)) {
            return false;
        }
        activeWeight -= f.weight;
        return true;
    }

    private void batchDone(SwitchPush sp, InFlight f, CommitAck ack, Throwable error) {
        if (!retire(f)) {
            return; // abandoned when its switch was detached
        }
        try {
            completed(sp, f, ack, error);
        } finally {
            drain();
        }
    }

    /** Starts waiting switches, in their order, while there is room on the wire. */
    private void drain() {
        while (!waiting.isEmpty()) {
            long guid = waiting.iterator().next();
            SwitchPush next = switches.get(guid);
            if (next == null) {
                waiting.remove(guid);
                continue;
            }
            if (!sync(next)) {
                return; // the first in line waits for more room
            }
            waiting.remove(guid); // sent, or nothing to send any more
        }
    }

    private void completed(SwitchPush sp, InFlight f, CommitAck ack, Throwable error) {
        if (switches.get(sp.guid) != sp || sp.inFlight != f) {
            return;
        }
        sp.inFlight = null;
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause == null) {
            LftBatch b = f.batch;
            if (ack.version() == b.version() && ack.length() == b.length() && ack.hash() == b.hash()
                    && ack.rulesHash() == b.rulesHash()) {
                sp.held = HeldTable.of(f.target, f.row).withRules(ack.rulesHash());
                sp.attempts = 0;
                failing(sp, false);
                sp.lastError = null;
                if (round != null && round.version == b.version()) {
                    round.acked++;
                }
            } else {
                sp.held = HeldTable.unknown(ack.version(), ack.length(), ack.hash());
                failed(sp, "acknowledged v" + ack.version() + " hash " + Long.toHexString(ack.hash()) + " rules "
                        + Long.toHexString(ack.rulesHash()) + ", expected v" + b.version() + " hash "
                        + Long.toHexString(b.hash()) + " rules " + Long.toHexString(b.rulesHash()));
            }
        } else if (cause instanceof RequestFailedException rf && !rf.timeout()) {
            return; // the session closed; the controller detaches the switch
        } else {
            if (cause instanceof AgentErrorException) {
                sp.held = HeldTable.unknown(sp.held.version(), sp.held.length(), sp.held.hash());
            }
            failed(sp, cause.getMessage());
        }
        classify(sp);
        if (switches.get(sp.guid) == sp) {
            sync(sp);
        }
        checkRoundComplete();
        listener.progress();
    }

    private void failed(SwitchPush sp, String why) {
        sp.attempts++;
        failing(sp, sp.attempts > retries);
        sp.retries++;
        sp.lastError = why;
        totalRetries++;
        retriesCounter.increment();
        if (round != null) {
            round.retries++;
        }
        long nextTimeout = ackTimeoutMs << Math.min(sp.attempts, MAX_TIMEOUT_DOUBLINGS);
        if (sp.attempts <= retries) {
            LOG.warn("push to {} not confirmed ({}), retry {}/{} with a {} ms timeout", sp, why, sp.attempts, retries,
                    nextTimeout);
        } else if (sp.attempts == retries + 1) {
            LOG.error("push to {} failed {} times (last: {}); the switch stays out of sync, retrying with a {} ms timeout",
                    sp, sp.attempts, why, nextTimeout);
        } else {
            LOG.debug("push to {} failed again ({}), attempt {}", sp, why, sp.attempts);
        }
    }

    /** Attached switches whose push failed more than {@code push.retries} times in a row. */
    public int failingCount() {
        return failingCount;
    }

    private void checkRoundComplete() {
        if (round != null && round.completed < 0 && active.isEmpty() && pendingCount == 0) {
            round.completed = System.nanoTime();
        }
    }
}
