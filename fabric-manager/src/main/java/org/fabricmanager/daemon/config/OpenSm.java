package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The OpenSM provider (docs/opensm.md, "The daemon as OpenSM's routing engine"): with {@code socket} set,
 * {@code run} listens there for OpenSM's plug-in, whose subnets it routes.
 *
 * @param socket          the Unix socket's path, or {@code null} for no provider
 * @param socketMode      the socket file's permissions, {@code 0600} or {@code 0660} (octal)
 * @param allowUsers      the users whose processes may connect (checked by their peer credentials); empty: root
 *                        and the daemon's own user
 * @param maxSubnetBytes  the largest subnet report read; a longer one is refused (TOO_LARGE) and the connection closed
 * @param socketGroup     the socket file's group, or {@code null} for the daemon's own: with mode {@code 0660}, the
 *                        group through which OpenSM's user reaches it (the package's {@code fabric-manager-opensm})
 */
public record OpenSm(String socket, String socketMode, List<String> allowUsers, int maxSubnetBytes, String socketGroup) {
    public OpenSm {
        if (!"0600".equals(socketMode) && !"0660".equals(socketMode)) {
            throw new ConfigException("option opensm.socketMode must be \"0600\" or \"0660\", got " + socketMode);
        }
        allowUsers = List.copyOf(allowUsers);
        DaemonConfig.check("opensm.maxSubnetBytes", maxSubnetBytes, 1024, 256 * 1024 * 1024);
    }

    @JsonCreator
    public static OpenSm of(@JsonProperty("socket") String socket, @JsonProperty("socketMode") String socketMode,
                            @JsonProperty("allowUsers") List<String> allowUsers,
                            @JsonProperty("maxSubnetBytes") Integer maxSubnetBytes,
                            @JsonProperty("socketGroup") String socketGroup) {
        return new OpenSm(socket == null || socket.isBlank() ? null : socket, socketMode != null ? socketMode : "0600",
                allowUsers != null ? allowUsers : List.of(), maxSubnetBytes != null ? maxSubnetBytes : 64 * 1024 * 1024,
                socketGroup == null || socketGroup.isBlank() ? null : socketGroup);
    }

    /** The section without a socket group: the daemon's own. */
    public static OpenSm of(String socket, String socketMode, List<String> allowUsers, Integer maxSubnetBytes) {
        return of(socket, socketMode, allowUsers, maxSubnetBytes, null);
    }

    /** Whether {@code run} serves OpenSM's plug-in. */
    public boolean enabled() {
        return socket != null;
    }
}
