package org.fabricmanager.netlab;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The names of one netlab: switch {@code G}'s namespace is {@code PREFIX-s} followed by {@code G} in hex without
 * {@code 0x} and leading zeros ({@code lab-s1000000100000000}), its port {@code p} the interface {@code p<p>}; end node
 * {@code i}'s namespace (its destination index in the canonical fabric) is {@code PREFIX-n<i>}, its interface
 * {@code eth0}; the bridge is {@code br0}. The lab's files (cabling, PKI, the daemon's state, the namespace map,
 * requests to running labs) are under {@code /run/fabric-manager/netlab-PREFIX}.
 *
 * @param prefix 1 to 8 lower-case letters or digits, starting with a letter
 */
public record NetlabNames(String prefix) {
    /** The bridge of every switch namespace. */
    public static final String BRIDGE = "br0";
    /** The interface of every end node. */
    public static final String NODE_INTERFACE = "eth0";
    /** The interface of switch port {@code p} is this followed by {@code p}. */
    public static final String PORT_PREFIX = "p";

    public NetlabNames {
        if (prefix == null || !prefix.matches("[a-z][a-z0-9]{0,7}")) {
            throw new IllegalArgumentException("netlab prefix '" + prefix + "': 1 to 8 lower-case letters or digits,"
                    + " starting with a letter");
        }
    }

    public String switchNamespace(long guid) {
        return prefix + "-s" + Long.toHexString(guid);
    }

    public String nodeNamespace(int index) {
        return prefix + "-n" + index;
    }

    /** Whether {@code netns} is one of this lab's namespaces. */
    public boolean owns(String netns) {
        return netns.matches(Pattern.quote(prefix) + "-(s[0-9a-f]{1,16}|n[0-9]{1,9})");
    }

    /** The GUID of a switch namespace name. */
    public long guidOf(String switchNamespace) {
        return Long.parseUnsignedLong(switchNamespace.substring(prefix.length() + 2), 16);
    }

    /** The lab's directory. */
    public Path directory() {
        return Path.of("/run/fabric-manager", "netlab-" + prefix);
    }

    /** Where a running lab looks for requests ({@code kill-switch}). */
    public Path requests() {
        return directory().resolve("requests");
    }
}
