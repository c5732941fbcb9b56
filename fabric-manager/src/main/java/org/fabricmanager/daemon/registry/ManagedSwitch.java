package org.fabricmanager.daemon.registry;

import java.net.InetSocketAddress;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.topology.Guids;

/**
 * A switch with a session: its agent's HELLO, its latest port reports, and whether it is admitted
 * (its first PORT_INFO was accepted, so it counts in the fabric). Owned by the {@link SwitchRegistry};
 * changed on the control thread only.
 */
public final class ManagedSwitch {
    private final SwitchSession session;
    private final Hello hello;
    private final SwitchPorts ports;
    private final long connectedAtMillis;
    private boolean admitted;
    private String pending;
    private long replacedRingIncarnation = -1;
    private InetSocketAddress detectorEndpoint;

    ManagedSwitch(SwitchSession session, Hello hello, long connectedAtMillis) {
        this.session = session;
        this.hello = hello;
        this.ports = new SwitchPorts(hello.guid(), hello.name(), hello.portCount());
        this.connectedAtMillis = connectedAtMillis;
    }

    public long guid() {
        return hello.guid();
    }

    public String name() {
        return hello.name();
    }

    public SwitchSession session() {
        return session;
    }

    public Hello hello() {
        return hello;
    }

    /** The latest port records its agent reported. */
    public SwitchPorts ports() {
        return ports;
    }

    public long connectedAtMillis() {
        return connectedAtMillis;
    }

    public boolean admitted() {
        return admitted;
    }

    void admit() {
        admitted = true;
        pending = null;
    }

    /** Why the switch waits for an admin before entering the fabric, or {@code null} when it does not. */
    public String pendingReason() {
        return pending;
    }

    void pend(String reason) {
        pending = reason;
    }

    /**
     * The ring incarnation of this switch's previous run when this session was told to join the running
     * ring (-1: it was not): a ring verdict at or below it is about the previous run.
     */
    /** Where the agent's failure-detector member listens, as the agent said (DETECTOR_ENDPOINT), or {@code null}. */
    public InetSocketAddress detectorEndpoint() {
        return detectorEndpoint;
    }

    public void detectorEndpoint(InetSocketAddress endpoint) {
        this.detectorEndpoint = endpoint;
    }

    public long replacedRingIncarnation() {
        return replacedRingIncarnation;
    }

    public void replacedRingIncarnation(long incarnation) {
        this.replacedRingIncarnation = incarnation;
    }

    @Override
    public String toString() {
        return name() + " (" + Guids.format(guid()) + ")";
    }
}
