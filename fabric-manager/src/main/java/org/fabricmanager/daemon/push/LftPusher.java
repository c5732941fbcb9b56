package org.fabricmanager.daemon.push;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongPredicate;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.push.SwitchPush.Diff;
import org.fabricmanager.daemon.push.SwitchPush.InFlight;
import org.fabricmanager.daemon.push.SwitchPush.Staged;
import org.fabricmanager.daemon.push.SwitchPush.Status;
import org.fabricmanager.southbound.AgentErrorException;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.RequestFailedException;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.SwitchUnreachableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * A switch that the tables route no traffic through (a dead switch whose links are all gone, whose agent refuses
 * every table) is pushed and retried like any other, and shown pending or failing, but is not
 * {@link #awaitedCount awaited}: convergence on the tables that route around it does not wait for it.
 *
 * <p>Runs on the control thread; completions of batches come back as control events. The room on the wire is
 * {@link WireRoom}'s, retries and timeouts {@link PushRetries}', the figures {@link PushAccounting}'s and
 * {@link StatusCounts}', the versions a HELLO is matched against {@link TableHistory}'s and the blocks sent ahead
 * {@link AheadStaging}'s.
 */
public final class LftPusher implements PushFigures {
    private static final Logger LOG = LoggerFactory.getLogger(LftPusher.class);

    /** Told after every acknowledgement or failure, to re-evaluate convergence. */
    @FunctionalInterface
    public interface Listener {
        void progress();
    }

    private final ControlLoop queue;
    private final Listener listener;
    private final Map<Long, SwitchPush> switches = new HashMap<>();
    private final WireRoom wire;
    private final StatusCounts counts = new StatusCounts();
    private final PushAccounting accounting;
    private final PushRetries retries;
    private final TableHistory history = new TableHistory();
    private final AheadStaging staging;
    private TableSet current;
    /** The switches the current tables route no traffic through (see {@link #install(TableSet, LongPredicate)}). */
    private LongPredicate routedAround = guid -> false;

    /**
     * @param maxInFlight how many full tables may be on the wire at once; a batch of fewer blocks takes its share (a
     *                    sixty-fourth at least), so that a change of one block on every switch (a node's link) is not
     *                    paced like a full push
     */
    public LftPusher(long ackTimeoutMs, int retries, int maxInFlight, ControlLoop queue, MeterRegistry registry,
                     Listener listener) {
        this.queue = queue;
        this.listener = listener;
        this.wire = new WireRoom(maxInFlight);
        this.accounting = new PushAccounting(registry);
        this.retries = new PushRetries(ackTimeoutMs, retries, counts, accounting);
        this.staging = new AheadStaging(wire, accounting);
    }

    /** The tables being installed, or {@code null} before the first routing. */
    public TableSet current() {
        return current;
    }

    /**
     * Sends {@code next}'s blocks, without their commits, to the switches whose rows it changes, as long as they
     * hold the current tables and have nothing on the wire: if {@code next} is {@link #install installed} before
     * anything else is sent to them, each gets only its commit. At a switch's death that takes the blocks off the
     * reaction's path (at 5,120 switches most blocks of 64 switches: docs/performance.md, "Push sizes"), sent during
     * the echo wait that confirms the death; if it is refuted, {@link #dropStaged} forgets them, and the switches
     * discard them at their next batch (another version). {@code next}'s version must never be used by other tables.
     * At most {@code push.maxInFlight} full tables' worth, as a push puts on the wire at once.
     *
     * @return the switches that got blocks
     */
    public int stage(TableSet next) {
        return staging.stage(current, next, switches.values());
    }

    /** Forgets the blocks {@link #stage staged} ahead (their tables will not be installed). */
    public void dropStaged() {
        staging.drop(switches.values());
    }

    /** Makes {@code tables} the version to install and starts pushing it; every switch they cover is awaited. */
    public void install(TableSet tables) {
        install(tables, guid -> false);
    }

    /**
     * Makes {@code tables} the version to install and starts pushing it.
     *
     * @param routedAround the switches {@code tables} route no traffic through (no link left in the fabric they were
     *                     computed for): pushed as the others, but not {@link #awaitedCount awaited}
     */
    public void install(TableSet tables, LongPredicate routedAround) {
        staging.installing(tables, switches.values()); // the staged commits are sent now
        current = tables;
        this.routedAround = routedAround;
        history.add(tables);
        accounting.startRound(tables.version());
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
        SwitchPush sp = new SwitchPush(guid, name, session, history.reconcile(guid, hello, current));
        SwitchPush previous = switches.put(guid, sp);
        queue.cancelDeferred(backoffTag(guid)); // a new session starts without failures
        if (previous != null) {
            counts.forget(previous);
        }
        classify(sp);
        sync(sp);
        drain();
    }

    /**
     * What the switch holds must be confirmed again (its manager, OpenSM, was lost meanwhile): it is pushed whole now,
     * pending until it acknowledges.
     */
    public void unconfirm(long guid) {
        SwitchPush sp = switches.get(guid);
        if (sp == null) {
            return;
        }
        sp.held = HeldTable.unconfirmed(sp.held);
        queue.cancelDeferred(backoffTag(guid));
        classify(sp);
        sync(sp);
        drain();
        checkRoundComplete();
        listener.progress();
    }

    /** A switch disconnected; its in-flight batch is abandoned. */
    public void detach(long guid) {
        SwitchPush sp = switches.remove(guid);
        wire.dequeue(guid);
        queue.cancelDeferred(backoffTag(guid));
        if (sp != null) {
            counts.forget(sp);
            if (sp.inFlight != null) {
                wire.retire(sp.inFlight);
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
        // a batch on its way may have landed already, its ack not back yet: the switch holds what it held or that
        // batch, and is in sync only if both are its current row
        LftBatch flying = sp.inFlight == null ? null : sp.inFlight.batch;
        return row >= 0 && sp.held.length() == current.length() && sp.held.hash() == current.hash(row)
                && (!current.hasRules() || sp.held.rulesHash() == current.rulesHash(row))
                && (flying == null || flying.length() == current.length() && flying.hash() == current.hash(row)
                        && (!current.hasRules() || flying.rulesHash() == current.rulesHash(row)));
    }

    /** Attached switches that the current tables cover and that hold them. */
    public int inSyncCount() {
        return counts.inSync();
    }

    /** Attached switches that the current tables cover and that do not hold them yet. */
    public int pendingCount() {
        return counts.pending();
    }

    /**
     * Attached switches that the current tables cover and route traffic through, and that do not hold them yet: what
     * convergence waits for. The {@link #routedAroundCount others} are pending too, but no packet meets their tables.
     */
    public int awaitedCount() {
        return counts.awaited();
    }

    /** Pending switches that the current tables route no traffic through (not {@link #awaitedCount awaited}). */
    public int routedAroundCount() {
        return counts.routedAround();
    }

    /** Attached switches that the current tables do not cover (none before the first tables). */
    public int uncoveredCount() {
        return counts.uncovered();
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
            next = routedAround.test(sp.guid) ? Status.ROUTED_AROUND : Status.PENDING;
        }
        counts.move(sp, next);
    }

    /** The push state of one switch, or {@code null} when it is not attached. */
    public SwitchPushState state(long guid) {
        SwitchPush sp = switches.get(guid);
        if (sp == null) {
            return null;
        }
        return new SwitchPushState(sp.held.version(), sp.held.hash(), sp.held.known(), inSync(sp), sp.inFlight != null,
                sp.retries, sp.lastError, sp.confirmedAtMillis < 0 ? null : sp.confirmedAtMillis);
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
        return accounting.round();
    }

    @Override
    public PushTotals totals() {
        return accounting.totals();
    }

    @Override
    public int switchesAckedAfter(long acks) {
        int n = 0;
        for (SwitchPush sp : switches.values()) {
            n += sp.lastAck > acks ? 1 : 0;
        }
        return n;
    }

    public long totalBlocks() {
        return accounting.totalBlocks();
    }

    public long totalBytes() {
        return accounting.totalBytes();
    }

    public long totalCommits() {
        return accounting.totalCommits();
    }

    public long totalRetries() {
        return accounting.totalRetries();
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
            wire.dequeue(sp.guid);
            sp.waitingDiff = null;
            return true;
        }
        boolean paced = sp.session.capabilities().pacedOnWire();
        if (paced && wire.othersFirst(sp.guid)) {
            wire.enqueue(sp.guid); // first come, first served: and its blocks are not computed until its turn
            return false;
        }
        Staged staged = sp.staged;
        boolean ahead = staged != null && staged.diff().isFor(current, row, sp.held);
        Diff diff = sp.waitingDiff;
        if (!ahead && (diff == null || !diff.isFor(current, row, sp.held))) {
            diff = new Diff(current, row, sp.held, BlockDiff.blocks(sp.held, current, row));
        }
        List<LftBatch.Block> blocks = ahead ? List.of() : diff.blocks();
        // an unpaced switch's batch (OpenSM's) takes no room: its answer waits for every such switch's batch
        int weight = paced ? WireRoom.weight(current, blocks.size()) : 0;
        if (paced && !wire.fits(weight)) {
            wire.enqueue(sp.guid);
            sp.waitingDiff = ahead ? null : diff; // not computed again at each try
            return false;
        }
        wire.dequeue(sp.guid);
        sp.waitingDiff = null;
        sp.staged = null; // used now, or outdated: anything sent to the switch from here on discards it there
        // rules go with every batch of a fabric that has them: the HELLO does not say which rules a switch holds
        LftBatch batch = new LftBatch(current.version(), blocks, current.length(), current.hash(row),
                current.rules(row), current.rulesHash(row), ahead ? staged.diff().blocks().size() : 0);
        InFlight f = new InFlight(batch, current, row, !sp.held.known(), weight);
        sp.inFlight = f;
        wire.take(f);
        long bytes = batch.wireBytes(sp.session.blockRunEntries());
        accounting.sent(blocks.size(), bytes);
        accounting.committed(batch, bytes, f.full, ahead, ahead ? staged.bytes() : 0);
        LOG.debug("push v{} to {}: {} blocks{}", batch.version(), sp, batch.commitBlocks(), f.full ? " (full)"
                : ahead ? " (staged ahead)" : "");
        long timeout = retries.timeoutMs(sp);
        CompletableFuture<CommitAck> future = sp.session.sendBatch(batch, timeout);
        future.whenComplete((ack, error) -> queue.append("push-done " + sp.name,
                () -> batchDone(sp, f, ack, error)));
        return true;
    }

    private void batchDone(SwitchPush sp, InFlight f, CommitAck ack, Throwable error) {
        if (!wire.retire(f)) {
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
        while (!wire.noneWaiting()) {
            long guid = wire.firstWaiting();
            SwitchPush next = switches.get(guid);
            if (next == null) {
                wire.dequeue(guid);
                continue;
            }
            if (!sync(next)) {
                return; // the first in line waits for more room
            }
            wire.dequeue(guid); // sent, or nothing to send any more
        }
    }

    private void completed(SwitchPush sp, InFlight f, CommitAck ack, Throwable error) {
        if (switches.get(sp.guid) != sp || sp.inFlight != f) {
            return;
        }
        sp.inFlight = null;
        long backoff = 0;
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause == null) {
            LftBatch b = f.batch;
            if (ack.version() == b.version() && ack.length() == b.length() && ack.hash() == b.hash()
                    && ack.rulesHash() == b.rulesHash()) {
                sp.held = HeldTable.of(f.target, f.row).withRules(ack.rulesHash());
                retries.succeeded(sp);
                sp.lastAck = accounting.acked(b.version());
                sp.confirmedAtMillis = System.currentTimeMillis();
            } else {
                sp.held = HeldTable.unknown(ack.version(), ack.length(), ack.hash());
                backoff = retries.failed(sp, true, "acknowledged v" + ack.version() + " hash " + Long.toHexString(ack.hash()) + " rules "
                        + Long.toHexString(ack.rulesHash()) + ", expected v" + b.version() + " hash "
                        + Long.toHexString(b.hash()) + " rules " + Long.toHexString(b.rulesHash()));
            }
        } else if (cause instanceof RequestFailedException rf && !rf.timeout()) {
            return; // the session closed; the controller detaches the switch
        } else if (cause instanceof SwitchUnreachableException) {
            backoff = retries.unreachable(sp, cause.getMessage());
        } else {
            boolean refused = cause instanceof AgentErrorException;
            if (refused) {
                sp.held = HeldTable.unknown(sp.held.version(), sp.held.length(), sp.held.hash());
            } else {
                // no ack in time: the agent may have applied the batch and its ack come late or never, so the switch
                // holds what it held or the batch; were the held row kept, a version that changes the row back would
                // count it in sync without a round trip while it forwards by the batch
                sp.held = HeldTable.unconfirmed(sp.held);
            }
            backoff = retries.failed(sp, refused, cause.getMessage());
        }
        classify(sp);
        if (backoff > 0) {
            // a refusal comes back at once: without a wait, a switch whose kernel refuses every table got a full push
            // per round trip
            queue.scheduleDeferred(backoffTag(sp.guid), backoff, () -> {
                if (switches.get(sp.guid) == sp) {
                    sync(sp);
                    checkRoundComplete();
                }
            });
        } else if (switches.get(sp.guid) == sp) {
            sync(sp);
        }
        checkRoundComplete();
        listener.progress();
    }

    private static String backoffTag(long guid) {
        return "push-backoff " + Long.toHexString(guid);
    }

    /** Attached switches whose push failed more than {@code push.retries} times in a row. */
    public int failingCount() {
        return counts.failing();
    }

    private void checkRoundComplete() {
        if (wire.idle() && counts.pending() == 0) {
            accounting.roundComplete();
        }
    }
}
