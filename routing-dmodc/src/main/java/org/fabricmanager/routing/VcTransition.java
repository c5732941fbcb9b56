package org.fabricmanager.routing;

/**
 * One virtual-channel rule of a switch: a packet that arrived by a port of class {@code from} and
 * leaves by a port of class {@code to} leaves on virtual channel {@code vc}. Packets whose ports match
 * no rule keep the channel they arrived on (packets from end nodes start on channel 0).
 */
public record VcTransition(PortClass from, PortClass to, int vc) {
    public VcTransition {
        if (from == null || to == null) {
            throw new IllegalArgumentException("a VC transition needs both port classes");
        }
        if (vc < 0 || vc > 14) {
            throw new IllegalArgumentException("virtual channel " + vc + " outside [0, 14]");
        }
    }

    @Override
    public String toString() {
        return from.name().toLowerCase() + "->" + to.name().toLowerCase() + ": vc" + vc;
    }
}
