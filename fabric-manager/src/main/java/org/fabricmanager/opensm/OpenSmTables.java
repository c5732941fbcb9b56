package org.fabricmanager.opensm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.LidPlan;

/**
 * Our tables as OpenSM will install them: end-node LIDs from the engine's tables, switch LIDs by
 * {@link SwitchLidRoutes}, written by {@link OpenSmLfts}.
 */
public final class OpenSmTables {
    private OpenSmTables() {
    }

    /** Routes the switch LIDs of {@code fabric} by the MinHop rule. */
    public static byte[][] switchRoutes(Fabric fabric, LidPlan lids) {
        FabricIndex index = fabric.index();
        int[] switchLids = new int[index.switchCount()];
        for (int s = 0; s < switchLids.length; s++) {
            switchLids[s] = lids.lid(index.switchGuid(s)).orElse(0);
        }
        return SwitchLidRoutes.compute(index, switchLids);
    }

    /** Writes the complete tables to {@code out}. */
    public static void write(Fabric fabric, ForwardingTables tables, LidPlan lids, Writer out) throws IOException {
        OpenSmLfts.write(fabric, tables, switchRoutes(fabric, lids), lids, out);
    }

    /** Writes the complete tables to {@code file}. */
    public static void write(Fabric fabric, ForwardingTables tables, LidPlan lids, Path file) {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(fabric, tables, lids, w);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }
}
