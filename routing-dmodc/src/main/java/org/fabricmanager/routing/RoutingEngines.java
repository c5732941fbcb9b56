package org.fabricmanager.routing;

import java.util.List;
import org.fabricmanager.routing.baseline.MinHopEngine;
import org.fabricmanager.routing.baseline.UpDownEngine;
import org.fabricmanager.routing.vtftr.VtftrEngine;

/** Creates engines by the names the CLI and the daemon's configuration use. */
public final class RoutingEngines {
    /** The default engine. */
    public static final String DEFAULT = "dmodc";

    private RoutingEngines() {
    }

    /** Every engine name, in the order the CLI lists them. */
    public static List<String> names() {
        return List.of("dmodc", "dmodk", MinHopEngine.NAME, UpDownEngine.NAME, VtftrEngine.NAME);
    }

    /**
     * A new engine.
     *
     * @param threads worker threads for engines that parallelise (at least 1)
     * @throws RoutingException for an unknown name, listing the known ones
     */
    public static RoutingEngine create(String name, int threads) {
        if (threads < 1) {
            throw new RoutingException("routing threads must be at least 1, got " + threads);
        }
        switch (name) {
            case "dmodc":
                return new org.fabricmanager.routing.dmodc.DmodcEngine(threads);
            case "dmodk":
                return new org.fabricmanager.routing.dmodc.DmodkEngine(threads);
            case MinHopEngine.NAME:
                return new MinHopEngine(threads);
            case UpDownEngine.NAME:
                return new UpDownEngine(threads);
            case VtftrEngine.NAME:
                return new VtftrEngine(threads);
            default:
                throw new RoutingException("unknown routing engine '" + name + "' (known: " + String.join(", ", names())
                        + ")");
        }
    }
}
