package org.fabricmanager.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.agent.SwitchAgent.State;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message.HelloReply;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.ProtocolException;

/**
 * What one agent holds across its connections: the switch's port records, the table in force and the batch
 * being staged, the connection state, the run's incarnation, the daemon's id, the highest manager term seen,
 * the transaction ids and the counters. Written on the agent's event loop only; the volatile fields may be read
 * from any thread.
 */
final class AgentState {
    private final SwitchAgent agent;
    private final AgentListener listener;
    private final TableStager stager;
    private final ForwardingPlane plane;

    private volatile PortRecord[] ports;
    private volatile AppliedTable table = AppliedTable.EMPTY;
    private volatile State state = State.STOPPED;
    private volatile long incarnation;
    private volatile long incarnationFloor;
    private volatile long daemonId;
    /**
     * The highest Raft term of a hot-standby manager seen in HELLO_REPLY or LFT_COMMIT (loop thread; 0
     * outside a group); kept across sessions, so a deposed manager's later commit is refused.
     */
    private long highestTerm;
    /** The daemon's receive limit from the last HELLO_REPLY: no frame to it may be larger. */
    private int daemonMaxFrame = Protocol.MIN_MAX_FRAME;
    private int nextTxid;

    private final AtomicLong blocksReceived = new AtomicLong();
    private final AtomicLong commitsApplied = new AtomicLong();
    private final AtomicLong commitsRefused = new AtomicLong();
    private final AtomicLong handshakes = new AtomicLong();
    private final AtomicLong tlsResumptions = new AtomicLong();

    /**
     * @param ports    the port records, index = port number (index 0 unused)
     * @param listener observer of state changes and applied tables, or {@code null}
     * @param plane    where committed tables are applied
     */
    AgentState(SwitchAgent agent, PortRecord[] ports, AgentListener listener, ForwardingPlane plane) {
        this.agent = agent;
        this.ports = ports;
        this.listener = listener;
        this.plane = plane;
        this.stager = new TableStager(ports.length - 1);
    }

    State state() {
        return state;
    }

    /** Moves to {@code next} and tells the listener, when it is a change. */
    void enter(State next) {
        if (state != next) {
            state = next;
            if (listener != null) {
                listener.stateChanged(agent, next);
            }
        }
    }

    int takeTxid() {
        nextTxid = Protocol.nextTxid(nextTxid);
        return nextTxid;
    }

    // ---- ports -----------------------------------------------------------------------------------

    /** A snapshot of the port records of ports 1..portCount. */
    List<PortRecord> ports() {
        PortRecord[] p = ports;
        List<PortRecord> list = new ArrayList<>(p.length - 1);
        for (int i = 1; i < p.length; i++) {
            list.add(p[i]);
        }
        return list;
    }

    /** Replaces one port's record (copy on write: readers see one array or the other); false when it is unchanged. */
    boolean replacePort(PortRecord record) {
        PortRecord[] current = ports;
        if (current[record.port()].equals(record)) {
            return false;
        }
        PortRecord[] next = current.clone();
        next[record.port()] = record;
        ports = next;
        return true;
    }

    // ---- the table -------------------------------------------------------------------------------

    AppliedTable table() {
        return table;
    }

    TableStager stager() {
        return stager;
    }

    /** The switch lost its forwarding state: the empty table from now on. */
    void clearTable() {
        table = AppliedTable.EMPTY;
        stager.clear();
    }

    /**
     * Applies the staged batch that {@code commit} ends.
     *
     * @return the table now in force
     * @throws ProtocolException STALE_TERM when a manager of a higher term has been seen (the batch is dropped),
     *                           whatever the stager finds wrong with the batch, or APPLY_FAILED when the forwarding
     *                           plane did not take the table (the held table stays)
     */
    AppliedTable applyCommit(LftCommit commit) {
        if (commit.managerTerm() < highestTerm) {
            stager.clear();
            throw new ProtocolException(ErrorCode.STALE_TERM, commit.type().code(), commit.txid(),
                    "commit of v" + commit.version() + " from a manager of term " + commit.managerTerm()
                            + ", but a manager of term " + highestTerm + " has been seen: refused");
        }
        highestTerm = commit.managerTerm();
        AppliedTable next = stager.commit(table, commit);
        try {
            plane.install(table, next);
        } catch (ForwardingPlane.InstallException e) {
            throw new ProtocolException(ErrorCode.APPLY_FAILED, commit.type().code(), commit.txid(),
                    "table v" + commit.version() + " not applied: " + e.getMessage());
        }
        table = next;
        commitsApplied.incrementAndGet();
        return next;
    }

    /** Tells the listener that {@code applied} is in force (after the ack went out). */
    void tableApplied(AppliedTable applied) {
        if (listener != null) {
            listener.tableApplied(agent, applied);
        }
    }

    // ---- the run and the session -----------------------------------------------------------------

    long incarnation() {
        return incarnation;
    }

    /** Makes every later start take an incarnation above {@code previousIncarnation}. */
    void continueAfter(long previousIncarnation) {
        incarnationFloor = Math.max(incarnationFloor, previousIncarnation);
    }

    /** A start at {@code nowMillis} takes a new incarnation. */
    void beginIncarnation(long nowMillis) {
        incarnation = nextIncarnation(Math.max(incarnation, incarnationFloor), nowMillis);
    }

    /**
     * The incarnation of a start at {@code nowMillis} when the highest earlier one is {@code previous}:
     * the start time in ms × 1000, so that an agent process restarted later (a new JVM, knowing nothing
     * of its predecessor) starts higher; or {@code previous + 1} when that is not lower (restarts within
     * one millisecond, a wall clock set back). The factor 1000 leaves room for a thousand restarts per
     * millisecond before the incarnations run ahead of the clock.
     */
    static long nextIncarnation(long previous, long nowMillis) {
        return Math.max(previous + 1, nowMillis * 1000);
    }

    long daemonId() {
        return daemonId;
    }

    /** The daemon's receive limit (event loop). */
    int daemonMaxFrame() {
        return daemonMaxFrame;
    }

    long highestTerm() {
        return highestTerm;
    }

    /** Takes the daemon's id and its manager's term from the HELLO_REPLY that opened a session. */
    void daemonAnswered(HelloReply reply) {
        daemonId = reply.daemonId();
        daemonMaxFrame = reply.maxFrame();
        highestTerm = Math.max(highestTerm, reply.managerTerm());
    }

    // ---- counters --------------------------------------------------------------------------------

    AtomicLong blocksReceived() {
        return blocksReceived;
    }

    AtomicLong commitsApplied() {
        return commitsApplied;
    }

    AtomicLong commitsRefused() {
        return commitsRefused;
    }

    AtomicLong handshakes() {
        return handshakes;
    }

    AtomicLong tlsResumptions() {
        return tlsResumptions;
    }
}
