package org.fabricmanager.topology;

/**
 * A cable between port {@code aPort} of {@code a} and port {@code bPort} of {@code b}; either end
 * may be a switch or a node, and the order of the ends carries no meaning.
 */
public record Link(long a, int aPort, long b, int bPort) {

    /** The link's text form, e.g. {@code 0x1000000100000000:5-0x1000000200000000:1}. */
    @Override
    public String toString() {
        return Guids.format(a) + ":" + aPort + "-" + Guids.format(b) + ":" + bPort;
    }

    /** True when this link has {@code guid}'s port {@code port} as one of its ends. */
    public boolean touches(long guid, int port) {
        return (a == guid && aPort == port) || (b == guid && bPort == port);
    }

    /** The same cable with its ends ordered (lower GUID, then lower port, first), for comparisons. */
    public Link normalized() {
        if (Long.compareUnsigned(a, b) < 0 || (a == b && aPort <= bPort)) {
            return this;
        }
        return new Link(b, bPort, a, aPort);
    }
}
