package org.fabricmanager.agent.linux;

/**
 * The Linux interface of each switch port: port {@code p} is {@code prefix + p} ({@code p1}, {@code p2}, ...
 * with the default prefix {@code p}). Every such name is a valid interface name ({@link LinuxNames}): the prefix
 * with the highest port number fits in {@value LinuxNames#MAX_INTERFACE_BYTES} bytes.
 *
 * @param prefix    what precedes the port number
 * @param portCount the switch's ports, 1..portCount
 */
public record PortNames(String prefix, int portCount) {
    public PortNames {
        if (portCount < 1 || portCount > 254) {
            throw new IllegalArgumentException("ports " + portCount + ": outside [1, 254]");
        }
        String why = LinuxNames.interfaceProblem(prefix);
        // the longest name is that of the highest port: when it fits, every port's does
        if (why == null && (prefix + portCount).length() > LinuxNames.MAX_INTERFACE_BYTES) {
            why = "port " + portCount + " would be " + LinuxNames.shown(prefix + portCount) + ", longer than "
                    + LinuxNames.MAX_INTERFACE_BYTES + " bytes";
        }
        if (why != null) {
            throw new IllegalArgumentException("portPrefix " + LinuxNames.shown(prefix) + ": " + why);
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
