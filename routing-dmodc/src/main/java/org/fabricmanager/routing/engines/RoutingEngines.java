package org.fabricmanager.routing.engines;

import java.util.List;
import java.util.function.Function;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.baseline.MinHopEngine;
import org.fabricmanager.routing.baseline.SsspEngine;
import org.fabricmanager.routing.baseline.UpDownEngine;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.DmodkEngine;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.routing.dmodc.plain.PlainDmodcEngine;
import org.fabricmanager.routing.vtftr.VtftrEngine;

/**
 * Creates engines by the names the CLI and the daemon's configuration use. It lives in a package of
 * its own because it knows every engine, while the engines only know the API package
 * ({@code org.fabricmanager.routing}): arrows point from here to the engines to the API, never back.
 */
public final class RoutingEngines {
    /** The default engine. */
    public static final String DEFAULT = HomeDmodcEngine.NAME;

    private RoutingEngines() {
    }

    /** Every engine name, in the order the CLI lists them. */
    public static List<String> names() {
        return List.of(DmodcEngine.NAME, DmodkEngine.NAME, HomeDmodcEngine.NAME, MinHopEngine.NAME, UpDownEngine.NAME,
                SsspEngine.NAME, VtftrEngine.NAME, PlainDmodcEngine.NAME);
    }

    /** The names of the engines the daemon may route with ({@link RoutingEngine#routesForDaemon()}). */
    public static List<String> forDaemon() {
        return names().stream().filter(n -> ask(n, RoutingEngine::routesForDaemon)).toList();
    }

    /** The names of the engines the daemon may route with that are made for exactly {@code shapes}. */
    public static List<String> forDaemon(FabricShapes shapes) {
        return forDaemon().stream().filter(n -> ask(n, RoutingEngine::shapes) == shapes).toList();
    }

    /** The names of the engines that repair tables ({@link RoutingEngine#repairer()}). */
    public static List<String> repairing() {
        return names().stream().filter(n -> ask(n, e -> e.repairer().isPresent())).toList();
    }

    /**
     * What engine {@code name} says of itself, asked of a one-thread instance made for the question.
     *
     * @throws RoutingException for an unknown name
     */
    public static <T> T ask(String name, Function<RoutingEngine, T> question) {
        try (RoutingEngine engine = create(name, 1)) {
            return question.apply(engine);
        }
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
            case DmodcEngine.NAME:
                return new DmodcEngine(threads);
            case PlainDmodcEngine.NAME:
                return new PlainDmodcEngine();
            case DmodkEngine.NAME:
                return new DmodkEngine(threads);
            case HomeDmodcEngine.NAME:
                return new HomeDmodcEngine(threads);
            case SsspEngine.NAME:
                return new SsspEngine();
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
