package org.fabricmanager.agent;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.util.Collection;
import java.util.List;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Guids;

/**
 * One switch's agent: the switch's ports and neighbours, the forwarding table it applies (with version
 * and hash) and its connection to the daemon ({@code docs/protocol.md}). It connects, says HELLO with
 * the table it holds, sends its ports, stages LFT blocks and applies each commit atomically, reports
 * port changes, and reconnects with exponential backoff and jitter whenever the connection is lost.
 * This class is the agent's face; the work is done by its parts: {@code AgentState} (what it holds),
 * {@code ManagerConnector} (reaching a manager, reconnecting, following redirects), {@code AgentChannelHandler}
 * (one connection's protocol) and {@code DetectorLink} (the failure detector's configuration).
 *
 * <p>With TLS material in its {@link AgentSettings} the agent speaks TLS 1.3, presents its switch's
 * certificate, trusts only the fabric CA(s), and says HELLO only once the daemon has proved to be the
 * daemon (its certificate names {@code urn:fabric:daemon}: another switch's certificate, also signed
 * by the fabric CA, does not).
 *
 * <p>All state changes run on the agent's own event loop (given at construction and possibly shared
 * with thousands of other agents), so the agent needs no locks; the public methods may be called from
 * any thread.
 */
public final class SwitchAgent {
    /** Connection states of an agent ({@code docs/protocol.md}, section 4). */
    public enum State {
        /** Not running: never started, stopped or killed. */
        STOPPED,
        /** Waiting out a backoff delay before reconnecting. */
        WAITING,
        /** TCP connect in progress. */
        CONNECTING,
        /** Connected, HELLO sent, waiting for HELLO_REPLY. */
        HELLO_SENT,
        /** Handshake complete: receives tables and reports port changes. */
        ACTIVE
    }

    private final long guid;
    private final String name;
    private final int portCount;
    private final EventLoop loop;
    private final AgentState state;
    private final DetectorLink detector;
    private final ManagerConnector connector;
    /** Where the port counters are read, or {@code null}: the agent announces none. */
    private final PortCounterSource counters;

    /**
     * @param ports the initial port records, one per port 1..{@code portCount} (missing ports are DOWN)
     * @param deps  the event loop, jitter source and hooks the embedding lends the agent
     */
    public SwitchAgent(long guid, String name, int portCount, Collection<PortRecord> ports, AgentSettings settings,
                       AgentDependencies deps) {
        if (portCount < 1 || portCount > Protocol.MAX_PORTS) {
            throw new IllegalArgumentException("switch " + Guids.format(guid) + ": port count " + portCount);
        }
        this.guid = guid;
        this.name = name;
        this.portCount = portCount;
        this.loop = deps.loop();
        this.state = new AgentState(this, initialPorts(guid, portCount, ports), deps.listener(), deps.plane());
        PortCounterSource own = deps.plane().counters();
        this.counters = !settings.portCounters() ? null : own != null ? own
                : deps.plane() == ForwardingPlane.SIMULATED
                ? new SimulatedCounters(guid, portCount, state::incarnation, state::ports, System::nanoTime) : null;
        this.detector = new DetectorLink(this, state);
        this.connector = new ManagerConnector(this, state, detector, settings, deps);
    }

    /** The port records by port number (index 0 unused), DOWN where {@code ports} names none. */
    private static PortRecord[] initialPorts(long guid, int portCount, Collection<PortRecord> ports) {
        PortRecord[] initial = new PortRecord[portCount + 1];
        for (int p = 1; p <= portCount; p++) {
            initial[p] = PortRecord.down(p);
        }
        for (PortRecord r : ports) {
            if (r.port() < 1 || r.port() > portCount) {
                throw new IllegalArgumentException("switch " + Guids.format(guid) + ": port " + r.port() + " outside [1, "
                        + portCount + "]");
            }
            initial[r.port()] = r;
        }
        return initial;
    }

    /**
     * Makes port {@code port}'s simulated counters receive {@code perSecond} errors a second (0 stops them): the
     * demo's hand ({@code POST /api/v1/sim/links/errors}). Any thread.
     *
     * @throws UnsupportedOperationException when this agent reads a real switch's counters, or reports none
     */
    public void injectErrors(int port, long perSecond) {
        if (!(counters instanceof SimulatedCounters simulated)) {
            throw new UnsupportedOperationException("switch " + this + " counts no simulated errors (its counters are "
                    + (counters == null ? "not reported" : "a real switch's") + ")");
        }
        simulated.injectErrors(port, perSecond);
    }

    /** Where the port counters are read, or {@code null} when the agent reports none (event loop). */
    PortCounterSource counters() {
        return counters;
    }

    // ---- public API (any thread) --------------------------------------------------------------

    public long guid() {
        return guid;
    }

    public String name() {
        return name;
    }

    public int portCount() {
        return portCount;
    }

    public State state() {
        return state.state();
    }

    /** The table in force (the last applied commit), never {@code null}. */
    public AppliedTable table() {
        return state.table();
    }

    /**
     * The incarnation of the current (or last) run, 0 before the first start. Every start takes a
     * higher one: its start time in ms × 1000, or one above the previous incarnation when that is not
     * lower (see {@code AgentState.nextIncarnation}).
     */
    public long incarnation() {
        return state.incarnation();
    }

    /**
     * Makes every later start of this agent take an incarnation above {@code previousIncarnation}: call
     * it (before {@link #start}) when this object replaces an earlier agent of the same switch in this
     * JVM, with that agent's {@link #incarnation()}. Two objects started within the same millisecond
     * would otherwise both start from the clock, and the daemon lets a restarted agent take over the
     * switch's session only with a strictly higher incarnation ({@code docs/protocol.md}, 3.1).
     */
    public void continueAfter(long previousIncarnation) {
        loop.execute(() -> state.continueAfter(previousIncarnation));
    }

    /** The daemon's id from the last HELLO_REPLY, or 0. */
    public long daemonId() {
        return state.daemonId();
    }

    /** A snapshot of the port records, index = port number (index 0 unused). */
    public List<PortRecord> ports() {
        return state.ports();
    }

    public long blocksReceived() {
        return state.blocksReceived().get();
    }

    public long commitsApplied() {
        return state.commitsApplied().get();
    }

    public long commitsRefused() {
        return state.commitsRefused().get();
    }

    /** The highest manager term seen (0 without hot-standby managers). */
    public long highestManagerTerm() {
        return state.highestTerm();
    }

    /** Completed handshakes since construction. */
    public long handshakes() {
        return state.handshakes().get();
    }

    /** TLS handshakes since construction that resumed an earlier session (a ticket) instead of a full one (BoringSSL only). */
    public long tlsResumptions() {
        return state.tlsResumptions().get();
    }

    /** The last complete failure-detector configuration, or {@code null}. */
    public RingAssignment detectorRing() {
        return detector.ring();
    }

    /** Accept DETECTOR_CONFIG and hand complete rings to {@code l} ({@code null}: refuse it). */
    public void detectorListener(DetectorConfigListener l) {
        detector.listener(l);
    }

    /**
     * Whether this agent takes its ring as a window (DETECTOR_WINDOW, asking for other members with
     * DETECTOR_LOOKUP); true by default, off only to play an agent that predates it (the daemon then sends
     * the whole ring in DETECTOR_CONFIG chunks). Takes effect at the next connection.
     */
    public void detectorWindowForm(boolean on) {
        detector.windowForm(on);
    }

    /**
     * Asks the daemon for the addresses of ring members {@code members} of epoch {@code epoch} (answered with
     * DETECTOR_PEERS, handed to the detector listener); nothing is sent while the session is not active. Any
     * thread.
     */
    public void lookupDetectorPeers(long epoch, int[] members) {
        int[] copy = members.clone();
        loop.execute(() -> {
            if (state.state() == State.ACTIVE) {
                detector.lookup(connector.channel(), epoch, copy);
            }
        });
    }

    /**
     * The UDP port this agent's failure-detector member listens on (with a detector listener): after each
     * PORT_INFO the agent tells the daemon, with the address its session comes from, in DETECTOR_ENDPOINT.
     * 0 (the default): it says nothing and the daemon uses the session's address and its configured agent port.
     */
    public void detectorPort(int port) {
        detector.port(port);
    }

    /**
     * Connects from {@code address} (set before {@link #start}): the management interface of a switch with
     * several, or distinct loopback addresses for simulated switches.
     */
    public void bindFrom(InetAddress address) {
        connector.bindFrom(address);
    }

    /** The address the agent connects from, or {@code null} for the system's choice. */
    public InetAddress boundAddress() {
        return connector.boundAddress();
    }

    /** Starts connecting (with a new incarnation); no effect when already running. */
    public Future<Void> start() {
        Promise<Void> done = loop.newPromise();
        loop.execute(() -> {
            if (!connector.running()) {
                state.beginIncarnation(System.currentTimeMillis());
                connector.start();
            }
            done.setSuccess(null);
        });
        return done;
    }

    /** Stops: closes the connection and stops reconnecting. The table stays in force. */
    public Future<Void> stop() {
        Promise<Void> done = loop.newPromise();
        loop.execute(() -> {
            connector.stopReconnecting();
            state.stager().clear();
            connector.close(done);
            state.enter(State.STOPPED);
        });
        return done;
    }

    /**
     * The switch lost its forwarding state (a power cycle or an ASIC reset): the agent holds the empty table
     * from now on (only while stopped; the next HELLO says so).
     */
    public void clearTable() {
        loop.execute(() -> {
            if (!connector.running()) {
                state.clearTable();
            }
        });
    }

    /** Replaces one port's record; when it changed and the agent is active, reports it with PORT_STATUS. */
    public void setPort(PortRecord record) {
        if (record.port() < 1 || record.port() > portCount) {
            throw new IllegalArgumentException(Guids.format(guid) + ": port " + record.port() + " outside [1, " + portCount + "]");
        }
        loop.execute(() -> {
            if (state.replacePort(record) && state.state() == State.ACTIVE) {
                connector.channel().writeAndFlush(new Message.PortStatus(state.takeTxid(), List.of(record)));
            }
        });
    }

    @Override
    public String toString() {
        return "agent " + Guids.format(guid) + " (" + name + ")";
    }
}
