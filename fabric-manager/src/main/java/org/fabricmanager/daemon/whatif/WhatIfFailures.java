package org.fabricmanager.daemon.whatif;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/**
 * Applies a what-if's failures to the fabric the tables in force were computed for: the switches go with
 * their links, the links named by one end go. Nodes keep their destination indices, so the degraded
 * fabric is routed with the same indices as the live one. A GUID that is not a switch of the fabric, a
 * port the switch does not have or a port without a link is refused, naming it.
 */
public final class WhatIfFailures {
    private WhatIfFailures() {
    }

    /**
     * The fabric after the failures.
     *
     * @throws WhatIfException of kind {@link WhatIfException.Kind#BAD_REQUEST} naming the first unknown switch, port or link
     */
    public static Fabric apply(Fabric fabric, WhatIfRequest request) {
        Set<Long> switches = new HashSet<>();
        for (long g : request.switches()) {
            if (!fabric.isSwitch(g)) {
                throw bad("switch " + Guids.format(g) + " is not in the fabric the tables in force were computed for");
            }
            switches.add(g);
        }
        Map<PortRef, Link> wanted = new HashMap<>();
        for (PortRef p : request.links()) {
            FabricSwitch s = fabric.switchByGuid(p.guid()).orElseThrow(() -> bad("link " + p + ": switch "
                    + Guids.format(p.guid()) + " is not in the fabric the tables in force were computed for"));
            if (p.port() > s.ports()) {
                throw bad("link " + p + ": switch " + Guids.format(p.guid()) + " has ports 1.." + s.ports());
            }
            wanted.put(p, null);
        }
        if (!wanted.isEmpty()) {
            for (Link l : fabric.links()) {
                PortRef a = new PortRef(l.a(), l.aPort());
                PortRef b = new PortRef(l.b(), l.bPort());
                if (wanted.containsKey(a)) {
                    wanted.put(a, l);
                }
                if (wanted.containsKey(b)) {
                    wanted.put(b, l);
                }
            }
        }
        Set<Link> links = new HashSet<>();
        List<Link> removed = new ArrayList<>();
        for (PortRef p : request.links()) {
            Link l = wanted.get(p);
            if (l == null) {
                throw bad("link " + p + ": no cable is plugged into port " + p.port() + " of switch " + Guids.format(p.guid()));
            }
            // a link of a failed switch goes with it; both ends of one link name it once
            if (!switches.contains(l.a()) && !switches.contains(l.b()) && links.add(l.normalized())) {
                removed.add(l);
            }
        }
        return fabric.withChanges(switches, Set.of(), removed, List.of());
    }

    private static WhatIfException bad(String message) {
        return new WhatIfException(WhatIfException.Kind.BAD_REQUEST, message);
    }
}
