package org.fabricmanager.routing.dmodc;

import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/**
 * Checks, port by port against the numbering of {@code docs/formats.md}, that a fabric is
 * exactly the canonical fabric of its expected PGFT: every switch with its radix, every node with
 * its index, every link in place and nothing else. Linear in the number of ports; Dmodk's closed
 * form is only right on such a fabric.
 */
final class CanonicalPgftCheck {
    private static final String PREFIX = "dmodk needs an intact canonical PGFT: ";

    private CanonicalPgftCheck() {
    }

    /**
     * Returns the fabric's PGFT.
     *
     * @throws RoutingException saying what differs (missing switches and links, a miswired port, ...)
     */
    static PgftSpec require(FabricIndex index) {
        PgftSpec spec = index.fabric().pgft().orElseThrow(() -> new RoutingException(PREFIX
                + "the fabric has no expected PGFT shape (generate it with --pgft, or give \"pgft\" in the topology file)"));
        int h = spec.h();
        int[][] id = new int[h + 1][];
        int missingSwitches = 0;
        for (int l = 1; l <= h; l++) {
            id[l] = new int[spec.switchCount(l)];
            for (int idx = 0; idx < id[l].length; idx++) {
                long guid = PgftGenerator.switchGuid(l, idx);
                int s = index.switchId(guid);
                id[l][idx] = s;
                if (s == FabricIndex.NONE) {
                    missingSwitches++;
                } else if (index.switchPorts(s) != spec.radix(l)) {
                    throw new RoutingException(PREFIX + "switch " + Guids.format(guid) + " has " + index.switchPorts(s)
                            + " ports, " + spec + " level " + l + " has " + spec.radix(l));
                }
            }
        }
        int extraSwitches = index.switchCount() - (spec.totalSwitchCount() - missingSwitches);
        if (extraSwitches > 0) {
            throw new RoutingException(PREFIX + "fabric has " + extraSwitches + " switches that are not in " + spec);
        }
        int nodes = spec.nodeCount();
        if (index.nodeCount() != nodes) {
            throw new RoutingException(PREFIX + "fabric has " + index.nodeCount() + " nodes, " + spec + " has " + nodes);
        }
        long missingLinks = 0;
        int m1 = spec.m(1);
        for (int d = 0; d < nodes; d++) {
            int pos = index.nodePosition(PgftGenerator.nodeGuid(d));
            if (pos == FabricIndex.NONE || index.nodeIndex(pos) != d) {
                throw new RoutingException(PREFIX + "node " + Guids.format(PgftGenerator.nodeGuid(d))
                        + (pos == FabricIndex.NONE ? " is missing" : " has index " + index.nodeIndex(pos) + ", not " + d));
            }
            int leaf = id[1][d / m1];
            int port = 1 + d % m1;
            if (leaf == FabricIndex.NONE || index.peerNodes(leaf)[port] == FabricIndex.NONE
                    && index.peerSwitches(leaf)[port] == FabricIndex.NONE) {
                missingLinks++;
            } else if (index.peerNodes(leaf)[port] != pos) {
                throw miswired(index, leaf, port, "node " + Guids.format(PgftGenerator.nodeGuid(d)));
            }
        }
        for (int l = 1; l < h; l++) {
            int wl = spec.bigW(l);
            int wNext = spec.bigW(l + 1);
            int mNext = spec.m(l + 1);
            int pNext = spec.p(l + 1);
            int upBase = 1 + spec.m(l) * spec.p(l);
            for (int idx = 0; idx < id[l].length; idx++) {
                int s = id[l][idx];
                int a = idx / wl;
                int b0 = idx % wl;
                for (int b = 0; b < spec.w(l + 1); b++) {
                    int parent = id[l + 1][(a / mNext) * wNext + b0 + b * wl];
                    for (int j = 0; j < pNext; j++) {
                        int port = upBase + b * pNext + j;
                        int parentPort = 1 + (a % mNext) * pNext + j;
                        if (s == FabricIndex.NONE || parent == FabricIndex.NONE
                                || index.peerSwitches(s)[port] == FabricIndex.NONE
                                && index.peerNodes(s)[port] == FabricIndex.NONE) {
                            missingLinks++;
                        } else if (index.peerSwitches(s)[port] != parent || index.peerPorts(s)[port] != parentPort) {
                            throw miswired(index, s, port,
                                    Guids.format(index.switchGuid(parent)) + " port " + parentPort);
                        }
                    }
                }
            }
        }
        if (missingSwitches > 0 || missingLinks > 0) {
            throw new RoutingException(PREFIX + "fabric is degraded ("
                    + (missingSwitches > 0 ? missingSwitches + " switches and " : "") + missingLinks + " links missing)");
        }
        if (index.fabric().links().size() != spec.totalLinkCount()) {
            throw new RoutingException(PREFIX + "fabric has " + (index.fabric().links().size() - spec.totalLinkCount())
                    + " links that are not in " + spec);
        }
        return spec;
    }

    private static RoutingException miswired(FabricIndex index, int s, int port, String expected) {
        int peer = index.peerSwitches(s)[port];
        int node = index.peerNodes(s)[port];
        String actual = peer != FabricIndex.NONE
                ? Guids.format(index.switchGuid(peer)) + " port " + index.peerPorts(s)[port]
                : node != FabricIndex.NONE ? "node " + Guids.format(index.nodeGuid(node)) : "nothing";
        return new RoutingException(PREFIX + "port " + port + " of switch " + Guids.format(index.switchGuid(s))
                + " is linked to " + actual + ", expected " + expected);
    }
}
