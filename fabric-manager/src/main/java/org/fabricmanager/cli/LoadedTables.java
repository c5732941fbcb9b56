package org.fabricmanager.cli;

import java.nio.file.Path;
import org.fabricmanager.opensm.OpenSmLfts;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.VcText;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TracedValidity;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.TopologyException;

/**
 * Tables that no engine of ours computed: an {@code lft-text/1} file, or an
 * {@code opensm-lfts.dump} OpenSM wrote ({@code --lft-format opensm}, read by the fabric's LIDs),
 * with the leaf-pair validity an engine would report, found by tracing one node pair per leaf pair.
 */
final class LoadedTables {
    /** Value options of commands that take {@code --lft FILE [--lft-format F]}. */
    static final String FORMATS = "lft-text or opensm";

    private LoadedTables() {
    }

    /** Reads {@code --lft} in {@code --lft-format} (default lft-text) for {@code loaded}. */
    static ForwardingTables read(Arguments args, LidFabric loaded) {
        String file = args.require("lft");
        String format = args.valueOr("lft-format", "lft-text");
        try {
            return switch (format) {
                case "lft-text" -> VcText.readWithTables(Path.of(file)); // with FILE.vc
                case "opensm" -> OpenSmLfts.read(Path.of(file), loaded.fabric(), FabricSource.lidsOf(loaded, args.command()));
                default -> throw new UsageException(args.command() + ": --lft-format must be " + FORMATS + ", got '"
                        + format + "'");
            };
        } catch (TopologyException e) {
            throw new UsageException(args.command() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The ordered leaf pairs whose first attached nodes' route is not delivered (a dead end or a
     * loop), as {@link Validity} counts them for an engine.
     */
    static Validity validity(RoutedFabric routed) {
        return TracedValidity.of(routed);
    }
}
