package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.testing.RealParts;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dmodc's tables installed by OpenSM on a simulated InfiniBand fabric, as docs/opensm.md tells an
 * operator to do: {@code topology --format ibsim} exports a PGFT, ibsim simulates it, OpenSM assigns
 * the LIDs, {@code ibnetdiscover} captures the fabric, {@code route --topology ibnet.txt
 * --lft-format opensm} computes the tables, and {@code opensm -R file -U} loads and uploads them.
 * The tables OpenSM then dumps, and those {@code ibroute} reads back from every simulated switch,
 * must equal ours for every LID, switch LIDs included. Skipped (an assumption) when OpenSM, ibsim
 * or infiniband-diags are not installed; {@code .ci/run} installs them when it runs as root.
 */
class OpenSmBridgeIT {
    private static final String SPEC = "PGFT(3;4,4,4;1,4,4;1,1,1)";
    /** Bounds, not measures: a stuck tool must not hang the build. */
    private static final long TOOL_LIMIT_SECONDS = 120;
    private static final Pattern ENTRY = Pattern.compile("0x([0-9a-fA-F]{4}) (\\d{3})\\b.*");
    private static final Pattern HEADER = Pattern.compile("Unicast lids .* guid 0x([0-9a-fA-F]{16}).*");

    @TempDir
    static Path dir;
    static OpenSmTools tools;

    @BeforeAll
    static void tools() {
        tools = OpenSmTools.find().orElse(null);
        RealParts.require(tools != null, "OpenSM tools missing: " + OpenSmTools.missing() + " ("
                + OpenSmTools.INSTALL_HINT + ")");
    }

    @ParameterizedTest(name = "degrade-links {0}")
    @ValueSource(strings = {"0", "0.05"})
    void openSmInstallsOurTablesUnchanged(String degrade) throws Exception {
        Path work = Files.createDirectories(dir.resolve("degrade-" + degrade));
        Path net = work.resolve("fabric.net");
        FabricProcesses.cli(work, "-Xmx512m", TOOL_LIMIT_SECONDS, "topology", "--pgft", SPEC, "--degrade-links", degrade,
                "--format", "ibsim", "--out", net.toString()).succeeded();
        Fabric generated = org.fabricmanager.topology.Degrader.degrade(
                org.fabricmanager.topology.PgftGenerator.generate(org.fabricmanager.topology.PgftSpec.parse(SPEC)),
                org.fabricmanager.topology.DegradationPlan.random(Double.parseDouble(degrade), 0, 1L));
        try (IbsimFabric lab = IbsimFabric.start(tools, net, generated, work.resolve("ibsim"), TOOL_LIMIT_SECONDS)) {
            // OpenSM's own sweep assigns the LIDs; ibnetdiscover then sees the fabric as OpenSM does
            IbsimFabric.OpenSmRun first = lab.runOpenSm("minhop", null, work.resolve("lids"), TOOL_LIMIT_SECONDS);
            assertThat(first.exitCode()).as("opensm -o (LID assignment), see " + first.logFile()).isZero();
            Path ibnet = lab.ibnetdiscover(work.resolve("ibnet.txt"), TOOL_LIMIT_SECONDS);
            LidFabric seen = IbnetdiscoverReader.readWithLids(ibnet);
            assertThat(seen.fabric().links()).hasSameSizeAs(generated.links());
            assertThat(seen.lids().missing(seen.fabric())).as("every switch and node has a LID").isEmpty();

            Path ours = work.resolve("dmodc.lfts");
            FabricProcesses.cli(work, "-Xmx512m", TOOL_LIMIT_SECONDS, "route", "--topology", ibnet.toString(), "--engine",
                    "dmodc", "--lft-format", "opensm", "--lft-out", ours.toString()).succeeded();
            IbsimFabric.OpenSmRun loaded = lab.runOpenSm("file", ours, work.resolve("file"), TOOL_LIMIT_SECONDS);
            assertThat(loaded.exitCode()).as("opensm -R file, see " + loaded.logFile()).isZero();
            assertThat(loaded.log().configuredBy()).as("the file engine configured the tables, no fallback").isEqualTo("file");
            String log = Files.readString(loaded.logFile(), StandardCharsets.ISO_8859_1);
            assertThat(log).doesNotContain("PARSE ERROR").doesNotContain("PARSE WARNING").doesNotContain("ERR 63");

            Map<String, Map<Integer, Integer>> expected = tables(Files.readAllLines(ours));
            assertThat(expected).hasSize(generated.switches().size());
            assertThat(tables(Files.readAllLines(loaded.dump()))).as("OpenSM's dump after -R file").isEqualTo(expected);

            // and what the switches hold: ibroute reads each simulated switch's LFT back
            List<String> read = new ArrayList<>();
            for (var s : seen.fabric().switches()) {
                int lid = seen.lids().lid(s.guid()).orElseThrow();
                read.addAll(List.of(lab.ibroute(lid, work.resolve("ibroute-" + lid + ".txt"), TOOL_LIMIT_SECONDS)
                        .split("\n")));
            }
            assertThat(tables(read)).as("the LFTs in the simulated switches (ibroute)").isEqualTo(expected);
        }
    }

    /** Switch GUID -> (LID -> port), from an opensm-lfts.dump or ibroute output. */
    private static Map<String, Map<Integer, Integer>> tables(List<String> lines) {
        Map<String, Map<Integer, Integer>> tables = new TreeMap<>();
        Map<Integer, Integer> current = null;
        for (String line : lines) {
            Matcher h = HEADER.matcher(line);
            if (h.matches()) {
                current = tables.computeIfAbsent(h.group(1).toLowerCase(), k -> new TreeMap<>());
                continue;
            }
            Matcher e = ENTRY.matcher(line);
            if (e.matches() && current != null) {
                current.put(Integer.parseInt(e.group(1), 16), Integer.parseInt(e.group(2)));
            }
        }
        return tables;
    }
}
