package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Writes a fabric in the layout {@code ibnetdiscover} prints, for round trips through the reader. */
final class IbnetdiscoverText {
    private IbnetdiscoverText() {
    }

    static String write(Fabric fabric) {
        StringBuilder out = new StringBuilder("#\n# Topology file: written by the tests\n#\n\n");
        List<FabricSwitch> switches = new ArrayList<>(fabric.switches());
        switches.sort(Comparator.comparing(FabricSwitch::name));
        // unique LIDs as a subnet manager would assign them: switches from 1, then the nodes
        java.util.Map<Long, Integer> lid = new java.util.HashMap<>();
        for (FabricSwitch s : switches) {
            lid.put(s.guid(), lid.size() + 1);
        }
        for (EndNode n : fabric.nodes()) {
            lid.put(n.guid(), lid.size() + 1);
        }
        for (FabricSwitch s : switches) {
            out.append("vendid=0x2c9\ndevid=0xcf08\nsysimgguid=0x").append(Long.toHexString(s.guid())).append('\n');
            out.append("switchguid=0x").append(Long.toHexString(s.guid())).append('(').append(Long.toHexString(s.guid()))
                    .append(")\n");
            out.append("Switch\t").append(s.ports()).append(" \"S-").append(hex(s.guid())).append("\"\t\t# \"")
                    .append(s.name()).append("\" enhanced port 0 lid ").append(lid.get(s.guid())).append(" lmc 0\n");
            for (int port = 1; port <= s.ports(); port++) {
                for (Link l : fabric.links()) {
                    if (l.touches(s.guid(), port)) {
                        boolean aSide = l.a() == s.guid() && l.aPort() == port;
                        long peer = aSide ? l.b() : l.a();
                        int peerPort = aSide ? l.bPort() : l.aPort();
                        out.append('[').append(port).append("]\t");
                        if (fabric.isSwitch(peer)) {
                            out.append("\"S-").append(hex(peer)).append("\"[").append(peerPort).append("]\t\t# \"")
                                    .append(fabric.switchByGuid(peer).orElseThrow().name()).append("\" lid ").append(lid.get(peer))
                                    .append(" 4xHDR\n");
                        } else {
                            out.append("\"H-").append(hex(peer)).append("\"[").append(peerPort).append("](")
                                    .append(Long.toHexString(peer + 1)).append(") \t\t# \"")
                                    .append(fabric.nodeByGuid(peer).orElseThrow().name()).append("\" lid ").append(lid.get(peer))
                                    .append(" 4xHDR\n");
                        }
                    }
                }
            }
            out.append('\n');
        }
        for (EndNode n : fabric.nodes()) {
            out.append("vendid=0x2c9\ndevid=0x101b\nsysimgguid=0x").append(Long.toHexString(n.guid())).append('\n');
            out.append("caguid=0x").append(Long.toHexString(n.guid())).append('\n');
            out.append("Ca\t1 \"H-").append(hex(n.guid())).append("\"\t\t# \"").append(n.name()).append("\"\n");
            for (Link l : fabric.links()) {
                if (l.touches(n.guid(), 1)) {
                    long peer = l.a() == n.guid() ? l.b() : l.a();
                    int peerPort = l.a() == n.guid() ? l.bPort() : l.aPort();
                    out.append("[1](").append(Long.toHexString(n.guid() + 1)).append(") \t\"S-").append(hex(peer))
                            .append("\"[").append(peerPort).append("]\t\t# lid ").append(lid.get(n.guid())).append(" lmc 0 \"")
                            .append(fabric.switchByGuid(peer).orElseThrow().name()).append("\" lid ").append(lid.get(peer))
                            .append(" 4xHDR\n");
                }
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static String hex(long guid) {
        return Guids.format(guid).substring(2);
    }
}
