package org.fabricmanager.agent.linux;

/**
 * The Linux interface of each switch port: port {@code p} is {@code prefix + p} ({@code p1}, {@code p2}, ...
 * with the default prefix {@code p}).
 *
 * @param prefix    what precedes the port number
 * @param portCount the switch's ports, 1..portCount
 */
public record PortNames(String prefix, int portCount) {
    public PortNames {
        if (prefix == null || prefix.isEmpty() || !prefix.matches("[A-Za-z][A-Za-z0-9_.-]*") || prefix.length() > 10) {
            throw new IllegalArgumentException("port name prefix '" + prefix + "': 1-10 letters, digits, '_', '.' or"
                    + " '-', starting with a letter");
        }
        if (portCount < 1 || portCount > 254) {
            throw new IllegalArgumentException("port count " + portCount + " outside [1, 254]");
        }
    }

    /** The interface name of port {@code port}. */
    public String name(int port) {
        return prefix + port;
    }

    /** The port of interface {@code ifname}, or 0 when it is no port of this switch. */
    public int port(String ifname) {
        if (!ifname.startsWith(prefix) || ifname.length() == prefix.length()) {
            return 0;
        }
        String digits = ifname.substring(prefix.length());
        if (!digits.chars().allMatch(Character::isDigit) || digits.length() > 3) {
            return 0;
        }
        int p = Integer.parseInt(digits);
        return p >= 1 && p <= portCount ? p : 0;
    }
}
