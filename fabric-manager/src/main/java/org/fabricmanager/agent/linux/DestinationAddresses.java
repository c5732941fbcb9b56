package org.fabricmanager.agent.linux;

import java.util.Locale;

/**
 * The fixed mapping from a destination index (an end node's place in the forwarding tables) to its Ethernet
 * address and, for labs, its IPv4 address. The MAC is locally administered and unicast, {@code 02:66:6d} ("fm")
 * then the index in 24 bits: index 0 is {@code 02:66:6d:00:00:00}, index 300 is {@code 02:66:6d:00:01:2c}. The
 * IPv4 address is {@code 10.0.0.0/8} plus the index plus one: index 0 is {@code 10.0.0.1}, index 300 is
 * {@code 10.0.1.45}. An end node must send from, and be addressed to, the MAC of its index: the switches forward
 * on nothing else.
 */
public final class DestinationAddresses {
    /** The first three bytes of every destination MAC. */
    public static final String MAC_PREFIX = "02:66:6d:";
    /** Largest index with a MAC (24 bits; the tables stop far below). */
    public static final int MAX_INDEX = (1 << 24) - 2;

    private DestinationAddresses() {
    }

    /** The MAC of destination {@code index}, lower case with colons. */
    public static String mac(int index) {
        check(index);
        return String.format(Locale.ROOT, "%s%02x:%02x:%02x", MAC_PREFIX, (index >> 16) & 0xff, (index >> 8) & 0xff,
                index & 0xff);
    }

    /**
     * The destination index of {@code mac}, or -1 when it is not a destination MAC (any other address a bridge
     * holds: its ports' own, multicast).
     */
    public static int index(String mac) {
        String m = mac.toLowerCase(Locale.ROOT);
        if (m.length() != 17 || !m.startsWith(MAC_PREFIX)) {
            return -1;
        }
        try {
            int i = Integer.parseInt(m.substring(9, 11), 16) << 16 | Integer.parseInt(m.substring(12, 14), 16) << 8
                    | Integer.parseInt(m.substring(15, 17), 16);
            return m.charAt(11) == ':' && m.charAt(14) == ':' && i <= MAX_INDEX ? i : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The lab IPv4 address of destination {@code index} ({@code 10.0.0.0/8}, index + 1). */
    public static String ipv4(int index) {
        check(index);
        int host = index + 1;
        return "10." + ((host >> 16) & 0xff) + "." + ((host >> 8) & 0xff) + "." + (host & 0xff);
    }

    private static void check(int index) {
        if (index < 0 || index > MAX_INDEX) {
            throw new IllegalArgumentException("destination index " + index + " outside [0, " + MAX_INDEX + "]");
        }
    }
}
