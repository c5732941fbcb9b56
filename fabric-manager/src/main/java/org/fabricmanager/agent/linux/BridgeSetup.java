package org.fabricmanager.agent.linux;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a Linux bridge forward like a linear forwarding table before the agent programs it: the bridge exists
 * (created when missing) with STP and multicast snooping off (VLAN filtering is left at its default, off) and is up, every switch port is one of
 * its ports with MAC learning and every kind of flooding (unknown unicast, multicast, broadcast) off, so that a frame
 * leaves only by the static entry of its destination MAC. The ports' own up/down state is left alone: it is the
 * link state the agent reports. Idempotent; two {@code ip}/{@code bridge} runs plus one to test for the bridge.
 */
public final class BridgeSetup {
    private BridgeSetup() {
    }

    /** Sets the bridge up; fails naming the command when a port is missing or the kernel refuses. */
    public static void apply(Iproute2 ip, String bridge, PortNames names) throws IOException {
        LinuxNames.requireInterface("bridge", bridge);
        String where = ip.netns().isEmpty() ? "" : " in " + ip.netns();
        Iproute2.Result r = ip.batch("ip", links(bridge, names, ip.run("ip", "link", "show", "dev", bridge).ok()));
        if (!r.ok()) {
            throw new IOException("setting up bridge " + bridge + where + " failed: " + r.firstLine());
        }
        List<String> ports = new ArrayList<>();
        for (int p = 1; p <= names.portCount(); p++) {
            ports.add("link set dev " + names.name(p) + " learning off flood off mcast_flood off bcast_flood off");
        }
        r = ip.batch("bridge", ports);
        if (!r.ok()) {
            throw new IOException("turning learning and flooding off on the ports of " + bridge + where + " failed: "
                    + r.firstLine());
        }
    }

    /** The {@code ip -batch} lines that set {@code bridge} up (created unless it {@code exists}) with the ports. */
    static List<String> links(String bridge, PortNames names, boolean exists) {
        List<String> links = new ArrayList<>();
        if (!exists) {
            // "name" before it: a bare word that is one of ip link's keywords would be read as that ("link add up
            // type bridge" makes a bridge called bridge0, up)
            links.add("link add name " + bridge + " type bridge");
        }
        links.add("link set dev " + bridge + " type bridge stp_state 0 mcast_snooping 0");
        for (int p = 1; p <= names.portCount(); p++) {
            links.add("link set dev " + names.name(p) + " master " + bridge);
        }
        links.add("link set dev " + bridge + " up");
        return links;
    }
}
