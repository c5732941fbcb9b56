package org.fabricmanager.southbound;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The active manager's southbound address as a standby's redirect names it: {@code HOST:PORT} in the text of
 * ERROR NOT_LEADER (an IPv6 host in brackets), and host and port in the fields appended to it
 * ({@code docs/protocol.md}, section 3.16). The address is unresolved: the agent resolves it when it connects.
 */
final class ManagerAddress {
    /** A DNS name or an IP address: what a redirect may name, nothing a log or a resolver could misread. */
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._:-]+");
    /** Longest {@code HOST:PORT} text read: a longest host in brackets, a colon and five digits. */
    private static final int MAX_TEXT = 260;

    private ManagerAddress() {
    }

    /** Whether {@code host} may stand in a redirect's fields. */
    static boolean validHost(String host) {
        return !host.isEmpty() && host.length() <= Protocol.MAX_HOST_BYTES && HOST.matcher(host).matches();
    }

    /** The address a NOT_LEADER text {@code HOST:PORT} names, or empty for anything else (an empty text too). */
    static Optional<InetSocketAddress> parse(String text) {
        int colon = text == null ? -1 : text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1 || text.length() > MAX_TEXT) {
            return Optional.empty();
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String port = text.substring(colon + 1);
        if (!validHost(host) || port.length() > 5 || !port.chars().allMatch(Character::isDigit)) {
            return Optional.empty();
        }
        int p = Integer.parseInt(port);
        return p < 1 || p > 65535 ? Optional.empty() : Optional.of(InetSocketAddress.createUnresolved(host, p));
    }
}
