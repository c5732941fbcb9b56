package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.fabricmanager.cli.Main;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;

/** What the switches of a running daemon hold, checked against an offline {@code route} of its live topology. */
final class LiveTables {
    private LiveTables() {
    }

    /**
     * Routes the daemon's live topology ({@code GET /api/v1/topology}, with its destination indices) offline with
     * {@code route --engine ENGINE}, and checks that every switch of it is in sync and acknowledged exactly that
     * table (by its hash). Returns the live fabric.
     */
    static Fabric assertMatchOfflineRoute(FabricProcesses fp, Path work, String name, String engine) throws Exception {
        return assertMatchOfflineRoute(fp, work, name, engine, null);
    }

    /**
     * As {@link #assertMatchOfflineRoute(FabricProcesses, Path, String, String)}, with {@code route --previous
     * PREVIOUS --refine} when {@code previous} is not null: what a daemon with {@code routing.onFault: repair} holds
     * after a change once its repair is refined, {@code previous} being the tables of its last full routing
     * ({@code NAME.lft} of an earlier check).
     */
    static Fabric assertMatchOfflineRoute(FabricProcesses fp, Path work, String name, String engine, Path previous)
            throws Exception {
        // a repair is offline what the daemon installs once refined (routing.rebalance.refineAfter)
        fp.awaitStatus(st -> st.path("state").asText().equals("CONVERGED") && !st.at("/routing/refinePending")
                .asBoolean(), "the repair in force refined", 120);
        Path topology = work.resolve(name + ".json");
        Files.writeString(topology, fp.get("/api/v1/topology").toString());
        Fabric live = FabricJson.read(topology);
        Path lft = work.resolve(name + ".lft");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("route", "--topology", topology.toString(), "--engine", engine,
                "--lft-out", lft.toString()));
        if (previous != null) {
            args.addAll(List.of("--previous", previous.toString(), "--refine"));
        }
        int code = new Main(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args.toArray(new String[0]));
        assertThat(code).as("offline route of the live topology (%s): %s", name, err).isZero();
        ForwardingTables expected = LftText.read(lft);
        assertThat(expected.switchCount()).isEqualTo(live.switches().size());
        Map<String, String> held = hashes(fp);
        for (int s = 0; s < expected.switchCount(); s++) {
            String guid = Guids.format(expected.switchGuid(s));
            assertThat(held.get(guid)).as("%s holds route's table (%s)", guid, name)
                    .isEqualTo(Guids.format(TableHash.of(expected.copyRow(s))));
        }
        return live;
    }

    /** The table hash each connected, in-sync switch acknowledged, by GUID. */
    static Map<String, String> hashes(FabricProcesses fp) throws Exception {
        Map<String, String> out = new TreeMap<>();
        for (var sw : fp.get("/api/v1/switches")) {
            if (!sw.path("connected").asBoolean()) {
                continue;
            }
            String guid = sw.path("guid").asText();
            var detail = fp.get("/api/v1/switches/" + guid);
            assertThat(detail.path("inSync").asBoolean()).as("%s in sync", guid).isTrue();
            out.put(guid, detail.path("tableHash").asText());
        }
        return out;
    }
}
