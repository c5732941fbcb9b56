package org.fabricmanager.daemon.opensm;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.opensm.OpenSmWire.EndPort;
import org.fabricmanager.daemon.opensm.OpenSmWire.Subnet;
import org.fabricmanager.daemon.opensm.OpenSmWire.SwitchEntry;
import org.fabricmanager.opensm.OpenSmLfts;
import org.fabricmanager.opensm.OpenSmTables;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
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
 * PORT_INFO, then PORT_STATUS for the ports that changed, a close for a switch OpenSM lost), waits until the daemon's
 * tables have converged on that fabric, and answers with every switch's table by LID: end nodes as the daemon routed
 * them, switch LIDs by {@link OpenSmTables#switchRoutes}, exactly as {@code route --lft-format opensm} writes them.
 * One subnet at a time (the provider's lock); not thread-safe otherwise.
 */
final class OpenSmRouting {
    /** How often the answer's wait looks at the daemon's state. */
    private static final long POLL_MS = 5;
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private final SouthboundListener listener;
    private final DaemonApi api;
    private final SocketAddress address;
    private final OpenSmFallbackFiles fallbackFiles;
    /** The sessions' HELLO incarnation: this provider's start, so a restarted daemon's sessions are new runs. */
    private final long incarnation = System.currentTimeMillis() * 1000;
    private final Map<Long, OpenSmSwitchSession> sessions = new HashMap<>();
    private final Map<Long, List<PortRecord>> reported = new HashMap<>();
    /** Where the last answer's time went, for the provider's log line. */
    private String lastBreakdown = "";

    OpenSmRouting(SouthboundListener listener, DaemonApi api, SocketAddress address) {
        this.listener = listener;
        this.api = api;
        this.address = address;
        this.fallbackFiles = OpenSmFallbackFiles.beside(address);
    }

    /** The answer to {@code subnet}: TABLES, or REFUSED saying why (OpenSM then falls back to its next engine). */
    ByteBuffer answer(Subnet subnet, long timeoutMs) throws InterruptedException {
        long begin = System.nanoTime();
        long cpuBegin = CPU.getCurrentThreadCpuTime();
        long deadline = begin + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Map<Long, Long> destination = destinations(subnet);
        try (DaemonApi.Hold held = api.holdAnalyses()) {
            return answer(subnet, destination, begin, cpuBegin, deadline);
        }
    }

    /** {@link #answer(Subnet, long)} with the daemon's analyses held: its tables by LID have the cores. */
    private ByteBuffer answer(Subnet subnet, Map<Long, Long> destination, long begin, long cpuBegin, long deadline)
            throws InterruptedException {
        feed(subnet, destination);
        long fed = System.nanoTime();
        long cpuFed = CPU.getCurrentThreadCpuTime();
        try {
            String why = awaitConverged(deadline);
            if (why != null) {
                return OpenSmWire.refused(subnet.seq(), why);
            }
            long converged = System.nanoTime();
            Fabric fabric = api.topology().get(remainingMs(deadline), TimeUnit.MILLISECONDS);
            long fetched = System.nanoTime();
            long cpuFetched = CPU.getCurrentThreadCpuTime();
            ByteBuffer out = tables(subnet, destination, fabric);
            // wall and this thread's CPU: on a loaded machine the difference is the wait for a core
            lastBreakdown = String.format("fed %.1f ms (cpu %.1f), converged %.1f ms later, fabric %.1f ms, "
                    + "LID tables %.1f ms (cpu %.1f)", (fed - begin) / 1e6, (cpuFed - cpuBegin) / 1e6,
                    (converged - fed) / 1e6, (fetched - converged) / 1e6, (System.nanoTime() - fetched) / 1e6,
                    (CPU.getCurrentThreadCpuTime() - cpuFetched) / 1e6);
            return out;
        } catch (ExecutionException | TimeoutException e) {
            return OpenSmWire.refused(subnet.seq(), "the daemon did not answer: " + e);
        } catch (TopologyException e) {
            return OpenSmWire.refused(subnet.seq(), e.getMessage());
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
        for (SwitchEntry s : subnet.switches()) {
            List<PortRecord> ports = new ArrayList<>(s.ports());
            for (int p = 1; p <= s.ports(); p++) {
                ports.add(port(p, s.peerGuid()[p - 1], s.peerPort()[p - 1], byGuid, ends, destination));
            }
            OpenSmSwitchSession session = sessions.get(s.guid());
            if (session == null) {
                Hello hello = new Hello(0, Protocol.MIN_VERSION, Protocol.MAX_VERSION, s.guid(), incarnation, s.ports(),
                        Protocol.DEFAULT_MAX_FRAME, 0, 0, 0, s.name().isEmpty() ? Guids.format(s.guid()) : s.name());
                session = new OpenSmSwitchSession(hello, address, listener);
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

    /** Waits until the daemon's state says its tables in force are on every switch; null, or why not. */
    private String awaitConverged(long deadline) throws InterruptedException, ExecutionException, TimeoutException {
        while (true) {
            Views.Status status = api.status().get(remainingMs(deadline), TimeUnit.MILLISECONDS);
            // CONVERGED: every switch holds the version in force (a switch whose table a re-route left alone got
            // no batch and holds it still); the query comes after the subnet's reports on the control thread
            if (status.state() == DaemonState.CONVERGED && status.routing() != null) {
                return null;
            }
            if (System.nanoTime() >= deadline) {
                return "the daemon's tables did not converge in time (state " + status.state() + ")";
            }
            Thread.sleep(POLL_MS);
        }
    }

    private ByteBuffer tables(Subnet subnet, Map<Long, Long> destination, Fabric fabric) {
        FabricIndex index = fabric.index();
        Set<Long> routed = new HashSet<>();
        long[] guids = new long[index.switchCount()];
        byte[][] rows = new byte[guids.length][];
        int destinations = 0;
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            destinations = Math.max(destinations, index.nodeIndex(pos) + 1);
        }
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
            OpenSmSwitchSession session = sessions.get(guids[s]);
            if (session == null) {
                throw new TopologyException("switch " + Guids.format(guids[s]) + " of the daemon's fabric is not in OpenSM's subnet");
            }
            rows[s] = session.held().entries();
            destinations = Math.max(destinations, rows[s].length);
            routed.add(guids[s]);
        }
        for (SwitchEntry s : subnet.switches()) {
            if (!routed.contains(s.guid())) {
                throw new TopologyException("switch " + Guids.format(s.guid()) + " (" + s.name() + ") is not in the "
                        + "daemon's fabric (not admitted, or without links)");
            }
        }
        for (int s = 0; s < rows.length; s++) {
            int was = rows[s].length;
            rows[s] = Arrays.copyOf(rows[s], destinations);
            Arrays.fill(rows[s], was, destinations, (byte) ForwardingTables.NO_ROUTE);
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
        LidPlan lids = new LidPlan(lidByGuid, portGuids);
        fallbackFiles.write(fabric, portGuids);
        ForwardingTables tables = ForwardingTables.ofRows(guids, rows, destinations);
        byte[][] byLid = OpenSmLfts.byLid(fabric, tables, OpenSmTables.switchRoutes(fabric, lids), lids);
        return OpenSmWire.tables(subnet.seq(), guids, byLid, lids.maxLid() + 1);
    }

    private static long remainingMs(long deadline) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }
}
