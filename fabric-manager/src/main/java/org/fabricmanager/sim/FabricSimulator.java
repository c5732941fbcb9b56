package org.fabricmanager.sim;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentListener;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated fabric: one {@link SwitchAgent} per switch of a {@link Fabric}, each with its own TCP
 * connection to the daemon, all sharing a small group of event loops so that thousands of switches
 * fit in one JVM. It models the cabling: a port is up when its cable is up and both ends are powered,
 * and every change is reported by the agents at both ends, as real switches do.
 *
 * <p>Fault injection: {@link #kill} a switch (power: the switch and all its links go down and it
 * forgets its table; agent: only its agent dies, links stay up and it keeps forwarding),
 * {@link #revive} it, take a link {@link #linkDown down} or {@link #linkUp up}, and delay or drop an
 * agent's messages through {@link #faults}. Methods are thread-safe (one lock for the cabling model).
 */
public final class FabricSimulator implements SimulatedFaults, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FabricSimulator.class);

    /** How a switch is killed. */
    public enum KillMode {
        /** The switch loses power: its links go down at both ends and it forgets its table. */
        POWER,
        /** Only the agent process dies: links stay up, the switch keeps forwarding with its table. */
        AGENT
    }

    private final Fabric fabric;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final ThreadPoolExecutor tlsWork;
    private final Map<Long, SwitchAgent> agents = new LinkedHashMap<>();
    private final Map<Long, FaultSettings> faults = new HashMap<>();
    private final Map<PortRef, PortRef> cables = new HashMap<>();
    private final Map<Long, String> names = new HashMap<>();
    private final Set<Link> cutLinks = new HashSet<>();
    private final Set<Long> poweredOff = new HashSet<>();
    private final Set<Long> nodes = new HashSet<>();
    private final Set<Long> hung = new HashSet<>();
    private SimulatedDetectors detectors;

    /**
     * Builds (but does not start) the agents of {@code fabric}.
     *
     * @param group    event loops to share; {@code null} creates a group of {@code ioThreads} threads owned by the simulator
     * @param listener observer of every agent, or {@code null}
     * @param seed     seed of the agents' backoff jitter
     */
    public FabricSimulator(Fabric fabric, AgentSettings settings, EventLoopGroup group, int ioThreads,
                           AgentListener listener, long seed) {
        this(fabric, guid -> settings, group, ioThreads, listener, seed);
    }

    /**
     * As above, with settings per switch (each simulated agent with its own certificate).
     *
     * @param settingsFor the settings of the switch with the given GUID
     */
    public FabricSimulator(Fabric fabric, LongFunction<AgentSettings> settingsFor, EventLoopGroup group,
                           int ioThreads, AgentListener listener, long seed) {
        this(fabric, settingsFor, guid -> true, group, ioThreads, listener, seed);
    }

    /**
     * As above, running agents only for the switches {@code runs} accepts: a fabric split over several
     * processes (each its own {@code simulate --only/--except}), as agents are spread over hosts in production.
     * The cabling model covers the whole fabric; each switch's agent gets the same jitter seed whatever the split.
     */
    public FabricSimulator(Fabric fabric, LongFunction<AgentSettings> settingsFor,
                           LongPredicate runs, EventLoopGroup group, int ioThreads,
                           AgentListener listener, long seed) {
        this.fabric = fabric;
        // the agents' TLS handshake work, off the event loops that carry every agent's echoes and acks (a real
        // switch has its own CPU); threads start only when a TLS handshake needs one and end when idle
        int tlsThreads = Math.max(1, ioThreads);
        this.tlsWork = new ThreadPoolExecutor(tlsThreads, tlsThreads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), new DefaultThreadFactory("fm-sim-tls", true));
        tlsWork.allowCoreThreadTimeOut(true);
        this.ownsGroup = group == null;
        this.group = group != null ? group
                : new NioEventLoopGroup(Math.max(1, ioThreads), new DefaultThreadFactory("fm-sim-io", true));
        for (FabricSwitch s : fabric.switches()) {
            names.put(s.guid(), s.name());
        }
        for (EndNode n : fabric.nodes()) {
            names.put(n.guid(), n.name());
            nodes.add(n.guid());
        }
        for (Link l : fabric.links()) {
            PortRef a = new PortRef(l.a(), l.aPort());
            PortRef b = new PortRef(l.b(), l.bPort());
            cables.put(a, b);
            cables.put(b, a);
        }
        Random random = new Random(seed);
        for (FabricSwitch s : fabric.switches()) {
            long agentSeed = random.nextLong();
            if (!runs.test(s.guid())) {
                continue;
            }
            List<PortRecord> ports = new ArrayList<>(s.ports());
            for (int p = 1; p <= s.ports(); p++) {
                ports.add(portRecord(s.guid(), p));
            }
            FaultSettings f = new FaultSettings();
            faults.put(s.guid(), f);
            agents.put(s.guid(), new SwitchAgent(s.guid(), s.name(), s.ports(), ports, settingsFor.apply(s.guid()),
                    new AgentDependencies(this.group.next(), listener, new Random(agentSeed), f, tlsWork)));
        }
    }

    /**
     * Runs a failure-detector member in every agent once the daemon configures it (call before
     * {@link #start}), each on a UDP port of its own that the agent advertises (DETECTOR_ENDPOINT), as the
     * {@code demo} does with each agent connecting from its own loopback address 127.1.x.y.
     */
    public synchronized void enableDetectors(MeterRegistry registry) {
        enableDetectors(registry, true);
    }

    /**
     * As {@link #enableDetectors(MeterRegistry)}; with {@code distinctAddresses} false the agents all connect
     * from the system's address (as {@code simulate} on a host does) and only their ports tell them apart.
     */
    public synchronized void enableDetectors(MeterRegistry registry, boolean distinctAddresses) {
        if (detectors != null) {
            return;
        }
        detectors = new SimulatedDetectors(Math.max(1, Runtime.getRuntime().availableProcessors()), registry);
        int i = 0;
        for (SwitchAgent a : agents.values()) {
            int n = i++;
            InetAddress from = null;
            if (distinctAddresses) {
                try {
                    from = InetAddress.getByAddress(new byte[]{127, 1, (byte) (n / 250), (byte) (n % 250 + 1)});
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
                a.bindFrom(from);
            }
            a.detectorListener(detectors);
            a.detectorPort(detectors.reservePort(a.guid(), from));
        }
    }

    /** The agents' detector members, or {@code null} when not enabled. */
    public synchronized SimulatedDetectors detectors() {
        return detectors;
    }

    /** The simulated fabric as cabled at construction. */
    public Fabric fabric() {
        return fabric;
    }

    /** Starts every agent (they connect in parallel). */
    public void start() {
        for (SwitchAgent a : agents.values()) {
            a.start();
        }
        LOG.info("simulator: started {} switch agents", agents.size());
    }

    /** Every agent, in the fabric's switch order. */
    public Collection<SwitchAgent> agents() {
        return Collections.unmodifiableCollection(agents.values());
    }

    /** The agent of switch {@code guid}. */
    public SwitchAgent agent(long guid) {
        SwitchAgent a = agents.get(guid);
        if (a == null) {
            throw new IllegalArgumentException(names.containsKey(guid) && !nodes.contains(guid)
                    ? "switch " + Guids.format(guid) + " is not simulated in this process"
                    : "no simulated switch " + Guids.format(guid));
        }
        return a;
    }

    @Override
    public void requireSwitch(long guid) {
        agent(guid);
    }

    /** Fault injection on one agent's connection. */
    public FaultSettings faults(long guid) {
        agent(guid);
        return faults.get(guid);
    }

    /**
     * Fault injection: switch {@code guid}'s failure-detector member stops while its agent runs on (a crashed
     * detector thread, a firewall dropping its UDP): the ring declares a switch dead that still answers its
     * session. False without detector members.
     */
    public synchronized boolean muteDetector(long guid) {
        SwitchAgent agent = agent(guid);
        if (detectors == null) {
            return false;
        }
        detectors.stop(guid);
        LOG.info("simulator: muted the failure-detector member of {}", agent);
        return true;
    }

    /** Kills switch {@code guid} (see {@link KillMode}). */
    @Override
    public synchronized void kill(long guid, KillMode mode) {
        SwitchAgent agent = agent(guid);
        if (detectors != null) {
            detectors.stop(guid);
        }
        if (mode == KillMode.AGENT) {
            // dies silently: no FIN, no PORT_STATUS; only the failure detector can tell
            faults.get(guid).freeze();
            hung.add(guid);
        }
        agent.stop().syncUninterruptibly();
        if (mode == KillMode.POWER) {
            agent.clearTable();
            poweredOff.add(guid);
            refreshAround(guid);
        }
        LOG.info("simulator: killed {} ({})", agent, mode);
    }

    /** Brings switch {@code guid} back: powered, its links up where their other end is, its agent restarted. */
    @Override
    public synchronized void revive(long guid) {
        SwitchAgent agent = agent(guid);
        if (hung.remove(guid)) {
            faults.get(guid).clear();
        }
        if (poweredOff.remove(guid)) {
            refreshAround(guid);
        }
        agent.start();
        LOG.info("simulator: revived {}", agent);
    }

    /** Takes the link at port {@code port} of switch {@code guid} down (both ends report it). */
    @Override
    public synchronized void linkDown(long guid, int port) {
        setLink(guid, port, false);
    }

    /** Brings the link at port {@code port} of switch {@code guid} back up. */
    @Override
    public synchronized void linkUp(long guid, int port) {
        setLink(guid, port, true);
    }

    /** Makes port {@code port} of switch {@code guid} count {@code perSecond} received errors a second (0: stop). */
    @Override
    public synchronized void linkErrors(long guid, int port, long perSecond) {
        requireSwitch(guid);
        agents.get(guid).injectErrors(port, perSecond);
    }

    private void setLink(long guid, int port, boolean up) {
        PortRef here = new PortRef(guid, port);
        PortRef there = cables.get(here);
        if (there == null) {
            throw new IllegalArgumentException("no cable at " + here);
        }
        Link link = new Link(guid, port, there.guid(), there.port()).normalized();
        boolean changed = up ? cutLinks.remove(link) : cutLinks.add(link);
        if (changed) {
            refresh(here);
            refresh(there);
            LOG.info("simulator: link {} {}", link, up ? "up" : "down");
        }
    }

    /** The port's record as the switch sees it now. */
    private PortRecord portRecord(long guid, int port) {
        PortRef here = new PortRef(guid, port);
        PortRef there = cables.get(here);
        if (there == null || poweredOff.contains(guid) || poweredOff.contains(there.guid())
                || cutLinks.contains(new Link(guid, port, there.guid(), there.port()).normalized())) {
            return PortRecord.down(port);
        }
        String peerName = names.getOrDefault(there.guid(), "");
        return nodes.contains(there.guid())
                ? PortRecord.toNode(port, there.guid(), peerName)
                : PortRecord.toSwitch(port, there.guid(), there.port(), peerName);
    }

    private void refresh(PortRef ref) {
        SwitchAgent agent = agents.get(ref.guid());
        if (agent != null) {
            PortRecord r = portRecord(ref.guid(), ref.port());
            // the change reaches the daemon as the agent's PORT_STATUS, in order with its session's other reports;
            // it is not broadcast into the ring (docs/detector.md, "Link events"): at 5,121 members one link flap
            // was four broadcasts of ~128,000 datagrams that the daemon ignores, and it delayed verdicts by seconds
            agent.setPort(r);
        }
    }

    private void refreshAround(long guid) {
        SwitchAgent agent = agent(guid);
        for (int p = 1; p <= agent.portCount(); p++) {
            PortRef here = new PortRef(guid, p);
            refresh(here);
            PortRef there = cables.get(here);
            if (there != null) {
                refresh(there);
            }
        }
    }

    /** Number of agents in state {@link SwitchAgent.State#ACTIVE}. */
    public int activeAgents() {
        int n = 0;
        for (SwitchAgent a : agents.values()) {
            if (a.state() == SwitchAgent.State.ACTIVE) {
                n++;
            }
        }
        return n;
    }

    /** Stops every agent and, when the simulator owns them, its event loops. */
    @Override
    public void close() {
        List<Future<Void>> stops = new ArrayList<>(agents.size());
        for (SwitchAgent a : agents.values()) {
            stops.add(a.stop());
        }
        for (Future<Void> f : stops) {
            f.awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (detectors != null) {
            detectors.close();
        }
        if (ownsGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        tlsWork.shutdownNow();
    }
}
