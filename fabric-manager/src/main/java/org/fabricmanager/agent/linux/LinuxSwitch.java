package org.fabricmanager.agent.linux;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Linux switch run by the agent library: a {@link SwitchAgent} whose tables go to the bridge's forwarding
 * database ({@link BridgeFdbPlane}) and whose ports follow the kernel's links ({@link KernelPorts}), all in one
 * network namespace. The agent announces no VC rules: a fabric routed with virtual-channel rules (vtftr) refuses
 * it with a message saying so. When the namespace's links can no longer be read (the switch is gone), the agent
 * stops and the embedding is told.
 */
public final class LinuxSwitch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxSwitch.class);

    /**
     * What one Linux switch is.
     *
     * @param guid       the switch's GUID (its certificate names it)
     * @param name       its description, sent in HELLO
     * @param ports      its port count: interfaces {@code portPrefix + 1 .. portPrefix + ports}
     * @param netns      its network namespace, or empty for the agent's own
     * @param bridge     the bridge's name (created when missing)
     * @param portPrefix the interface name of port {@code p} is this followed by {@code p}
     * @throws IllegalArgumentException naming the field (as the configuration's key) when a name breaks
     *                                  {@link LinuxNames}' rules or the bridge is also a port's interface
     */
    public record Spec(long guid, String name, int ports, String netns, String bridge, String portPrefix) {
        public Spec {
            netns = netns == null ? "" : netns;
            if (!netns.isEmpty()) {
                LinuxNames.requireNamespace("netns", netns);
            }
            LinuxNames.requireInterface("bridge", bridge);
            int port = new PortNames(portPrefix, ports).port(bridge);
            if (port != 0) {
                throw new IllegalArgumentException("bridge " + LinuxNames.shown(bridge) + ": the interface of port "
                        + port + " too");
            }
        }
    }

    private final Spec spec;
    private final SwitchAgent agent;
    private final KernelPorts ports;
    private final BridgeFdbPlane plane;

    private LinuxSwitch(Spec spec, SwitchAgent agent, KernelPorts ports, BridgeFdbPlane plane) {
        this.spec = spec;
        this.agent = agent;
        this.ports = ports;
        this.plane = plane;
    }

    /**
     * Sets the bridge up, reads the ports, builds the agent (on {@code deps}' loop, with this switch's plane) and
     * starts it.
     *
     * @param settings how to reach the daemon (VC rules are turned off here)
     * @param deps     the loop, jitter, tap and TLS executor; their plane is replaced by the bridge's
     * @param gone     told once when the switch's namespace or links are gone (the agent is stopped first)
     * @param prepare  called with the agent before it starts (the address it connects from, its ring member)
     */
    public static LinuxSwitch start(Spec spec, Cabling cabling, AgentSettings settings, AgentDependencies deps,
                                    Consumer<LinuxSwitch> gone, Consumer<SwitchAgent> prepare) throws IOException {
        LinuxSwitch sw = prepare(spec, cabling, settings, deps, gone, prepare);
        sw.start();
        return sw;
    }

    /**
     * Like {@link #start} but without connecting: the bridge is set up and the ports followed, and the agent starts
     * with {@link #start()}. A lab sets all its switches up first and then starts their agents together, so that the
     * daemon discovers the whole fabric at once instead of routing again and pushing to every switch for each switch
     * that comes (at hundreds of switches, that work starved the agents still being set up).
     */
    public static LinuxSwitch prepare(Spec spec, Cabling cabling, AgentSettings settings, AgentDependencies deps,
                                      Consumer<LinuxSwitch> gone, Consumer<SwitchAgent> prepare) throws IOException {
        Iproute2 ip = new Iproute2(spec.netns());
        PortNames names = new PortNames(spec.portPrefix(), spec.ports());
        BridgeSetup.apply(ip, spec.bridge(), names);
        BridgeFdbPlane plane = new BridgeFdbPlane(ip, spec.bridge(), names);
        KernelPorts ports = new KernelPorts(ip, names, cabling, spec.guid());
        List<PortRecord> initial = ports.read();
        SwitchAgent agent = new SwitchAgent(spec.guid(), spec.name(), spec.ports(), initial, settings.withoutVcRules(),
                new AgentDependencies(deps.loop(), deps.listener(), deps.random(), deps.tap(), deps.tlsWork(), plane));
        LinuxSwitch sw = new LinuxSwitch(spec, agent, ports, plane);
        List<PortRecord> now = ports.follow(agent::setPort, () -> {
            LOG.warn("{}: its links are gone, stopping its agent", sw);
            agent.stop();
            plane.close();
            gone.accept(sw);
        });
        now.forEach(agent::setPort);
        prepare.accept(agent);
        return sw;
    }

    /** Starts the agent of a {@link #prepare prepared} switch: it connects to the daemon. */
    public void start() {
        agent.start();
    }

    public Spec spec() {
        return spec;
    }

    public SwitchAgent agent() {
        return agent;
    }

    /** The {@code bridge -batch} runs that changed the forwarding database so far. */
    public long fdbBatches() {
        return plane.batches();
    }

    /** Stops the agent, the link monitor and the bridge process; the bridge keeps its entries (the switch forwards on). */
    @Override
    public void close() {
        ports.close();
        agent.stop().awaitUninterruptibly();
        plane.close();
    }

    @Override
    public String toString() {
        return "Linux switch " + Guids.format(spec.guid()) + " (" + spec.name()
                + (spec.netns().isEmpty() ? "" : ", netns " + spec.netns()) + ")";
    }
}
