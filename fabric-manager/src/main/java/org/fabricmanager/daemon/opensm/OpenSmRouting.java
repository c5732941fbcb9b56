package org.fabricmanager.daemon.opensm;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.opensm.OpenSmWire.EndPort;
import org.fabricmanager.daemon.opensm.OpenSmWire.Subnet;
import org.fabricmanager.daemon.opensm.OpenSmWire.SwitchEntry;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.TopologyException;

/**
 * Turns each subnet OpenSM reports into what the agents would have said (a session per switch, its HELLO and
 * PORT_INFO, then PORT_STATUS for the ports that changed, a close for a switch OpenSM lost), waits until the daemon has
 * handed its tables for that fabric to every switch's session, and answers with every switch's table by LID: end
 * nodes as the daemon routed them, switch LIDs by the MinHop rule of {@code OpenSmTables}, exactly as {@code route
 * --lft-format opensm} writes them. OpenSM's SET after the pass tells each session whether its switch holds them. One
 * subnet at a time (the provider's lock); {@link #tablesSet} may come from the plug-in's channel meanwhile.
 */
final class OpenSmRouting {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private final SouthboundListener listener;
    private final DaemonApi api;
    private final SocketAddress address;
    private final OpenSmFallbackFiles fallbackFiles;
    /** The sessions' HELLO incarnation: this provider's start, so a restarted daemon's sessions are new runs. */
    private final long incarnation = System.currentTimeMillis() * 1000;
    /** Read by the SET handler while a pass is answered: concurrent. */
    private final Map<Long, OpenSmSwitchSession> sessions = new ConcurrentHashMap<>();
    private final Map<Long, List<PortRecord>> reported = new HashMap<>();
    /** The last subnet's switches and CA ports: a switch reported as before is not fed again. */
    private final Map<Long, SwitchEntry> lastSwitches = new HashMap<>();
    private List<EndPort> lastEnds = List.of();
    private final PassRequests passes;
    private final OpenSmAnswers answers = new OpenSmAnswers();
    /** Told why a SUBNET naming agents' switches was refused (logged and recorded, rate-limited). */
    private final Consumer<String> refusals;
    /** Why OpenSM is lost, or {@code null}. */
    private final Supplier<String> openSmLost;
    /** Where the last answer's time went, for the provider's log line. */
    private String lastBreakdown = "";
    private long lastHanded = -1;
    /** The fallback GUID files of the last answer, written once it is sent: the pass does not wait for them. */
    private Runnable filesDue;

    OpenSmRouting(SouthboundListener listener, DaemonApi api, SocketAddress address, PassRequests passes,
                  Consumer<String> refusals, Supplier<String> openSmLost) {
        this.listener = listener;
        this.api = api;
        this.address = address;
        this.passes = passes;
        this.refusals = refusals;
        this.openSmLost = openSmLost;
        this.fallbackFiles = OpenSmFallbackFiles.beside(address);
    }

    /** The answer to {@code subnet}: its tables, or a refusal saying why (OpenSM then falls back to its next engine). */
    OpenSmAnswer answer(Subnet subnet, long timeoutMs) throws InterruptedException {
        long begin = System.nanoTime();
        long cpuBegin = CPU.getCurrentThreadCpuTime();
        long deadline = begin + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        String taken = agentsSwitches(subnet);
        if (taken != null) {
            return new OpenSmAnswer.Refused(subnet.seq(), Refusal.INVALID, taken); // before any session is made of it
        }
        Map<Long, Long> destination = destinations(subnet);
        try (DaemonApi.Hold held = api.holdAnalyses()) {
            return answer(subnet, destination, begin, cpuBegin, deadline);
        }
    }

    /**
     * Why {@code subnet} is refused because it names switches that agents of their own manage (connected over mutual
     * TLS now, or earlier in this daemon's run), or {@code null}: the socket never speaks for such a switch.
     */
    private String agentsSwitches(Subnet subnet) {
        List<String> taken = new ArrayList<>();
        for (SwitchEntry s : subnet.switches()) {
            if (listener.heldByAgent(s.guid())) {
                taken.add(Guids.format(s.guid()) + (s.name().isEmpty() ? "" : " (" + s.name() + ")"));
            }
        }
        if (taken.isEmpty()) {
            return null;
        }
        String why = "OpenSM's subnet " + subnet.seq() + " names " + taken.size() + " switch(es) that an agent of its "
                + "own manages, which the OpenSM socket cannot take over: " + String.join(", ", taken.subList(0,
                Math.min(taken.size(), 8))) + (taken.size() > 8 ? ", ..." : "");
        refusals.accept(why);
        return why;
    }

    /** {@link #answer(Subnet, long)} with the daemon's analyses held: its tables by LID have the cores. */
    private OpenSmAnswer answer(Subnet subnet, Map<Long, Long> destination, long begin, long cpuBegin, long deadline)
            throws InterruptedException {
        listener.lmcReported(subnet.lmc()); // before the reports: the fabric they make has every LID
        feed(subnet, destination);
        long fed = System.nanoTime();
        long cpuFed = CPU.getCurrentThreadCpuTime();
        try {
            Handed handed = awaitHanded(subnet, deadline);
            if (handed == null) {
                return new OpenSmAnswer.Refused(subnet.seq(), Refusal.NOT_READY, "the daemon's tables were not ready in time (state "
                        + api.status().get(1, TimeUnit.SECONDS).state() + ")");
            }
            long ready = System.nanoTime();
            long cpuReady = CPU.getCurrentThreadCpuTime();
            OpenSmAnswer out = tables(subnet, destination, handed);
            lastHanded = handed.upTo();
            // wall and this thread's CPU: on a loaded machine the difference is the wait for a core
            lastBreakdown = String.format("fed %.1f ms (cpu %.1f), tables handed %.1f ms later, "
                    + "LID tables %.1f ms (cpu %.1f; %s, %d switches' routes searched)", (fed - begin) / 1e6,
                    (cpuFed - cpuBegin) / 1e6, (ready - fed) / 1e6, (System.nanoTime() - ready) / 1e6,
                    (CPU.getCurrentThreadCpuTime() - cpuReady) / 1e6, answers.lastKind(), answers.switchesSearched());
            return out;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopologyException t) {
                return new OpenSmAnswer.Refused(subnet.seq(), Refusal.INVALID, t.getMessage());
            }
            return new OpenSmAnswer.Refused(subnet.seq(), Refusal.NOT_READY, "the daemon did not answer: " + e.getCause());
        } catch (TimeoutException e) {
            return new OpenSmAnswer.Refused(subnet.seq(), Refusal.NOT_READY, "the daemon did not answer in time");
        } catch (TopologyException e) {
            return new OpenSmAnswer.Refused(subnet.seq(), Refusal.INVALID, e.getMessage());
        }
    }

    /**
     * The tables the daemon handed to every switch of its fabric, taken on its control thread once the routing in force
     * is installed (each OpenSM switch then has its batch, or holds its row already), or {@code null} at the deadline.
     */
    private Handed awaitHanded(Subnet subnet, long deadline)
            throws InterruptedException, ExecutionException {
        // the read comes after the subnet's reports on the control thread: a change they made is routing by then
        CompletableFuture<Handed> handed = api.whenHanded(f -> handed(subnet, f));
        try {
            return handed.get(remainingMs(deadline), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            handed.cancel(false);
            return null;
        }
    }

    /** What the answer to a pass carries: each switch's row of the fabric in force, by destination index. */
    private record Handed(Fabric fabric, long[] guids, byte[][] rows, long upTo) {
    }

    /** On the control thread: each switch's table as handed, remembered by its session as this pass's answer. */
    private Handed handed(Subnet subnet, Fabric fabric) {
        if (fabric.lmc() != subnet.lmc()) {
            throw new TopologyException("the daemon's fabric has LMC " + fabric.lmc() + ", OpenSM's subnet " + subnet.seq()
                    + " LMC " + subnet.lmc() + (fabric.lmc() == 0 ? " (switches of agents, which have no LMC, share the"
                    + " daemon's fabric)" : ""));
        }
        FabricIndex index = fabric.index();
        long upTo = passes.handedSoFar();
        Set<Long> routed = new HashSet<>();
        long[] guids = new long[index.switchCount()];
        byte[][] rows = new byte[guids.length][];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
            OpenSmSwitchSession session = sessions.get(guids[s]);
            if (session == null) {
                throw new TopologyException("switch " + Guids.format(guids[s]) + " of the daemon's fabric is not in OpenSM's subnet");
            }
            routed.add(guids[s]);
        }
        for (SwitchEntry s : subnet.switches()) {
            if (!routed.contains(s.guid())) {
                throw new TopologyException("switch " + Guids.format(s.guid()) + " (" + s.name() + ") is not in the "
                        + "daemon's fabric (not admitted, or without links)");
            }
        }
        for (int s = 0; s < guids.length; s++) {
            rows[s] = sessions.get(guids[s]).answer(subnet.seq());
        }
        return new Handed(fabric, guids, rows, upTo);
    }

    /** Brings OpenSM's fallback GUID files up to the last answer's fabric (after the answer is sent). */
    void writeFallbackFiles() {
        Runnable due = filesDue;
        filesDue = null;
        if (due != null) {
            due.run();
        }
    }

    /** The handed count the last answer with tables covered ({@link PassRequests}). */
    long lastHanded() {
        return lastHanded;
    }

    /**
     * Adds the changes OpenSM's performance manager read to the counters of the switches' sessions; records of ports
     * that are not a switch's of this subnet (CA ports, a switch gone) are left out.
     */
    void counters(OpenSmWire.CounterChanges changes) {
        int fields = PortCounter.ALL.length;
        long[] guids = changes.guids();
        for (int i = 0; i < guids.length; i++) {
            OpenSmSwitchSession s = sessions.get(guids[i]);
            if (s != null) {
                s.countersChanged(changes.ports()[i], changes.changes(), i * fields);
            }
        }
    }

    /**
     * OpenSM's word after a pass: the switches in {@code set} hold what it answered, the others it answered do not.
     *
     * @return how many of the switches that pass answered hold it, and how many it answered
     */
    int[] tablesSet(OpenSmWire.TablesSet set) {
        int held = 0;
        int answered = 0;
        for (OpenSmSwitchSession s : sessions.values()) {
            boolean holds = set.held().contains(s.guid());
            if (s.set(set.seq(), holds)) {
                answered++;
                held += holds ? 1 : 0;
            }
        }
        return new int[] {held, answered};
    }

    /** OpenSM is lost ({@code why}): the tables waiting on its switches cannot reach them now. */
    void openSmLost(String why) {
        for (OpenSmSwitchSession s : sessions.values()) {
            s.unreachable(why);
        }
    }

    /**
     * OpenSM is back ({@code how}): whatever happened meanwhile (a restart that routed with another engine), every
     * switch's table is confirmed again by a pass and OpenSM's word on it.
     */
    void openSmBack(String how) {
        for (OpenSmSwitchSession s : sessions.values()) {
            listener.tablesUnconfirmed(s, how);
        }
    }

    /** Where the last answer with tables spent its time. */
    String lastBreakdown() {
        return lastBreakdown;
    }

    /** Closes every session (the provider stops): the switches leave the daemon's fabric as lost agents do. */
    void closeAll(String reason) {
        for (OpenSmSwitchSession s : sessions.values()) {
            s.close(reason);
        }
        sessions.clear();
        reported.clear();
        lastSwitches.clear();
        lastEnds = List.of();
    }

    /**
     * The destination GUID of each CA port, by (node GUID, port): the node GUID for a node with one linked port, the
     * port GUID for each port of a node with several, as ibnetdiscover's reader decides.
     */
    private static Map<Long, Long> destinations(Subnet subnet) {
        Map<Long, Integer> linked = new HashMap<>();
        for (EndPort e : subnet.endPorts()) {
            linked.merge(e.nodeGuid(), 1, Integer::sum);
        }
        Map<Long, Long> out = new HashMap<>();
        for (EndPort e : subnet.endPorts()) {
            out.put(key(e.nodeGuid(), e.port()), linked.get(e.nodeGuid()) == 1 ? e.nodeGuid() : e.portGuid());
        }
        return out;
    }

    private static long key(long nodeGuid, int port) {
        return nodeGuid * 31 + port;
    }

    private void feed(Subnet subnet, Map<Long, Long> destination) {
        Map<Long, SwitchEntry> byGuid = new HashMap<>();
        for (SwitchEntry s : subnet.switches()) {
            byGuid.put(s.guid(), s);
        }
        Map<Long, EndPort> ends = new HashMap<>();
        for (EndPort e : subnet.endPorts()) {
            ends.put(key(e.nodeGuid(), e.port()), e);
        }
        for (Iterator<Map.Entry<Long, OpenSmSwitchSession>> it = sessions.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, OpenSmSwitchSession> e = it.next();
            SwitchEntry now = byGuid.get(e.getKey());
            if (now == null || e.getValue().closed() || now.ports() != e.getValue().hello().portCount()) {
                e.getValue().close(now == null ? "OpenSM's subnet no longer holds it" : "reported again by OpenSM");
                reported.remove(e.getKey());
                it.remove();
            }
        }
        boolean sameEnds = sameEnds(subnet.endPorts(), lastEnds);
        for (SwitchEntry s : subnet.switches()) {
            if (sameEnds && sessions.containsKey(s.guid()) && same(s, lastSwitches.get(s.guid()))) {
                continue; // what it reports is what it reported: no record to build
            }
            List<PortRecord> ports = new ArrayList<>(s.ports());
            for (int p = 1; p <= s.ports(); p++) {
                ports.add(port(p, s.peerGuid()[p - 1], s.peerPort()[p - 1], byGuid, ends, destination));
            }
            OpenSmSwitchSession session = sessions.get(s.guid());
            if (session == null) {
                // port counters come from OpenSM's performance manager, through the session
                Hello hello = new Hello(0, Protocol.MIN_VERSION, Protocol.MAX_VERSION, s.guid(), incarnation, s.ports(),
                        Protocol.DEFAULT_MAX_FRAME, 0, 0, 0, s.name().isEmpty() ? Guids.format(s.guid()) : s.name(),
                        Protocol.FEATURE_PORT_COUNTERS);
                session = new OpenSmSwitchSession(hello, address, listener, passes, openSmLost);
                sessions.put(s.guid(), session);
                listener.helloReceived(session, hello);
                listener.portInfoReceived(session, new PortInfo(0, ports));
            } else {
                List<PortRecord> before = reported.get(s.guid());
                List<PortRecord> changed = new ArrayList<>();
                for (int i = 0; i < ports.size(); i++) {
                    if (!ports.get(i).equals(before.get(i))) {
                        changed.add(ports.get(i));
                    }
                }
                if (!changed.isEmpty()) {
                    listener.portStatusReceived(session, new PortStatus(0, changed));
                }
            }
            reported.put(s.guid(), ports);
        }
        lastEnds = subnet.endPorts();
        lastSwitches.clear();
        for (SwitchEntry s : subnet.switches()) {
            lastSwitches.put(s.guid(), s);
        }
    }

    /**
     * Whether OpenSM reports the CA ports it reported last time. Field by field: the records' own equals, run once per
     * pass that changed something, is slow at the first fault after a start, not compiled yet (docs/performance.md,
     * "Choices in the code, measured").
     */
    private static boolean sameEnds(List<EndPort> a, List<EndPort> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            EndPort x = a.get(i);
            EndPort y = b.get(i);
            if (x.nodeGuid() != y.nodeGuid() || x.portGuid() != y.portGuid() || x.port() != y.port()
                    || x.lid() != y.lid() || x.lmc() != y.lmc() || !x.name().equals(y.name())) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code a} says what {@code b} said: its LID, name and every port's peer. */
    private static boolean same(SwitchEntry a, SwitchEntry b) {
        return b != null && a.lid() == b.lid() && a.name().equals(b.name()) && Arrays.equals(a.peerGuid(), b.peerGuid())
                && Arrays.equals(a.peerPort(), b.peerPort());
    }

    private static PortRecord port(int p, long peer, int peerPort, Map<Long, SwitchEntry> switches,
                                   Map<Long, EndPort> ends, Map<Long, Long> destination) {
        if (peer == 0) {
            return PortRecord.down(p);
        }
        SwitchEntry sw = switches.get(peer);
        if (sw != null) {
            return PortRecord.toSwitch(p, peer, peerPort, sw.name());
        }
        EndPort end = ends.get(key(peer, peerPort));
        if (end != null) {
            return PortRecord.toNode(p, destination.get(key(peer, peerPort)), end.name());
        }
        return PortRecord.upWithoutPeer(p); // a node OpenSM has not finished discovering
    }

    private OpenSmAnswer tables(Subnet subnet, Map<Long, Long> destination, Handed handed) {
        Fabric fabric = handed.fabric();
        FabricIndex index = fabric.index();
        long[] guids = handed.guids();
        byte[][] rows = new byte[guids.length][];
        int destinations = 0;
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            destinations = Math.max(destinations, index.nodeIndex(pos) + 1);
        }
        for (byte[] row : handed.rows()) {
            destinations = Math.max(destinations, row.length);
        }
        for (int s = 0; s < rows.length; s++) {
            // a session's tables are never written once handed: a switch whose table did not change gives the same
            // array again, which the LID tables skip without comparing it
            byte[] row = handed.rows()[s];
            rows[s] = row.length == destinations ? row : Arrays.copyOf(row, destinations);
            Arrays.fill(rows[s], row.length, destinations, (byte) ForwardingTables.NO_ROUTE);
        }
        Map<Long, Integer> lidByGuid = new HashMap<>();
        Map<Long, Long> portGuids = new HashMap<>();
        for (SwitchEntry s : subnet.switches()) {
            if (s.lid() != 0) {
                lidByGuid.put(s.guid(), s.lid());
            }
        }
        for (EndPort e : subnet.endPorts()) {
            long d = destination.get(key(e.nodeGuid(), e.port()));
            if (e.lid() != 0) {
                lidByGuid.put(d, e.lid());
            }
            portGuids.put(d, e.portGuid());
        }
        LidPlan lids = new LidPlan(lidByGuid, portGuids).withLmc(subnet.lmc(), portGuids.keySet());
        filesDue = () -> fallbackFiles.write(fabric, portGuids);
        return answers.answer(subnet.seq(), subnet.held(), fabric, guids, rows, lids);
    }

    private static long remainingMs(long deadline) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }
}
