package org.fabricmanager.daemon.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/** The port records each switch of a fabric reports when every cable is up, as the agents would send them. */
public final class FabricReports {
    private final Map<Long, List<PortRecord>> bySwitch = new HashMap<>();

    public FabricReports(Fabric fabric) {
        Map<Long, String> names = new HashMap<>();
        Set<Long> nodes = new HashSet<>();
        for (FabricSwitch s : fabric.switches()) {
            names.put(s.guid(), s.name());
        }
        for (EndNode n : fabric.nodes()) {
            names.put(n.guid(), n.name());
            nodes.add(n.guid());
        }
        Map<PortRef, PortRef> cables = new HashMap<>();
        for (Link l : fabric.links()) {
            cables.put(new PortRef(l.a(), l.aPort()), new PortRef(l.b(), l.bPort()));
            cables.put(new PortRef(l.b(), l.bPort()), new PortRef(l.a(), l.aPort()));
        }
        for (FabricSwitch s : fabric.switches()) {
            List<PortRecord> ports = new ArrayList<>(s.ports());
            for (int p = 1; p <= s.ports(); p++) {
                PortRef there = cables.get(new PortRef(s.guid(), p));
                if (there == null) {
                    ports.add(PortRecord.down(p));
                } else if (nodes.contains(there.guid())) {
                    ports.add(PortRecord.toNode(p, there.guid(), names.get(there.guid())));
                } else {
                    ports.add(PortRecord.toSwitch(p, there.guid(), there.port(), names.get(there.guid())));
                }
            }
            bySwitch.put(s.guid(), ports);
        }
    }

    /** The records of switch {@code guid}, ports 1..n. */
    public List<PortRecord> of(long guid) {
        return bySwitch.get(guid);
    }
}
