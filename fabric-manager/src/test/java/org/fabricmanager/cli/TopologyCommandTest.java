package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code topology}, run in-process through {@link Main}: outputs, files and exit codes. */
class TopologyCommandTest {
    private static final String EXAMPLE = "PGFT(3;2,2,3;1,2,2;1,2,1)";

    @TempDir
    Path dir;

    private ByteArrayOutputStream out;
    private ByteArrayOutputStream err;

    @BeforeEach
    void streams() {
        out = new ByteArrayOutputStream();
        err = new ByteArrayOutputStream();
    }

    private int run(String... args) {
        out.reset();
        err.reset();
        return new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void writesTheCanonicalFabricToStdoutAndItsSummaryToStderr() {
        assertThat(run("topology", "--pgft", EXAMPLE)).isZero();
        Fabric written = FabricJson.parse(out());
        assertThat(written).isEqualTo(PgftGenerator.generate(PgftSpec.parse(EXAMPLE)));
        assertThat(err()).contains("fabric " + EXAMPLE + ": 16 switches, 12 nodes, 48 links")
                .containsPattern("(?m)^1 +6 +12 +6$")
                .containsPattern("(?m)^2 +6 +24 +6$")
                .containsPattern("(?m)^3 +4 +12 +3$");
    }

    @Test
    void writesToAFileWithOut() throws Exception {
        Path file = dir.resolve("fabric.json");
        assertThat(run("topology", "--pgft", EXAMPLE, "--out", file.toString())).isZero();
        assertThat(out()).isEmpty();
        assertThat(err()).contains("wrote " + file, "16 switches");
        assertThat(FabricJson.read(file)).isEqualTo(PgftGenerator.generate(PgftSpec.parse(EXAMPLE)));
    }

    @Test
    void degradesDeterministicallyForASeed() {
        assertThat(run("topology", "--pgft", EXAMPLE, "--degrade-links", "0.25", "--degrade-switches", "2", "--seed", "7")).isZero();
        String first = out();
        Fabric expected = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(EXAMPLE)), DegradationPlan.random(0.25, 2, 7));
        assertThat(FabricJson.parse(first)).isEqualTo(expected);
        assertThat(expected.switches()).hasSize(14);
        assertThat(run("topology", "--pgft", EXAMPLE, "--degrade-links", "0.25", "--degrade-switches", "2", "--seed", "7")).isZero();
        assertThat(out()).isEqualTo(first);
        assertThat(run("topology", "--pgft", EXAMPLE, "--degrade-links", "0.25", "--degrade-switches", "2", "--seed", "8")).isZero();
        assertThat(out()).isNotEqualTo(first);
    }

    @Test
    void checksAnIntactFabricFile() throws Exception {
        Path file = dir.resolve("intact.json");
        run("topology", "--pgft", EXAMPLE, "--out", file.toString());
        assertThat(run("topology", "--check", file.toString())).isZero();
        assertThat(out()).contains("INTACT: the fabric is " + EXAMPLE + ", intact",
                "checked against " + EXAMPLE + " (from the fabric's pgft field), matched by GUID and port");
        assertThat(out()).containsPattern("(?m)^2 +6 +6 +0$");
        assertThat(err()).isEmpty();
    }

    @Test
    void checksADegradedFabricFileAndListsWhatIsMissing() throws Exception {
        Path file = dir.resolve("degraded.json");
        run("topology", "--pgft", EXAMPLE, "--degrade-switches", "1", "--degrade-links", "0.1", "--seed", "3",
                "--out", file.toString());
        assertThat(run("topology", "--check", file.toString())).isZero();
        assertThat(out()).contains("DEGRADED: the fabric is " + EXAMPLE + " with parts missing", "missing switches (1):",
                "missing links (");
        // the same file against a spec it is not
        assertThat(run("topology", "--check", file.toString(), "--expect", "PGFT(2;2,6;1,2;1,2)")).isEqualTo(3);
        assertThat(out()).contains("MISWIRED: the fabric does not match PGFT(2;2,6;1,2;1,2)", "checked against PGFT(2;2,6;1,2;1,2) (given)");
    }

    @Test
    void aMiswiredFabricExitsWithThree() throws Exception {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(EXAMPLE));
        long s10 = PgftGenerator.switchGuid(1, 0);
        long s12 = PgftGenerator.switchGuid(1, 2);
        Link a = fabric.links().stream().filter(l -> l.touches(s10, 3)).findFirst().orElseThrow();
        Link b = fabric.links().stream().filter(l -> l.touches(s12, 3)).findFirst().orElseThrow();
        List<Link> links = new ArrayList<>(fabric.withoutLinks(List.of(a, b)).links());
        links.add(new Link(s10, 3, s12, 3));
        links.add(new Link(a.b(), a.bPort(), b.b(), b.bPort()));
        Path file = dir.resolve("miswired.json");
        FabricJson.write(new Fabric(fabric.pgft().orElseThrow(), fabric.switches(), fabric.nodes(), links), file);
        assertThat(run("topology", "--check", file.toString())).isEqualTo(3);
        assertThat(out()).contains("MISWIRED", "miswirings (2):", "LEAF_TO_LEAF: link 0x1000000100000000 (s1-0) port 3",
                "SAME_LEVEL", "missing links (2):");
    }

    @Test
    void checksIbnetdiscoverTextAndInfersTheSpec() throws Exception {
        Path file = dir.resolve("fabric.txt");
        Files.writeString(file, ibnetdiscover(true));
        for (String[] args : List.of(new String[] {"topology", "--check", file.toString()},
                new String[] {"topology", "--check", file.toString(), "--format", "ibnetdiscover"})) {
            assertThat(run(args)).isZero();
            assertThat(out()).contains("3 switches, 4 nodes, 6 links",
                    "INTACT: the fabric is PGFT(2;2,2;1,1;1,1), intact", "(inferred), matched by structure");
        }
        Files.writeString(file, ibnetdiscover(false));
        assertThat(run("topology", "--check", file.toString())).isEqualTo(3);
        assertThat(out()).contains("UNRECOGNISED", "end nodes per leaf differ");
        assertThat(run("topology", "--check", file.toString(), "--expect", "PGFT(2;2,2;1,1;1,1)")).isZero();
        assertThat(out()).contains("DEGRADED", "missing links (1):", "(leaf-b) - an end node");
    }

    @Test
    void listsTwentyItemsUnlessAll() throws Exception {
        Path file = dir.resolve("cut.json");
        run("topology", "--pgft", "PGFT(2;4,8;1,4;1,1)", "--degrade-links", "0.5", "--out", file.toString());
        assertThat(run("topology", "--check", file.toString())).isZero();
        assertThat(out()).contains("missing links (16):").doesNotContain("more");
        run("topology", "--pgft", "PGFT(2;8,16;1,8;1,1)", "--degrade-links", "0.5", "--out", file.toString());
        assertThat(run("topology", "--check", file.toString())).isZero();
        assertThat(out()).contains("missing links (64):", "  ... and 44 more");
        assertThat(run("topology", "--check", file.toString(), "--all")).isZero();
        assertThat(out()).doesNotContain("more");
        assertThat(out().lines().filter(l -> l.startsWith("  0x")).count()).isEqualTo(64);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "topology --pgft PGFT(2;2)|topology: PGFT: malformed 'PGFT(2;2)'",
        "topology --pgft PGFT(2;2,2;2,2;1,1)|topology: PGFT: w1 must be 1",
        "topology --pgft " + EXAMPLE + " --degrade-links 1.5|topology: --degrade-links must be in [0.0, 1.0], got 1.5",
        "topology --pgft " + EXAMPLE + " --degrade-switches 99|topology: degradation: asked to remove 99 non-leaf switches but the fabric has only 10",
        "topology --pgft " + EXAMPLE + " --seed x|topology: --seed must be an integer, got 'x'",
        "topology --pgft " + EXAMPLE + " --check f|topology: --pgft and --check cannot be used together",
        "topology|topology: one of --pgft, --hdft, --check is required",
        "topology --pgft " + EXAMPLE + " --expect " + EXAMPLE + "|topology: --expect does not go with --pgft",
        "topology --pgft " + EXAMPLE + " --all|topology: --all does not go with --pgft",
        "topology --check f --out g|topology: --out does not go with --check",
        "topology --check /nonexistent/fabric.json|topology: /nonexistent/fabric.json: no such file",
        "topology --check /nonexistent/fabric.json --format json|topology: /nonexistent/fabric.json: no such file",
        "topology --check /nonexistent/f.txt --format ibnetdiscover|topology: /nonexistent/f.txt: no such file",
        "topology --check f --format xml|topology: --format must be json or ibnetdiscover, got 'xml'",
        "topology --check f --expect PGFT(x)|topology: --expect: PGFT: malformed 'PGFT(x)'",
        "topology --pgft " + EXAMPLE + " --out /nonexistent/dir/f.json|topology: /nonexistent/dir/f.json: cannot write",
        "topology --bogus|topology: unknown option --bogus",
    })
    void badArgumentsGiveOneLineAndExitTwo(String commandLine, String message) throws Exception {
        Files.writeString(dir.resolve("f"), "{}");
        String[] args = commandLine.replace(" f", " " + dir.resolve("f")).replace(" g", " " + dir.resolve("g")).split(" ");
        assertThat(run(args)).isEqualTo(2);
        assertThat(err()).startsWith(message.replace(" f ", " " + dir.resolve("f") + " "));
        assertThat(err().lines().count()).as(err()).isEqualTo(1);
        assertThat(out()).isEmpty();
    }

    @Test
    void badFilesGiveOneLineNamingTheFileAndLine() throws Exception {
        Path json = dir.resolve("bad.json");
        Files.writeString(json, "{\"format\":\"fabric-topology/1\",\n\"switches\":[{\"guid\":\"0x1\",\"name\":\"s\",\"ports\":2}],"
                + "\"nodes\":[],\"links\":[]}");
        assertThat(run("topology", "--check", json.toString())).isEqualTo(2);
        assertThat(err()).isEqualTo("topology: " + json + ": switches[0]: \"guid\": bad GUID '0x1': expected 0x followed by 16"
                + " lower-case hex digits" + System.lineSeparator());
        Path text = dir.resolve("bad.txt");
        Files.writeString(text, "Switch 2 \"S-0000000000000a01\"\n[1] \"H-0000000000000b01\"[1]\n");
        assertThat(run("topology", "--check", text.toString())).isEqualTo(2);
        assertThat(err()).startsWith("topology: " + text + ":2: peer H-0000000000000b01 has no block in the file");
        assertThat(err().lines().count()).isEqualTo(1);
        assertThat(run("topology", "--check", text.toString(), "--verbose")).isEqualTo(2);
        assertThat(err()).contains("UsageException", "at org.fabricmanager");
    }

    @Test
    void printsUsageWithHelpAndIsListed() {
        assertThat(run("topology", "--help")).isZero();
        assertThat(out()).contains("usage: fabric-manager topology --pgft SPEC", "--check FILE", "exit codes:");
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("topology", "write the fabric of a PGFT or HDFT, or check a fabric file against one");
    }

    /** Two leaves with two nodes each under one spine, in ibnetdiscover's layout; {@code whole=false} unplugs a node. */
    private static String ibnetdiscover(boolean whole) {
        StringBuilder sb = new StringBuilder();
        sb.append("switchguid=0xa0(a0)\nSwitch\t4 \"S-00000000000000a0\"\t\t# \"spine\" base port 0 lid 1 lmc 0\n");
        sb.append("[1]\t\"S-00000000000000a1\"[3]\t\t# \"leaf-a\" lid 2 4xHDR\n");
        sb.append("[2]\t\"S-00000000000000a2\"[3]\t\t# \"leaf-b\" lid 3 4xHDR\n\n");
        String[] leaves = {"a1", "a2"};
        for (int i = 0; i < 2; i++) {
            sb.append("switchguid=0x").append(leaves[i]).append('(').append(leaves[i]).append(")\n");
            sb.append("Switch\t4 \"S-00000000000000").append(leaves[i]).append("\"\t\t# \"leaf-").append((char) ('a' + i))
                    .append("\" base port 0 lid ").append(2 + i).append(" lmc 0\n");
            for (int p = 1; p <= 2; p++) {
                if (whole || i == 0 || p == 1) {
                    sb.append('[').append(p).append("]\t\"H-00000000000000b").append(2 * i + p).append("\"[1](b")
                            .append(2 * i + p).append("1) \t\t# \"host").append(2 * i + p).append("\" lid 9 4xHDR\n");
                }
            }
            sb.append("[3]\t\"S-00000000000000a0\"[").append(i + 1).append("]\t\t# \"spine\" lid 1 4xHDR\n\n");
        }
        for (int k = 1; k <= 4; k++) {
            sb.append("caguid=0xb").append(k).append("\nCa\t1 \"H-00000000000000b").append(k).append("\"\t\t# \"host")
                    .append(k).append("\"\n");
            if (whole || k != 4) {
                int leaf = (k - 1) / 2;
                sb.append("[1](b").append(k).append("1) \t\"S-00000000000000").append(leaves[leaf]).append("\"[")
                        .append((k - 1) % 2 + 1).append("]\t\t# lid 9 lmc 0 \"leaf\" lid 2 4xHDR\n");
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
