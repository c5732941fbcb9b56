package org.fabricmanager.daemon.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PortRef;

/**
 * The failures a what-if assumes: switches (by GUID) and links (by one end, switch GUID and port). Read from
 * {@code {"switches":["0x…",…],"links":[{"guid":"0x…","port":P},…]}}, bounded ({@value #MAX_SWITCHES}
 * switches, {@value #MAX_LINKS} links), read strictly ({@link RequestBodies}: each field once, GUIDs {@code 0x} and
 * 1 to 16 hex digits), every GUID and port checked for form and duplicates here and against
 * the fabric by {@link WhatIfFailures}. {@code {"rebalance":true}} (and no failures) asks instead what a rebalance
 * ({@code POST /api/v1/routing/rebalance}) would change and gain.
 */
public record WhatIfRequest(List<Long> switches, List<PortRef> links, boolean rebalance) {
    /** Most switches one request may fail. */
    public static final int MAX_SWITCHES = 1024;
    /** Most links one request may fail. */
    public static final int MAX_LINKS = 4096;
    /** Highest port number a switch can have (InfiniBand: 254). */
    static final int MAX_PORT = 254;


    /** A what-if of failures. */
    public WhatIfRequest(List<Long> switches, List<PortRef> links) {
        this(switches, links, false);
    }

    public WhatIfRequest {
        switches = List.copyOf(switches);
        links = List.copyOf(links);
        if (rebalance && !(switches.isEmpty() && links.isEmpty())) {
            throw bad("a rebalance's what-if takes no failures: ask for the failures, or the rebalance, alone");
        }
        if (!rebalance && switches.isEmpty() && links.isEmpty()) {
            throw bad("name at least one switch or link to fail (or ask {\"rebalance\":true})");
        }
        if (switches.size() > MAX_SWITCHES) {
            throw bad(switches.size() + " switches: at most " + MAX_SWITCHES + " per request");
        }
        if (links.size() > MAX_LINKS) {
            throw bad(links.size() + " links: at most " + MAX_LINKS + " per request");
        }
        Set<Long> seen = new HashSet<>();
        for (long g : switches) {
            if (!seen.add(g)) {
                throw bad("switch " + Guids.format(g) + " is named twice");
            }
        }
        Set<PortRef> ports = new HashSet<>();
        for (PortRef p : links) {
            if (p.port() < 1 || p.port() > MAX_PORT) {
                throw bad("link " + p + ": port must be in [1, " + MAX_PORT + "]");
            }
            if (!ports.add(p)) {
                throw bad("link " + p + " is named twice");
            }
        }
    }

    /**
     * Parses a request body.
     *
     * @throws WhatIfException of kind {@link WhatIfException.Kind#BAD_REQUEST} naming what is wrong
     */
    public static WhatIfRequest parse(byte[] body) {
        JsonNode root = RequestBodies.object(body,
                "{\"switches\":[GUID,...],\"links\":[{\"guid\":GUID,\"port\":P},...]}", WhatIfRequest::bad);
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("switches") && !name.equals("links") && !name.equals("rebalance")) {
                throw bad("unknown field '" + RequestBodies.abbreviated(name)
                        + "' (expected switches and links, or rebalance)");
            }
        }
        JsonNode rebalance = root.path("rebalance");
        if (!rebalance.isMissingNode() && !rebalance.isBoolean()) {
            throw bad("'rebalance' must be true or false, got " + RequestBodies.abbreviated(rebalance));
        }
        List<Long> switches = new ArrayList<>();
        JsonNode s = root.path("switches");
        if (!s.isMissingNode() && !s.isNull()) {
            if (!s.isArray()) {
                throw bad("'switches' must be an array of GUID strings");
            }
            if (s.size() > MAX_SWITCHES) {
                throw bad(s.size() + " switches: at most " + MAX_SWITCHES + " per request");
            }
            for (JsonNode g : s) {
                switches.add(guid(g, "switches"));
            }
        }
        List<PortRef> links = new ArrayList<>();
        JsonNode l = root.path("links");
        if (!l.isMissingNode() && !l.isNull()) {
            if (!l.isArray()) {
                throw bad("'links' must be an array of {\"guid\":GUID,\"port\":P}");
            }
            if (l.size() > MAX_LINKS) {
                throw bad(l.size() + " links: at most " + MAX_LINKS + " per request");
            }
            for (JsonNode link : l) {
                if (!link.isObject() || !link.has("guid") || !link.has("port") || link.size() != 2) {
                    throw bad("each link must be {\"guid\":GUID,\"port\":P}, got " + RequestBodies.abbreviated(link));
                }
                JsonNode port = link.get("port");
                if (!port.isIntegralNumber() || !port.canConvertToInt()) {
                    throw bad("link port must be an integer, got " + RequestBodies.abbreviated(port));
                }
                links.add(new PortRef(guid(link.get("guid"), "links"), port.intValue()));
            }
        }
        return new WhatIfRequest(switches, links, rebalance.asBoolean(false));
    }

    private static long guid(JsonNode node, String field) {
        if (!node.isTextual()) {
            throw bad("'" + field + "': a GUID must be a string such as \"0x0002c90300000001\", got " + RequestBodies.abbreviated(node));
        }
        return RequestBodies.guid(node.asText(), why -> bad("'" + field + "': " + why));
    }

    private static WhatIfException bad(String message) {
        return new WhatIfException(WhatIfException.Kind.BAD_REQUEST, message);
    }
}
