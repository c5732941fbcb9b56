package org.fabricmanager.detector;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Where a vacant ring slot stands until its switch comes (a slot planned for an expected switch that has not
 * connected; every member starts it dead): an address in {@code 0.0.0.0/8} ("this network", RFC 1122 3.2.1.3),
 * which is no host's and may never be a datagram's destination, unique per slot (members are told apart by
 * address). A documentation range would not do: such ranges are real networks on some management hosts. A dead
 * slot is never sent to by the protocol; the transports also refuse to ({@link #is}), so that a mistake can cost a
 * lost datagram and never traffic to a stranger.
 */
public final class VacantAddress {
    private static final int PORTS = 65_535;

    private VacantAddress() {
    }

    /** The placeholder of slot {@code index} (0 and up, below 2^24 / 65,535 slots per address). */
    public static InetSocketAddress of(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("slot index " + index);
        }
        int host = 1 + index / PORTS; // never 0.0.0.0, which means "this host" to a socket
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {0, (byte) (host >>> 16), (byte) (host >>> 8),
                    (byte) host}), 1 + index % PORTS);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** True for any address in {@code 0.0.0.0/8}: a vacant slot's, or one no datagram may go to anyway. */
    public static boolean is(InetSocketAddress address) {
        return address != null && address.getAddress() instanceof Inet4Address a && a.getAddress()[0] == 0;
    }
}
