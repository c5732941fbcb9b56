package org.fabricmanager.daemon.chaos;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.fabricmanager.daemon.HopTestEngine;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.routing.RoutingEngine;

/** Defects planted in chaos simulations to show the oracle catches each. */
public final class PlantedDefects {
    private PlantedDefects() {
    }

    /** One switch drops one block of its first table and acknowledges it as applied. */
    public static final Sabotage SWITCH_SKIPS_A_BLOCK = new Sabotage() {
        @Override
        public String switchesOn(Map<Long, SimulatedSwitch> on, Random random) {
            List<Long> guids = new ArrayList<>(on.keySet());
            SimulatedSwitch victim = on.get(guids.get(random.nextInt(guids.size())));
            victim.skipOneBlock();
            return victim.name() + " drops one block of its next table and acknowledges it";
        }

        @Override
        public String toString() {
            return "a switch that skips a block";
        }
    };

    /**
     * One switch acknowledges its first table while the last block of it has not landed yet (it lands 5 s later):
     * the daemon says CONVERGED one block early.
     */
    public static final Sabotage CONVERGED_ONE_BLOCK_EARLY = new Sabotage() {
        @Override
        public String switchesOn(Map<Long, SimulatedSwitch> on, Random random) {
            List<Long> guids = new ArrayList<>(on.keySet());
            SimulatedSwitch victim = on.get(guids.get(random.nextInt(guids.size())));
            victim.lastBlockAfterAck();
            return victim.name() + " acknowledges its next table before its last block landed";
        }

        @Override
        public String toString() {
            return "CONVERGED one block early";
        }
    };

    /**
     * The drains file loses its last entry at every write, in a file that is otherwise sound (its header counts and
     * checksums what is left): a drain the daemon applied is gone once it restarts.
     */
    public static final Sabotage STATE_LOSES_A_DRAIN = new Sabotage() {
        @Override
        public StateFiles files(StateFiles real) {
            return (file, content) -> real.write(file, file.getFileName().toString().equals(DrainStore.FILE)
                    ? withoutLastEntry(content) : content);
        }

        @Override
        public String toString() {
            return "a drains file that loses a drain";
        }
    };

    /** {@code content}, a checksummed lines file, without its last entry, under a header that matches. */
    private static byte[] withoutLastEntry(byte[] content) {
        List<String> lines = new ArrayList<>(List.of(new String(content, StandardCharsets.UTF_8).split("\n")));
        String header = lines.remove(0);
        int last = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).startsWith("#")) {
                last = i;
            }
        }
        if (last < 0) {
            return content;
        }
        lines.remove(last);
        StringBuilder body = new StringBuilder();
        lines.forEach(l -> body.append(l).append('\n'));
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        int entries = Integer.parseInt(header.replaceAll(".* entries=(\\d+) .*", "$1")) - 1;
        String format = header.substring(0, header.indexOf(" entries="));
        return (String.format(Locale.ROOT, "%s entries=%d crc32c=%08x\n", format, entries, crc.getValue()) + body)
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The routing is plain shortest paths ({@link HopTestEngine}): on a degraded fabric with no path going up then down
     * only left between two leaves it routes them down and up again, which the daemon's engines never do.
     */
    public static final Sabotage ROUTES_NOT_UP_DOWN = new Sabotage() {
        @Override
        public Supplier<RoutingEngine> engines(Supplier<RoutingEngine> real) {
            return HopTestEngine::new;
        }

        @Override
        public String toString() {
            return "routes not up*/down*";
        }
    };

    /**
     * The repair of a pure loss moves one entry too many ({@link OneEntryTooManyEngine}): one whose route crossed
     * nothing lost goes to another port as close to its destination, so every route stays valid.
     */
    public static final Sabotage REPAIR_MOVES_ONE_TOO_MANY = new Sabotage() {
        @Override
        public Supplier<RoutingEngine> engines(Supplier<RoutingEngine> real) {
            return () -> new OneEntryTooManyEngine(real.get());
        }

        @Override
        public String toString() {
            return "a repair that moves one entry too many";
        }
    };
}
