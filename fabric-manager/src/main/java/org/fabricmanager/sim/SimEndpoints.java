package org.fabricmanager.sim;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.rest.RestError;
import org.fabricmanager.daemon.rest.RestExtension;
import org.fabricmanager.daemon.rest.RestJson;
import org.fabricmanager.topology.Guids;

/**
 * The demo's fault-injection actions on its simulated fabric, served by the daemon's REST server under
 * {@code /api/v1/sim} ({@code docs/rest-api.md}): kill a switch ({@code mode=power} or {@code mode=agent},
 * required), revive it, take a link down or up, make a port's error counters rise ({@code links/errors?guid=G&port=P&
 * perSecond=N}, 0 stops them). Registered before the simulated fabric exists (the agents need
 * the daemon's port first, ibsim's switches their GUIDs from OpenSM); until {@link #attach} the actions answer 404,
 * as on a daemon without a simulator. A refused action answers 409 (the fabric's state does not allow it) or 400
 * (it has no meaning on that fabric), with the fabric's reason.
 */
public final class SimEndpoints implements RestExtension {
    private volatile SimulatedFaults sim;

    /** The simulated fabric the actions drive from now on. */
    public void attach(SimulatedFaults fabric) {
        this.sim = fabric;
    }

    @Override
    public String resource() {
        return "sim";
    }

    @Override
    public CompletableFuture<byte[]> post(String[] parts, Map<String, List<String>> params, String path) {
        SimulatedFaults s = sim;
        if (s == null) {
            throw new RestError(HttpResponseStatus.NOT_FOUND, path + ": no simulated fabric is attached (the simulation "
                    + "endpoints exist only in demo mode)");
        }
        return CompletableFuture.completedFuture(RestJson.bytes(act(s, parts, params, path)));
    }

    /** Query parameter {@code name}, a whole number in [min, max]. */
    private static long number(Map<String, List<String>> params, String name, long min, long max) {
        String text = RestJson.single(params, name, null);
        try {
            long n = Long.parseLong(text.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new RestError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name + "' must be a whole number in ["
                + min + ", " + max + "], got '" + text + "'");
    }

    private static Map<String, Object> act(SimulatedFaults sim, String[] parts, Map<String, List<String>> params,
                                           String path) {
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            if (parts.length == 7 && parts[4].equals("switches")) {
                long guid = RestJson.guid(parts[5]);
                sim.requireSwitch(guid);
                switch (parts[6]) {
                    case "kill" -> {
                        String mode = RestJson.single(params, "mode", "");
                        FabricSimulator.KillMode m = switch (mode) {
                            case "power" -> FabricSimulator.KillMode.POWER;
                            case "agent" -> FabricSimulator.KillMode.AGENT;
                            default -> throw new RestError(HttpResponseStatus.BAD_REQUEST, "query parameter 'mode' must "
                                    + "be power (the switch and its links go down) or agent (only its agent hangs), got '"
                                    + mode + "'");
                        };
                        sim.kill(guid, m);
                        out.put("killed", Guids.format(guid));
                        out.put("mode", mode);
                    }
                    case "revive" -> {
                        sim.revive(guid);
                        out.put("revived", Guids.format(guid));
                    }
                    default -> throw RestError.notFound(path);
                }
                return out;
            }
            if (parts.length == 6 && parts[4].equals("links") && parts[5].equals("errors")) {
                long guid = RestJson.guid(RestJson.single(params, "guid", null));
                int port = (int) number(params, "port", 1, 254);
                long perSecond = number(params, "perSecond", 0, 1_000_000_000);
                sim.requireSwitch(guid);
                sim.linkErrors(guid, port, perSecond);
                out.put("port", Guids.format(guid) + "/" + port);
                out.put("errorsPerSecond", perSecond);
                return out;
            }
            if (parts.length == 6 && parts[4].equals("links") && (parts[5].equals("down") || parts[5].equals("up"))) {
                long guid = RestJson.guid(RestJson.single(params, "guid", null));
                String portText = RestJson.single(params, "port", null);
                int port;
                try {
                    port = Integer.parseInt(portText.trim());
                } catch (NumberFormatException e) {
                    throw new RestError(HttpResponseStatus.BAD_REQUEST, "query parameter 'port' must be a port number, "
                            + "got '" + portText + "'");
                }
                sim.requireSwitch(guid);
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
            throw new RestError(HttpResponseStatus.NOT_FOUND, e.getMessage());
        } catch (IllegalStateException e) {
            throw new RestError(HttpResponseStatus.CONFLICT, e.getMessage());
        } catch (UnsupportedOperationException e) {
            throw new RestError(HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
        throw RestError.notFound(path);
    }
}
