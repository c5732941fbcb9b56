package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.FabricProcesses.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.system.FabricProcesses.CliResult;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What-if and routing quality in the production shape: a {@code run} process routing with dmodc and the
 * agents in a {@code simulate} process, over loopback. The admin CLI asks what-if of a spine and of a link
 * ({@code whatif --token-file}); the counts equal the CLI's offline repair of the LFTs the daemon serves for the
 * degraded topology ({@code route --previous}, what {@code routing.onFault: repair} installs) compared with them, and afterwards the routing version, the served LFTs and
 * the switches' acknowledged versions are those of before. The routing quality the daemon reports equals
 * {@code quality --lft} run on the served tables and topology; when the spine then really loses power, the
 * quality measured after the daemon's re-route is what the what-if predicted.
 */
class WhatIfIT {
    /** 56 switches, 96 nodes: two 64-entry blocks per table. */
    static final String SPEC = "PGFT(3;4,4,6;1,4,2;1,1,1)";
    static final String TOKEN = "9a1c3e5f7b2d4f6a8c0e1a3c5e7f9b1d";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void whatIfMatchesAnOfflineRoutingAndQualityMatchesTheQualityCommand() throws Exception {
        Path token = dir.resolve("admin-token");
        Files.writeString(token, TOKEN + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                routing:
                  engine: dmodc
                state:
                  directory: "%s"
                security:
                  insecure: true
                rest:
                  adminTokenFile: "%s"
                """.formatted(SPEC, dir.resolve("state"), token));
        try (FabricProcesses fp = new FabricProcesses(dir)) {
            fp.startDaemon(config, "-Xmx512m");
            FabricProcesses.Simulator sim = fp.startSimulator("sim", "-Xmx384m", List.of("--pgft", SPEC));
            JsonNode status = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED"), "convergence", 180);
            long version = status.at("/routing/version").asLong();
            long computations = status.at("/routing/computations").asLong();
            Fabric live = FabricJson.parse(fp.get("/api/v1/topology").toString());
            ForwardingTables served = served(fp, live);
            Path topology = dir.resolve("live.topology.json");
            Files.writeString(topology, FabricJson.toJson(live));

            // a spine
            long spine = PgftGenerator.switchGuid(3, 5);
            CliResult spineRun = cli(dir, "-Xmx256m", 120, "whatif", "--url", fp.restUrl(), "--token-file", token.toString(),
                    "--switch", Guids.format(spine), "--json");
            assertThat(spineRun.exit()).as(spineRun.all()).isZero();
            JsonNode spineResult = JSON.readTree(spineRun.out());
            assertCounts(spineResult, served, offline(live.withoutSwitches(List.of(spine)), served, "spine"));
            assertThat(spineResult.get("repaired").asBoolean()).isTrue();
            assertThat(spineResult.get("routingVersion").asLong()).isEqualTo(version);

            // a link between levels 1 and 2, named by its leaf end, with the table the operator reads
            long leaf = PgftGenerator.switchGuid(1, 7);
            Link up = live.links().stream().filter(l -> (l.a() == leaf && live.isSwitch(l.b()))
                    || (l.b() == leaf && live.isSwitch(l.a()))).findFirst().orElseThrow();
            int port = up.a() == leaf ? up.aPort() : up.bPort();
            CliResult linkRun = cli(dir, "-Xmx256m", 120, "whatif", "--url", fp.restUrl(), "--token-file", token.toString(),
                    "--link", Guids.format(leaf) + ":" + port);
            assertThat(linkRun.exit()).as(linkRun.all()).isZero();
            ForwardingTables afterLink = offline(live.withoutLinks(List.of(up)), served, "link");
            long[] expected = count(served, afterLink);
            assertThat(linkRun.out()).containsPattern("(?m)^changed entries +" + expected[0] + " \\(repaired; minimum [0-9]+\\)$")
                    .containsPattern("(?m)^changed blocks +" + expected[1] + "$")
                    .containsPattern("(?m)^switches touched +" + expected[2] + "$")
                    .containsPattern("(?m)^valid +yes$");

            // no token, an unknown switch: refused with the daemon's message, exit 2
            CliResult anonymous = cli(dir, "-Xmx256m", 120, "whatif", "--url", fp.restUrl(), "--switch", Guids.format(spine));
            assertThat(anonymous.exit()).isEqualTo(2);
            assertThat(anonymous.all()).contains("401");
            CliResult unknown = cli(dir, "-Xmx256m", 120, "whatif", "--url", fp.restUrl(), "--token-file", token.toString(),
                    "--switch", "0x42");
            assertThat(unknown.exit()).isEqualTo(2);
            assertThat(unknown.all()).contains("400").contains("switch 0x0000000000000042 is not in the fabric");

            // nothing changed: version, computations, served tables, every switch still holding them
            JsonNode after = fp.get("/api/v1/status");
            assertThat(after.at("/routing/version").asLong()).isEqualTo(version);
            assertThat(after.at("/routing/computations").asLong()).isEqualTo(computations);
            assertThat(after.path("state").asText()).isEqualTo("CONVERGED");
            assertThat(after.at("/tables/inSync").asInt()).isEqualTo(live.switches().size());
            assertThat(served(fp, live).sameAs(served)).as("served LFTs unchanged").isTrue();

            // routing quality of the tables in force = quality --lft on the same tables and topology
            JsonNode view = awaitQuality(fp, version);
            Path lft = dir.resolve("live.lft");
            LftText.write(served, "live", lft);
            CliResult quality = cli(dir, "-Xmx256m", 120, "quality", "--topology", topology.toString(), "--lft", lft.toString(),
                    "--engines", "dmodc", "--json");
            assertThat(quality.exit()).as(quality.all()).isZero();
            JsonNode row = JSON.readTree(quality.out()).at("/engines/0");
            assertThat(row.get("engine").asText()).isEqualTo("file live.lft");
            JsonNode q = view.get("quality");
            assertThat(q.get("valid").asBoolean()).isEqualTo(row.get("valid").asBoolean());
            assertThat(q.get("unreachableLeafPairs").asLong()).isEqualTo(row.path("unreachableLeafPairs").asLong(0));
            assertThat(q.get("deadlockFree").asBoolean()).isEqualTo(row.get("deadlockFree").asBoolean());
            assertThat(q.get("virtualChannels").asInt()).isEqualTo(row.get("virtualChannels").asInt());
            assertThat(q.get("maxPathLength").asInt()).isEqualTo(row.get("maxPathLength").asInt());
            assertThat(names(q.get("patterns"))).isEqualTo(names(row.get("patterns")));
            for (String pattern : names(row.get("patterns"))) {
                JsonNode mine = q.get("patterns").get(pattern);
                JsonNode theirs = row.get("patterns").get(pattern);
                assertThat(mine.get("max").asLong()).as(pattern).isEqualTo(theirs.get("max").asLong());
                if (theirs.has("mean")) {
                    assertThat(mine.get("mean").asDouble()).as(pattern).isEqualTo(theirs.get("mean").asDouble());
                }
            }
            String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(fp.restUrl() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(metrics).contains("fabric_routing_congestion_max{pattern=\"shift\"} "
                    + (double) row.at("/patterns/shift/max").asLong());

            // the spine really dies: once the daemon has re-routed around it, the quality it measures is what the
            // what-if predicted, and worse than before
            sim.command("kill " + Guids.format(spine) + " power");
            int linksLeft = live.withoutSwitches(List.of(spine)).links().size();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            JsonNode rerouted;
            while (true) {
                rerouted = fp.awaitStatus(st -> st.path("state").asText().equals("CONVERGED")
                        && st.at("/routing/version").asLong() > version, "re-route around the spine", 180);
                Fabric now = FabricJson.parse(fp.get("/api/v1/topology").toString());
                if (now.switches().size() == live.switches().size() - 1 && now.links().size() == linksLeft
                        && fp.get("/api/v1/status").at("/routing/version").asLong() == rerouted.at("/routing/version").asLong()) {
                    break;
                }
                assertThat(System.nanoTime()).as("routed without the spine within 180 s").isLessThan(deadline);
                Thread.sleep(200);
            }
            JsonNode degraded = awaitQuality(fp, rerouted.at("/routing/version").asLong()).get("quality");
            assertThat(degraded.get("valid").asBoolean()).isEqualTo(spineResult.get("valid").asBoolean());
            assertThat(degraded.get("maxPathLength").asInt()).isEqualTo(spineResult.get("maxPathLength").asInt());
            for (String pattern : List.of("random", "all2all")) {
                assertThat(degraded.at("/patterns/" + pattern)).as(pattern).isEqualTo(spineResult.at("/congestion/" + pattern));
            }
            assertThat(degraded.at("/patterns/all2all/max").asLong()).as("quality degrades with the fault")
                    .isGreaterThan(q.at("/patterns/all2all/max").asLong());
        }
    }

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static JsonNode awaitQuality(FabricProcesses fp, long version) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        JsonNode view = fp.get("/api/v1/routing/quality");
        while (view.get("quality").isNull() || view.get("stale").asBoolean()) {
            assertThat(System.nanoTime()).as("quality of v%d within 120 s: %s", version, view).isLessThan(deadline);
            Thread.sleep(200);
            view = fp.get("/api/v1/routing/quality");
        }
        assertThat(view.at("/quality/routingVersion").asLong()).isEqualTo(version);
        return view;
    }

    /**
     * The CLI's offline repair of {@code served} for {@code degraded}: {@code route --topology FILE --engine dmodc
     * --previous LFT --lft-out FILE}, as the daemon repairs after that fault.
     */
    private ForwardingTables offline(Fabric degraded, ForwardingTables served, String name) throws Exception {
        Path topology = dir.resolve(name + ".topology.json");
        Files.writeString(topology, FabricJson.toJson(degraded));
        Path previous = dir.resolve(name + ".previous.lft");
        LftText.write(served, "served", previous);
        Path lft = dir.resolve(name + ".lft");
        CliResult route = cli(dir, "-Xmx256m", 120, "route", "--topology", topology.toString(), "--engine", "dmodc",
                "--previous", previous.toString(), "--lft-out", lft.toString());
        assertThat(route.exit()).as(route.all()).isZero();
        return LftText.read(lft);
    }

    /** The tables {@code GET /api/v1/switches/{guid}/lft} serves, also checking each switch holds them. */
    private static ForwardingTables served(FabricProcesses fp, Fabric fabric) throws Exception {
        int switches = fabric.index().switchCount();
        long[] guids = new long[switches];
        for (int s = 0; s < switches; s++) {
            guids[s] = fabric.index().switchGuid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, fabric.index().destinationCount());
        for (int s = 0; s < switches; s++) {
            JsonNode lft = fp.get("/api/v1/switches/" + Guids.format(guids[s]) + "/lft");
            assertThat(lft.get("inSync").asBoolean()).as("switch %s holds the tables", Guids.format(guids[s])).isTrue();
            JsonNode entries = lft.get("entries");
            for (int d = 0; d < entries.size(); d++) {
                b.set(s, d, entries.get(d).asInt());
            }
        }
        return b.build();
    }

    private static void assertCounts(JsonNode r, ForwardingTables served, ForwardingTables after) {
        long[] expected = count(served, after);
        assertThat(expected[0]).as("the failure moves routes").isPositive();
        assertThat(new long[] {r.get("changedEntries").asLong(), r.get("changedBlocks").asLong(),
                r.get("switchesTouched").asLong()}).as("what-if %s", r).containsExactly(expected);
    }

    /** Entries, 64-entry blocks and switches of {@code after} that differ from {@code served}, by GUID. */
    private static long[] count(ForwardingTables served, ForwardingTables after) {
        long entries = 0;
        long blocks = 0;
        long touched = 0;
        for (int s = 0; s < after.switchCount(); s++) {
            int p = 0;
            while (served.switchGuid(p) != after.switchGuid(s)) {
                p++;
            }
            long row = 0;
            Set<Integer> rowBlocks = new HashSet<>();
            for (int d = 0; d < after.destinationCount(); d++) {
                if (after.port(s, d) != served.port(p, d)) {
                    row++;
                    rowBlocks.add(d / 64);
                }
            }
            entries += row;
            blocks += rowBlocks.size();
            touched += row > 0 ? 1 : 0;
        }
        return new long[] {entries, blocks, touched};
    }
}
