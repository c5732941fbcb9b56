package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;
import org.fabricmanager.topology.TopologyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which switches the ring gets slots for before they connect (docs/detector.md, "Slots for switches that come late"):
 * those of the expected PGFT when the fabric uses its canonical GUIDs, else the switches that connected switches' port
 * reports name as cabled neighbours. A switch that comes later takes its slot in the running epoch instead of needing a
 * new one. Used by the {@link RingPlanner} on the control thread.
 */
final class RingSlots {
    private static final Logger LOG = LoggerFactory.getLogger(RingSlots.class);

    private final SwitchRegistry registry;
    /**
     * The expected PGFT's switches in ring order ({@code fabric.expectedPgft}), or {@code null}: when the fabric uses
     * its canonical GUIDs, the ring is planned over all of them and a switch that connects late takes its slot.
     */
    private List<Long> expectedOrder;
    private Set<Long> expectedGuids = Set.of();

    RingSlots(SwitchRegistry registry) {
        this.registry = registry;
    }

    /** The switches the daemon expects ({@code null}: none), in its canonical numbering. */
    void expect(Fabric expected) {
        if (expected == null) {
            expectedOrder = null;
            expectedGuids = Set.of();
            return;
        }
        expectedOrder = List.copyOf(RingOrder.of(expected));
        expectedGuids = new HashSet<>(expectedOrder);
    }

    /**
     * The switches of the ring in order, slots for switches not connected yet included, when the ring can give such
     * slots; else {@code null} (the ring is then planned over the connected switches, and a switch that comes later
     * needs a new epoch). The slots are those of the expected PGFT when the fabric uses its canonical GUIDs; otherwise
     * (no expected PGFT, or a fabric with its own GUIDs, which cannot say which GUID a missing switch will have) the
     * switches that connected switches' port reports name as cabled neighbours without being connected themselves.
     * Every connected agent must start its member with the slots dead ({@code FEATURE_DETECTOR_SLOTS}: one that
     * cannot would suspect every vacant slot), and the slots must fit one window
     * ({@link Protocol#MAX_DEAD_AT_START}).
     */
    List<Long> order(Fabric fabric) {
        int connectedExpected = 0;
        for (ManagedSwitch ms : registry.all()) {
            if (!ms.admitted() || !ms.session().capabilities().failureDetector()) {
                continue; // a switch without a member (OpenSM's): its slots are no concern of the ring
            }
            if (!ms.session().hello().supportsDetectorSlots()) {
                LOG.info("failure detector: switch {} ({}) cannot start its member with vacant slots dead: the ring "
                        + "covers the connected switches only", Guids.format(ms.guid()), ms.name());
                return null;
            }
            if (expectedGuids.contains(ms.guid())) {
                connectedExpected++;
            }
        }
        int vacant;
        List<Long> order;
        if (expectedOrder != null && canonical(fabric)) {
            vacant = expectedOrder.size() - connectedExpected;
            order = expectedOrder;
        } else {
            Set<Long> absent = new HashSet<>();
            Fabric planned = withKnownNeighbours(fabric, absent);
            if (absent.isEmpty()) {
                return null;
            }
            vacant = absent.size();
            order = RingOrder.of(planned);
        }
        if (vacant > Protocol.MAX_DEAD_AT_START) {
            LOG.info("failure detector: {} expected switches are not connected, more slots than a window names ({}): "
                    + "the ring covers the connected switches only", vacant, Protocol.MAX_DEAD_AT_START);
            return null;
        }
        return order;
    }

    /** True when every switch of {@code fabric} has a GUID of the expected PGFT's canonical numbering. */
    private boolean canonical(Fabric fabric) {
        for (FabricSwitch s : fabric.switches()) {
            if (!expectedGuids.contains(s.guid())) {
                LOG.debug("failure detector: switch {} is not of the expected fabric's numbering: slots for known "
                        + "neighbours only", Guids.format(s.guid()));
                return false;
            }
        }
        return true;
    }

    /**
     * {@code fabric} with the switches that its switches' port reports name as cabled neighbours (a port up to a
     * switch) but that are not connected or not admitted, and the links claimed to them, so that {@link RingOrder}
     * places them by level like the others; their GUIDs are added to {@code absent}. The fabric itself when there are
     * none, or when the claims contradict each other (two claims on one port of the missing switch): then no slots.
     */
    private Fabric withKnownNeighbours(Fabric fabric, Set<Long> absent) {
        Map<Long, Integer> portCounts = new HashMap<>();
        Set<PortRef> claimedPorts = new HashSet<>();
        List<Link> claims = new ArrayList<>();
        for (ManagedSwitch ms : registry.all()) {
            if (!ms.admitted() || !fabric.isSwitch(ms.guid())) {
                continue;
            }
            SwitchPorts ports = ms.ports();
            for (int p = 1; p <= ports.portCount(); p++) {
                PortRecord r = ports.port(p);
                if (!r.isUp() || r.peerKind() != PortRecord.PeerKind.SWITCH || fabric.isSwitch(r.peerGuid())) {
                    continue;
                }
                ManagedSwitch peer = registry.get(r.peerGuid());
                if (peer != null && peer.admitted()) {
                    continue; // connected, only not in this fabric yet (its own report is on its way)
                }
                if (!claimedPorts.add(new PortRef(r.peerGuid(), r.peerPort()))) {
                    LOG.debug("failure detector: two switches claim port {} of {}: no slots for known neighbours",
                            r.peerPort(), Guids.format(r.peerGuid()));
                    absent.clear();
                    return fabric;
                }
                absent.add(r.peerGuid());
                portCounts.merge(r.peerGuid(), r.peerPort(), Math::max);
                claims.add(new Link(ms.guid(), p, r.peerGuid(), r.peerPort()));
            }
        }
        if (absent.isEmpty()) {
            return fabric;
        }
        List<FabricSwitch> switches = new ArrayList<>(fabric.switches());
        for (long guid : absent) {
            switches.add(new FabricSwitch(guid, Guids.format(guid), portCounts.get(guid)));
        }
        List<Link> links = new ArrayList<>(fabric.links());
        links.addAll(claims);
        try {
            return new Fabric(null, switches, fabric.nodes(), links);
        } catch (TopologyException e) {
            LOG.debug("failure detector: the neighbours named in port reports do not make a fabric ({}): no slots for "
                    + "them", e.getMessage());
            absent.clear();
            return fabric;
        }
    }
}
