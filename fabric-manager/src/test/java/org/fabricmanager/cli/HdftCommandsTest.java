package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.LeafFailures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code topology --hdft}, {@code topology --check} of 2-D fat trees and {@code quality --hdft}, run in-process. */
class HdftCommandsTest {
    private static final String SPEC = "HDFT(8x8;4;1;1)";

    @TempDir
    Path dir;
    private final CliSession cli = new CliSession();

    @Test
    void writesTheCanonicalHdftAndItsSummary() {
        assertThat(cli.run("topology", "--hdft", "HDFT(4x3;2;1;2)")).isZero();
        Fabric written = FabricJson.parse(cli.out());
        assertThat(written).isEqualTo(HdftGenerator.generate(HdftSpec.parse("HDFT(4x3;2;1;2)")));
        assertThat(cli.out()).contains("\"hdft\":\"HDFT(4x3;2;1;2)\"");
        assertThat(cli.err()).contains("fabric HDFT(4x3;2;1;2): 23 switches, 24 nodes, 60 links")
                .containsPattern("(?m)^1 +12 +24 +5$")
                .containsPattern("(?m)^2 +11 +36 +4$");
    }

    @Test
    void failsRandomOrNamedSwitchesDeterministically() {
        HdftSpec spec = HdftSpec.parse(SPEC);
        Fabric intact = HdftGenerator.generate(spec);
        assertThat(cli.run("topology", "--hdft", SPEC, "--fail-leaves", "7", "--seed", "9")).isZero();
        assertThat(FabricJson.parse(cli.out())).isEqualTo(LeafFailures.fail(intact, 7, 9));
        long leaf = HdftGenerator.leafGuid(spec, 3, 5);
        long row = HdftGenerator.rowSwitchGuid(spec, 2, 0);
        assertThat(cli.run("topology", "--hdft", SPEC, "--fail", Guids.format(leaf) + "," + Guids.format(row))).isZero();
        assertThat(FabricJson.parse(cli.out())).isEqualTo(intact.withoutSwitches(List.of(leaf, row)));
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "topology --hdft HDFT(8x8;4;1)|topology: HDFT: malformed 'HDFT(8x8;4;1)': 3 ';'-separated parts",
        "topology --hdft " + SPEC + " --degrade-links 0.1|topology: --degrade-links and --degrade-switches go with --pgft",
        "topology --pgft PGFT(2;4,4;1,4;1,1) --fail-leaves 2|topology: --fail-leaves and --fail go with --hdft",
        "topology --hdft " + SPEC + " --fail-leaves 2 --fail 0x3000000100000000|topology: --fail-leaves and --fail cannot be used together",
        "topology --hdft " + SPEC + " --fail-leaves 65|topology: leaf failures: asked to fail 65 leaf switches but the fabric has only 64",
        "topology --hdft " + SPEC + " --fail 0x3000000100000040|topology: degradation: no switch with GUID 0x3000000100000040",
        "topology --hdft " + SPEC + " --fail zz|topology: --fail: bad GUID 'zz'",
        "topology --hdft " + SPEC + " --pgft PGFT(2;4,4;1,4;1,1)|topology: --pgft and --hdft cannot be used together",
        "topology --hdft " + SPEC + " --expect " + SPEC + "|topology: --expect does not go with --hdft",
        "topology --check f --fail-leaves 2|topology: --fail-leaves does not go with --check",
        "quality --hdft " + SPEC + " --degrade-switches 1|quality: --degrade-links and --degrade-switches go with --pgft",
        "quality --topology f --fail-leaves 1|quality: --fail-leaves and --fail go with --hdft",
    })
    void badArgumentsGiveOneLineAndExitTwo(String commandLine, String message) throws Exception {
        Files.writeString(dir.resolve("f"), "{}");
        String[] args = commandLine.replace(" f", " " + dir.resolve("f")).split(" ");
        assertThat(cli.run(args)).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(cli.err()).startsWith(message);
        assertThat(cli.err().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.out()).isEmpty();
    }

    @Test
    void checksAnHdftFileByItsFieldByInferenceOrAgainstAnExpectedShape() throws Exception {
        Path file = dir.resolve("hdft.json");
        assertThat(cli.run("topology", "--hdft", "HDFT(4x3;2;1;2)", "--fail", "0x3000000100000002,0x3000000100000007",
                "--out", file.toString())).isZero();
        assertThat(cli.run("topology", "--check", file.toString())).isZero();
        assertThat(cli.out().lines().toList()).contains(
                "DEGRADED: the fabric is HDFT(4x3;2;1;2) with parts missing",
                "checked against HDFT(4x3;2;1;2) (from the fabric's hdft field), matched by GUID and port",
                "leaves         12        10         2",
                "fault rows: 0, 1; fault columns: 2, 3",
                "missing leaves (2):",
                "  (2, 0) 0x3000000100000002 lsw-2-0",
                "  (3, 1) 0x3000000100000007 lsw-3-1");
        assertThat(cli.run("topology", "--check", file.toString(), "--expect", "HDFT(4x3;2;1;2)")).isEqualTo(ExitCodes.OK);
        assertThat(cli.out()).contains("checked against HDFT(4x3;2;1;2) (given), matched by GUID and port",
                "missing leaves (2):");
        // one more row: its leaves and switches are missing, and the column switches lack a port
        assertThat(cli.run("topology", "--check", file.toString(), "--expect", "HDFT(4x4;2;1;2)"))
                .isEqualTo(ExitCodes.MISMATCH);
        assertThat(cli.out()).contains("MISWIRED: the fabric does not match HDFT(4x4;2;1;2)", "missing leaves (6):",
                "TOO_FEW_PORTS: column switch 0x3000000300000000 (csw-0-0) has 3 ports, HDFT(4x4;2;1;2) needs 4");

        // an intact HDFT without its field is inferred (it is no PGFT)
        Path bare = dir.resolve("bare.json");
        cli.run("topology", "--hdft", "HDFT(5x3;1;2;1)", "--out", bare.toString());
        Files.writeString(bare, Files.readString(bare).replace("\n  \"hdft\":\"HDFT(5x3;1;2;1)\",", ""));
        assertThat(cli.run("topology", "--check", bare.toString())).isZero();
        assertThat(cli.out()).contains("INTACT: the fabric is HDFT(5x3;1;2;1), intact", "(inferred), matched by GUID and port");
    }

    @Test
    void qualityComparesVtftrWithTheOtherEnginesOnADegradedHdft() throws Exception {
        HdftSpec spec = HdftSpec.parse(SPEC);
        long seed = misroutingSeed(spec, 10);
        int code = cli.run("quality", "--hdft", SPEC, "--fail-leaves", "10", "--seed", Long.toString(seed), "--engines",
                "vtftr,minhop,updn", "--patterns", "shift,all2all", "--threads", "2");
        assertThat(code).isZero();
        List<String> lines = cli.out().lines().toList();
        assertThat(lines.get(0)).matches("engine +valid +deadlock-free +max path +shift max +shift mean +all2all max");
        // a pair whose two turn leaves failed: vtftr mis-routes once, 6 links, deadlock-free with 2 channels
        assertThat(lines.get(1)).startsWith("vtftr ").containsPattern("^vtftr +yes +yes \\(2 VCs\\) +6 ");
        assertThat(lines.get(2)).containsPattern("^minhop +yes +no +6 ");
        // Up/Down cannot go up again after coming down from a row switch: most leaf pairs unrouted
        assertThat(lines.get(3)).containsPattern("^updn +no \\(\\d+ leaf pairs\\) +yes +2 ");
        assertThat(cli.err()).isEqualTo("quality: 70 switches, 216 attached nodes, expected " + SPEC + "\n");

        cli.run("quality", "--hdft", SPEC, "--fail-leaves", "10", "--seed", Long.toString(seed), "--engines", "vtftr",
                "--patterns", "all2all", "--json");
        JsonNode e = new ObjectMapper().readTree(cli.out()).get("engines").get(0);
        assertThat(e.get("engine").asText()).isEqualTo("vtftr");
        assertThat(e.get("valid").asBoolean()).isTrue();
        assertThat(e.get("deadlockFree").asBoolean()).isTrue();
        assertThat(e.get("virtualChannels").asInt()).isEqualTo(2);
        assertThat(e.get("maxPathLength").asInt()).isEqualTo(6);
        assertThat(e.has("cycle")).isFalse();

        // intact: xy everywhere, at most 4 links
        cli.run("quality", "--hdft", SPEC, "--engines", "vtftr", "--patterns", "all2all", "--json");
        assertThat(new ObjectMapper().readTree(cli.out()).get("engines").get(0).get("maxPathLength").asInt()).isEqualTo(4);
    }

    @Test
    void routeUsesVtftrOnAnHdftAndSaysWhichChannelsTheTablesNeed() throws Exception {
        HdftSpec spec = HdftSpec.parse(SPEC);
        Path lft = dir.resolve("hdft.lft");
        assertThat(cli.run("route", "--hdft", SPEC, "--fail-leaves", "6", "--seed", "4", "--lft-out", lft.toString(),
                "--threads", "1")).isZero();
        assertThat(cli.err()).contains("route: vtftr: 74 switches x 256 destinations in ",
                "route: valid: all 3306 ordered leaf pairs routed",
                "route: the tables need 2 virtual channels; column->row: vc1 on 58 switches",
                "route: virtual-channel rules (vc-text/1) written to " + lft + ".vc");
        Fabric fabric = LeafFailures.fail(HdftGenerator.generate(spec), 6, 4);
        try (org.fabricmanager.routing.RoutingEngine engine = RoutingEngines.create("vtftr", 1)) {
            org.fabricmanager.routing.ForwardingTables expected = engine.route(fabric.index()).tables();
            org.fabricmanager.routing.ForwardingTables written = org.fabricmanager.routing.LftText.read(lft);
            for (int s = 0; s < expected.switchCount(); s++) {
                assertThat(written.rowEquals(s, expected, s)).isTrue();
            }
            // the rules beside the tables read back equal to the engine's
            org.fabricmanager.routing.ForwardingTables withRules = org.fabricmanager.routing.VcText.readWithTables(lft);
            assertThat(withRules.vcRules()).isEqualTo(expected.vcRules());
            assertThat(withRules.vcRules()).isPresent();
        }
        // trace reads the rules too: a column-to-row turn shows channel 1 after it
        Path topology = dir.resolve("hdft.json");
        FabricJson.write(fabric, topology);
        int[] attached = fabric.index().leafNodeArray();
        int src = fabric.index().nodeIndex(attached[0]);
        int dst = fabric.index().nodeIndex(attached[attached.length - 1]);
        assertThat(cli.run("trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src",
                Integer.toString(src), "--dst", Integer.toString(dst))).isZero();
        assertThat(cli.out()).contains("  vc  leads to");
        // quality reads them too: the tables of the file are valid and, with their rules, deadlock-free over 2 VCs
        assertThat(cli.run("quality", "--topology", topology.toString(), "--lft", lft.toString(), "--engines", "minhop",
                "--patterns", "all2all", "--json")).isZero();
        // the --lft row comes first, before the engines (as for an OpenSM dump)
        com.fasterxml.jackson.databind.JsonNode fromFile = new ObjectMapper().readTree(cli.out()).get("engines").get(0);
        assertThat(fromFile.get("engine").asText()).isEqualTo("file hdft.lft");
        assertThat(fromFile.get("valid").asBoolean()).isTrue();
        assertThat(fromFile.get("deadlockFree").asBoolean()).isTrue();
        assertThat(fromFile.get("virtualChannels").asInt()).isEqualTo(2);
        // an engine can still be named, and its tables have no rules: the stale rules file goes
        assertThat(cli.run("route", "--hdft", SPEC, "--engine", "minhop", "--lft-out", lft.toString())).isZero();
        assertThat(lft.resolveSibling("hdft.lft.vc")).doesNotExist();
        assertThat(cli.err()).contains("route: minhop: ").doesNotContain("virtual channels");
    }

    @Test
    void qualityComparesVtftrFirstByDefaultOnAnHdft() {
        assertThat(cli.run("quality", "--hdft", "HDFT(4x4;2;1;1)", "--patterns", "all2all")).isZero();
        List<String> lines = cli.out().lines().toList();
        assertThat(lines.get(1)).startsWith("vtftr ");
        assertThat(lines).filteredOn(l -> l.startsWith("minhop ") || l.startsWith("updn ")).hasSize(2);
    }

    @Test
    void qualityGivesDmodcARowOnAnHdft() {
        assumeTrue(RoutingEngines.names().contains("dmodc"), "dmodc is not registered on this branch");
        int code = cli.run("quality", "--hdft", SPEC, "--fail-leaves", "5", "--engines", "vtftr,minhop,updn,dmodc",
                "--patterns", "all2all");
        assertThat(code).isZero();
        List<String> lines = cli.out().lines().toList();
        assertThat(lines.get(1)).startsWith("vtftr ");
        // Dmodc routes up*/down* from the leaves: it refuses the fabric or leaves pairs unrouted
        assertThat(lines.get(4)).startsWith("dmodc ").containsPattern("^dmodc +(refused: |no \\()");
    }

    /** A seed whose {@code failures} random leaves leave some surviving pair with both turn leaves failed. */
    private static long misroutingSeed(HdftSpec spec, int failures) {
        Fabric intact = HdftGenerator.generate(spec);
        for (long seed = 1; ; seed++) {
            Set<Long> dead = new HashSet<>(LeafFailures.pick(intact, failures, seed));
            for (int xs = 0; xs < spec.columns(); xs++) {
                for (int ys = 0; ys < spec.rows(); ys++) {
                    for (int xd = 0; xd < spec.columns(); xd++) {
                        for (int yd = 0; yd < spec.rows(); yd++) {
                            if (xs != xd && ys != yd && !dead.contains(HdftGenerator.leafGuid(spec, xs, ys))
                                    && !dead.contains(HdftGenerator.leafGuid(spec, xd, yd))
                                    && dead.contains(HdftGenerator.leafGuid(spec, xd, ys))
                                    && dead.contains(HdftGenerator.leafGuid(spec, xs, yd))) {
                                return seed;
                            }
                        }
                    }
                }
            }
        }
    }
}
