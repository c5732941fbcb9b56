package org.fabricmanager.daemon.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Set;
import org.fabricmanager.topology.PortRef;

/**
 * A switch or a cable to drain or undrain: {@code {"guid":"0x…"}} for a switch, {@code {"guid":"0x…","port":P}} for
 * the cable at that port (either end names it), and {@code "force":true} to drain even when the what-if says it would
 * cut off end nodes or leave the fabric unroutable. Read strictly ({@link RequestBodies}): each field once, nothing
 * after the object, the GUID {@code 0x} and 1 to 16 hex digits.
 *
 * @param guid  the switch
 * @param port  the cable's port on it, 0 for the whole switch
 * @param force drain whatever the what-if says
 */
public record DrainRequest(long guid, int port, boolean force) {
    /** Highest port number a switch can have (InfiniBand: 254). */
    static final int MAX_PORT = 254;
    private static final Set<String> FIELDS = Set.of("guid", "port", "force");

    public DrainRequest {
        if (port < 0 || port > MAX_PORT) {
            throw bad("port must be in [1, " + MAX_PORT + "], got " + port);
        }
    }

    /** The element: port 0 for a switch. */
    public PortRef element() {
        return new PortRef(guid, port);
    }

    /** Whether this names a whole switch. */
    public boolean isSwitch() {
        return port == 0;
    }

    /**
     * Parses a request body.
     *
     * @throws DrainException of kind {@link DrainException.Kind#BAD_REQUEST} naming what is wrong
     */
    public static DrainRequest parse(byte[] body) {
        String shape = "{\"guid\":GUID} (a switch) or {\"guid\":GUID,\"port\":P} (a cable)";
        JsonNode root = RequestBodies.object(body, shape, DrainRequest::bad);
        if (!root.has("guid")) {
            throw bad("the body must be a JSON object " + shape);
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw bad("unknown field '" + RequestBodies.abbreviated(name) + "' (expected guid, port and force)");
            }
        }
        JsonNode g = root.get("guid");
        if (!g.isTextual()) {
            throw bad("'guid' must be a string such as \"0x0002c90300000001\", got " + RequestBodies.abbreviated(g));
        }
        long guid = RequestBodies.guid(g.asText(), DrainRequest::bad);
        int port = 0;
        JsonNode p = root.path("port");
        if (!p.isMissingNode() && !p.isNull()) {
            if (!p.isIntegralNumber() || !p.canConvertToInt() || p.intValue() < 1) {
                throw bad("'port' must be an integer in [1, " + MAX_PORT + "], got " + RequestBodies.abbreviated(p));
            }
            port = p.intValue();
        }
        JsonNode f = root.path("force");
        if (!f.isMissingNode() && !f.isNull() && !f.isBoolean()) {
            throw bad("'force' must be true or false, got " + RequestBodies.abbreviated(f));
        }
        return new DrainRequest(guid, port, f.asBoolean(false));
    }

    private static DrainException bad(String message) {
        return new DrainException(DrainException.Kind.BAD_REQUEST, message);
    }
}
