package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QualityCommandTest {
    private static final String SPEC = "PGFT(3;2,2,3;1,2,2;1,2,1)";

    @TempDir
    Path dir;
    private final CliSession cli = new CliSession();

    /** Six switches in a ring, one node each: MinHop's shortest paths go round it and close a dependency cycle. */
    private Path ring() throws IOException {
        List<FabricSwitch> switches = new ArrayList<>();
        List<EndNode> nodes = new ArrayList<>();
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            switches.add(new FabricSwitch(0x100 + i, "r" + i, 3));
            nodes.add(new EndNode(0x200 + i, "n" + i, i));
            links.add(new Link(0x100 + i, 1, 0x200 + i, 1));
            links.add(new Link(0x100 + i, 2, 0x100 + (i + 1) % 6, 3));
        }
        return TopologyFiles.write(new Fabric(null, switches, nodes, links), dir.resolve("ring.json"));
    }

    @Test
    void tableComparesEnginesAndShowsTheCycle() throws IOException {
        int code = cli.run("quality", "--topology", ring().toString(), "--engines", "minhop,updn", "--patterns",
                "shift,all2all", "--threads", "2");
        assertThat(code).isEqualTo(ExitCodes.OK);
        List<String> lines = cli.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("engine  valid  deadlock-free  max path  shift max  shift mean  all2all max");
        assertThat(lines.get(1)).startsWith("minhop  yes    no     ");
        assertThat(lines.get(2)).startsWith("updn    yes    yes    ");
        assertThat(lines.get(3)).startsWith("minhop: dependency cycle of 6 channels: ")
                .contains("0x0000000000000100:2->0x0000000000000101:3");
        assertThat(lines).hasSize(4);
        assertThat(cli.err()).isEqualTo("quality: 6 switches, 6 attached nodes\n");
    }

    @Test
    void jsonHasTheDocumentedShapeAndTheAnalyzersFigures() throws IOException {
        int code = cli.run("quality", "--pgft", SPEC, "--engines", "minhop,updn", "--patterns", "shift,random:4:9,all2all",
                "--json");
        assertThat(code).isEqualTo(ExitCodes.OK);
        assertThat(cli.err()).isEmpty();
        JsonNode root = new ObjectMapper().readTree(cli.out());
        assertThat(root.size()).isEqualTo(1);
        JsonNode engines = root.get("engines");
        assertThat(engines).hasSize(2);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        for (int i = 0; i < 2; i++) {
            JsonNode e = engines.get(i);
            String name = i == 0 ? "minhop" : "updn";
            assertThat(fieldNames(e)).containsExactly("engine", "valid", "deadlockFree", "virtualChannels", "maxPathLength",
                    "patterns");
            assertThat(e.get("virtualChannels").asInt()).isEqualTo(1);
            assertThat(e.get("maxPathLength").asInt()).isEqualTo(4);
            assertThat(e.get("engine").asText()).isEqualTo(name);
            assertThat(e.get("valid").asBoolean()).isTrue();
            assertThat(e.get("deadlockFree").asBoolean()).isTrue();
            JsonNode patterns = e.get("patterns");
            assertThat(fieldNames(patterns)).containsExactly("shift", "random", "all2all");
            assertThat(fieldNames(patterns.get("shift"))).containsExactly("max", "mean");
            assertThat(fieldNames(patterns.get("all2all"))).containsExactly("max");
            try (RoutingEngine engine = RoutingEngines.create(name, 1)) {
                RoutedFabric routed = RoutedFabric.of(fabric.index(), engine.route(fabric.index()).tables());
                CongestionAnalyzer analyzer = new CongestionAnalyzer(routed, 1);
                PatternCongestion shift = analyzer.analyze(new TrafficPattern.Shift());
                PatternCongestion random = analyzer.analyze(new TrafficPattern.RandomPermutations(4, 9));
                PatternCongestion all = analyzer.analyze(new TrafficPattern.AllToAll());
                assertThat(patterns.get("shift").get("max").asLong()).isEqualTo(shift.max());
                assertThat(patterns.get("shift").get("mean").asDouble()).isEqualTo(QualityCommand.rounded(shift.mean()));
                assertThat(patterns.get("random").get("max").asLong()).isEqualTo(random.max());
                assertThat(patterns.get("random").get("mean").asDouble())
                        .isEqualTo(QualityCommand.rounded(random.mean()));
                assertThat(patterns.get("all2all").get("max").asLong()).isEqualTo(all.max());
            }
        }
    }

    @Test
    void jsonNamesTheCycleOfADeadlockProneEngine() throws IOException {
        cli.run("quality", "--topology", ring().toString(), "--engines", "minhop", "--patterns", "all2all", "--json");
        JsonNode e = new ObjectMapper().readTree(cli.out()).get("engines").get(0);
        assertThat(e.get("deadlockFree").asBoolean()).isFalse();
        assertThat(e.get("cycle")).hasSize(6);
    }

    @Test
    void aDisconnectedLeafMakesRoutingInvalidAndItsPairsUnrouted() throws IOException {
        // cut every up-link of leaf s1-0 (ports 3-6)
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        long leaf = PgftGenerator.switchGuid(1, 0);
        List<Link> cut = fabric.links().stream().filter(l -> (l.a() == leaf && l.aPort() > 2)
                || (l.b() == leaf && l.bPort() > 2)).toList();
        assertThat(cut).hasSize(4);
        Path file = TopologyFiles.write(fabric.withoutLinks(cut), dir.resolve("cut.json"));

        cli.run("quality", "--topology", file.toString(), "--engines", "updn", "--patterns", "all2all");
        // 6 leaves: s1-0 cannot reach the 5 others nor be reached by them
        assertThat(cli.out()).contains("updn    no (10 leaf pairs)  yes")
                .contains("updn: 40 all2all pairs dead-end or loop and are not counted");

        cli.run("quality", "--topology", file.toString(), "--engines", "updn", "--patterns", "all2all", "--json");
        JsonNode e = new ObjectMapper().readTree(cli.out()).get("engines").get(0);
        assertThat(e.get("valid").asBoolean()).isFalse();
        assertThat(e.get("unreachableLeafPairs").asLong()).isEqualTo(10);
        assertThat(e.get("patterns").get("all2all").get("unroutedPairs").asLong()).isEqualTo(40);
    }

    @Test
    void comparesTheDefaultEnginesWhenNoneAreNamed() {
        cli.run("quality", "--pgft", "PGFT(2;4,4;1,2;1,1)", "--patterns", "random:2", "--json");
        List<String> expected = QualityCommand.DEFAULT_ENGINES.stream().filter(RoutingEngines.names()::contains)
                .toList();
        assertThat(expected).contains("minhop", "updn");
        if (RoutingEngines.names().contains("dmodc")) {
            assertThat(expected).containsExactly("dmodc", "minhop", "updn");
        }
        List<String> actual = new ArrayList<>();
        try {
            new ObjectMapper().readTree(cli.out()).get("engines").forEach(e -> actual.add(e.get("engine").asText()));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void defaultPatternsLeaveOutShiftOnlyOnLargeFabrics() {
        assertThat(QualityCommand.shiftByDefault(11_664)).isTrue();
        assertThat(QualityCommand.shiftByDefault(16_384)).isTrue();
        assertThat(QualityCommand.shiftByDefault(16_385)).isFalse();
        assertThat(QualityCommand.shiftByDefault(65_536)).isFalse();
        cli.run("quality", "--pgft", "PGFT(2;4,4;1,2;1,1)", "--engines", "updn");
        assertThat(cli.out().lines().findFirst().orElseThrow()).startsWith("engine  valid  deadlock-free  max path  shift max");
    }

    @Test
    void anEngineThatRefusesTheFabricGetsARowNotACrash() throws IOException {
        assumeTrue(RoutingEngines.names().contains("dmodk"), "the dmodk engine is not registered in this build");
        String[] args = {"quality", "--pgft", "PGFT(3;4,4,4;1,4,4;1,1,1)", "--degrade-links", "0.1", "--seed", "3",
            "--engines", "dmodk,updn", "--patterns", "random:2,all2all"};
        assertThat(cli.run(args)).isEqualTo(ExitCodes.OK);
        List<String> lines = cli.out().lines().toList();
        assertThat(lines.get(1)).startsWith("dmodk   refused: ").contains("dmodk");
        assertThat(lines.get(2)).startsWith("updn    yes    yes");

        List<String> json = new ArrayList<>(List.of(args));
        json.add("--json");
        assertThat(cli.run(json.toArray(String[]::new))).isEqualTo(ExitCodes.OK);
        JsonNode engines = new ObjectMapper().readTree(cli.out()).get("engines");
        assertThat(fieldNames(engines.get(0))).containsExactly("engine", "error");
        assertThat(engines.get(0).get("error").asText()).isNotBlank();
        assertThat(engines.get(1).get("valid").asBoolean()).isTrue();
    }

    @Test
    void dmodcHasShiftCongestionOneOnAnIntactFullBisectionFatTree() throws IOException {
        assumeTrue(RoutingEngines.names().contains("dmodc"), "the dmodc engine is not registered in this build");
        cli.run("quality", "--pgft", "PGFT(3;4,4,4;1,4,4;1,1,1)", "--engines", "dmodc,minhop", "--patterns", "shift",
                "--json");
        JsonNode engines = new ObjectMapper().readTree(cli.out()).get("engines");
        assertThat(engines.get(0).get("engine").asText()).isEqualTo("dmodc");
        assertThat(engines.get(0).get("deadlockFree").asBoolean()).isTrue();
        assertThat(engines.get(0).get("patterns").get("shift").get("max").asLong()).isEqualTo(1);
        assertThat(engines.get(0).get("patterns").get("shift").get("mean").asDouble()).isEqualTo(1.0);
        // MinHop's uncoordinated choices do worse on the same fabric
        assertThat(engines.get(1).get("patterns").get("shift").get("max").asLong()).isGreaterThan(1);
    }

    @Test
    void underAnLmcEachPairIsOneFlowPerLidAndTheLidSharingIsReported() throws IOException {
        assumeTrue(RoutingEngines.names().contains("dmodc-home"), "the dmodc-home engine is not registered in this build");
        cli.run("quality", "--pgft", "PGFT(3;4,4,4;1,4,4;1,1,1)", "--lmc", "2", "--engines", "dmodc-home,minhop",
                "--patterns", "shift,all2all", "--json");
        JsonNode engines = new ObjectMapper().readTree(cli.out()).get("engines");
        JsonNode home = engines.get(0);
        assertThat(home.get("valid").asBoolean()).as("every LID delivered").isTrue();
        // a leaf's 4 nodes send 4 flows each through its 4 up-ports: 4 a link at best, which Dmodc reaches
        assertThat(home.get("patterns").get("shift").get("max").asLong()).isEqualTo(4);
        assertThat(home.get("patterns").get("shift").has("unroutedPairs")).isFalse();
        // 16 leaves with the 60 ports of the 15 others; each port's 4 LIDs on 4 distinct links all the way
        JsonNode sharing = home.get("lidSharing");
        assertThat(sharing.get("lids").asInt()).isEqualTo(4);
        assertThat(sharing.get("pairs").asLong()).isEqualTo(960);
        assertThat(sharing.get("sharedPairs").asLong()).isZero();
        assertThat(sharing.get("maxShared").asInt()).isEqualTo(1);
        cli.run("quality", "--pgft", "PGFT(3;4,4,4;1,4,4;1,1,1)", "--lmc", "1", "--engines", "dmodc-home",
                "--patterns", "all2all");
        assertThat(cli.out()).contains("LIDs sharing").contains("0/960");
        assertThat(cli.err()).contains("64 attached nodes").contains("LMC 1 (2 flows per pair, one to each LID)");
        assertBadInput("quality: --lmc goes with --pgft or --hdft: a --topology dump carries its ports' LMC",
                "quality", "--topology", ring().toString(), "--lmc", "1");
    }

    @Test
    void rejectsBadOptionsWithOneLine() {
        assertBadInput("quality: --engines: unknown engine 'ospf' (known: " + String.join(", ", RoutingEngines.names())
                + ")", "quality", "--pgft", SPEC, "--engines", "minhop,ospf");
        assertBadInput("quality: --engines names updn twice", "quality", "--pgft", SPEC, "--engines", "updn,updn");
        assertBadInput("quality: --patterns: unknown traffic pattern 'random:0' (expected shift, random:R,"
                + " random:R:SEED with R >= 1, or all2all)", "quality", "--pgft", SPEC, "--patterns", "shift,random:0");
        assertBadInput("quality: --patterns names random twice", "quality", "--pgft", SPEC, "--patterns",
                "random:2,random:3:4");
        assertBadInput("quality: --patterns has an empty item in 'shift,'", "quality", "--pgft", SPEC, "--patterns",
                "shift,");
        assertBadInput("quality: one of --topology, --pgft, --hdft is required", "quality", "--engines", "minhop");
        assertBadInput("quality: --threads must be in [1, 1024], got 0", "quality", "--pgft", SPEC, "--threads", "0");
        assertBadInput("quality: --lmc must be in [0, 7], got 8", "quality", "--pgft", SPEC, "--lmc", "8");
    }

    private void assertBadInput(String message, String... args) {
        assertThat(cli.run(args)).as(message).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(cli.err().lines()).containsExactly(message);
        assertThat(cli.out()).isEmpty();
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
