package org.fabricmanager.daemon.rest;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.agent.FabricSimulator;
import org.fabricmanager.daemon.DaemonApi;
import org.fabricmanager.daemon.rest.RestHandler.HttpError;
import org.fabricmanager.topology.Guids;

/**
 * The REST actions ({@code POST}): a forced re-route, which needs the configured admin token, and in
 * demo mode the simulated fabric's fault injection (404 otherwise). Answers are small JSON objects.
 */
final class FaultEndpoints {
    private FaultEndpoints() {
    }

    static CompletableFuture<byte[]> post(DaemonApi api, String path, Map<String, List<String>> params,
                                          String authorization) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String[] parts = p.split("/");
        if (parts.length < 4 || !parts[1].equals("api") || !parts[2].equals("v1")) {
            throw RestHandler.notFound(path);
        }
        if (parts[3].equals("reroute") && parts.length == 4) {
            authorize(api.adminToken(), authorization);
            return api.reroute().thenApply(msg -> RestHandler.json(Map.of("result", msg)));
        }
        if (parts[3].equals("sim")) {
            FabricSimulator sim = api.simulator();
            if (sim == null) {
                throw new HttpError(HttpResponseStatus.NOT_FOUND, path + ": the simulation endpoints exist only in demo mode");
            }
            return CompletableFuture.completedFuture(RestHandler.json(simulate(sim, parts, params, path)));
        }
        throw new HttpError(HttpResponseStatus.METHOD_NOT_ALLOWED, "POST not allowed on " + path
                + " (POST: /api/v1/reroute and, in demo mode, /api/v1/sim/...)");
    }

    private static void authorize(String token, String authorization) {
        if (token == null) {
            throw new HttpError(HttpResponseStatus.FORBIDDEN, "no admin token is configured (rest.adminToken): "
                    + "actions are refused");
        }
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            throw new HttpError(HttpResponseStatus.UNAUTHORIZED, "missing 'Authorization: Bearer <token>' header");
        }
        byte[] given = authorization.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, token.getBytes(StandardCharsets.UTF_8))) {
            throw new HttpError(HttpResponseStatus.FORBIDDEN, "wrong admin token");
        }
    }

    private static Map<String, Object> simulate(FabricSimulator sim, String[] parts, Map<String, List<String>> params,
                                                String path) {
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            if (parts.length == 7 && parts[4].equals("switches")) {
                long guid = RestHandler.guid(parts[5]);
                sim.agent(guid);
                switch (parts[6]) {
                    case "kill" -> {
                        String mode = single(params, "mode", "power");
                        FabricSimulator.KillMode m = switch (mode) {
                            case "power" -> FabricSimulator.KillMode.POWER;
                            case "agent" -> FabricSimulator.KillMode.AGENT;
                            default -> throw new HttpError(HttpResponseStatus.BAD_REQUEST,
                                    "query parameter 'mode' must be power or agent, got '" + mode + "'");
                        };
                        sim.kill(guid, m);
                        out.put("killed", Guids.format(guid));
                        out.put("mode", mode);
                    }
                    case "revive" -> {
                        sim.revive(guid);
                        out.put("revived", Guids.format(guid));
                    }
                    default -> throw RestHandler.notFound(path);
                }
                return out;
            }
            if (parts.length == 6 && parts[4].equals("links") && (parts[5].equals("down") || parts[5].equals("up"))) {
                long guid = RestHandler.guid(single(params, "guid", null));
                String portText = single(params, "port", null);
                int port;
                try {
                    port = Integer.parseInt(portText.trim());
                } catch (NumberFormatException e) {
                    throw new HttpError(HttpResponseStatus.BAD_REQUEST, "query parameter 'port' must be a port number, got '"
                            + portText + "'");
                }
                sim.agent(guid);
                if (parts[5].equals("down")) {
                    sim.linkDown(guid, port);
                } else {
                    sim.linkUp(guid, port);
                }
                out.put("link", Guids.format(guid) + "/" + port);
                out.put("state", parts[5]);
                return out;
            }
        } catch (IllegalArgumentException e) {
            throw new HttpError(HttpResponseStatus.NOT_FOUND, e.getMessage());
        }
        throw RestHandler.notFound(path);
    }

    private static String single(Map<String, List<String>> params, String name, String fallback) {
        List<String> v = params.get(name);
        if (v == null || v.isEmpty()) {
            if (fallback == null) {
                throw new HttpError(HttpResponseStatus.BAD_REQUEST, "missing query parameter '" + name + "'");
            }
            return fallback;
        }
        return v.get(0);
    }
}
