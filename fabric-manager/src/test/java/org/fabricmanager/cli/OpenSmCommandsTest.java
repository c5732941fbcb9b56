package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.testing.RealParts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OpenSM bridge from the command line: ibnetdiscover in, OpenSM's tables out and in, ibsim export, compare. */
class OpenSmCommandsTest {
    @TempDir
    Path dir;
    private Path ibnet;
    private Path openSmDump;

    @BeforeEach
    void resources() throws IOException {
        ibnet = copy("pgft-2-4-4.ibnetdiscover");
        openSmDump = copy("pgft-2-4-4.opensm-lfts.dump");
    }

    private Path copy(String name) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/opensm/" + name)) {
            Path p = dir.resolve(name);
            Files.write(p, in.readAllBytes());
            return p;
        }
    }

    @Test
    void routeReadsAnIbnetdiscoverDumpAndWritesOpenSmsFormatKeyedByItsLids() throws IOException {
        Path out = dir.resolve("ours.dump");
        CliRun run = CliRun.of("route", "--topology", ibnet.toString(), "--lft-format", "opensm", "--lft-out", out.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).contains("route: opensm format: 22 LIDs, largest 22 (from the dump)");
        // the dump OpenSM wrote after loading these very tables with -R file
        assertThat(Files.readString(out)).isEqualTo(Files.readString(openSmDump));
    }

    @Test
    void routeDetectionCanBeOverriddenAndAWrongFormatNamesTheLine() {
        CliRun run = CliRun.of("route", "--topology", ibnet.toString(), "--topology-format", "fabric-topology");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        CliRun ok = CliRun.of("route", "--topology", ibnet.toString(), "--topology-format", "ibnetdiscover",
                "--lft-out", dir.resolve("t.lft").toString());
        assertThat(ok.exitCode()).as(ok.err()).isZero();
        CliRun bad = CliRun.of("route", "--topology", ibnet.toString(), "--topology-format", "xml");
        assertThat(bad.err()).contains("--topology-format: unknown format 'xml' (known: fabric-topology, ibnetdiscover)");
    }

    @Test
    void routeWritesAGeneratedPgftWithTheLidPlanAndRefusesOneOpenSmCannotAddress() {
        CliRun run = CliRun.of("route", "--pgft", "PGFT(2;2,2;1,2;1,1)", "--lft-format", "opensm");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("Unicast lids [0-8] of switch Lid 1 guid 0x1000000100000000 ('s1-0'):\n"
                + "0x0001 000 # Switch portguid 0x1000000100000000: 's1-0'\n");
        assertThat(run.err()).contains("LID plan: switches from 1 by GUID, then nodes by index");
        CliRun big = CliRun.of("route", "--pgft", "PGFT(3;32,32,64;1,32,32;1,1,1)", "--lft-format", "opensm");
        assertThat(big.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(big.err()).contains("the fabric needs 70,656 LIDs (5,120 switches + 65,536 nodes) but InfiniBand has"
                + " 49,151 unicast LIDs");
    }

    @Test
    void qualityAndTraceAnalyseTheTablesOpenSmWrote() {
        CliRun quality = CliRun.of("quality", "--topology", ibnet.toString(), "--lft", openSmDump.toString(),
                "--lft-format", "opensm", "--engines", "dmodc");
        assertThat(quality.exitCode()).as(quality.err()).isZero();
        assertThat(quality.out().lines().skip(1).map(l -> l.split("\\s{2,}")[0]))
                .containsExactly("file pgft-2-4-4.opensm-lfts.dump", "dmodc");
        // the file holds Dmodc's tables, so both rows agree after the name
        String[] rows = quality.out().lines().skip(1).map(l -> l.replaceFirst("^\\S+( \\S+)?\\s+", "")).toArray(String[]::new);
        assertThat(rows[0]).isEqualTo(rows[1]);
        CliRun trace = CliRun.of("trace", "--topology", ibnet.toString(), "--lft", openSmDump.toString(), "--lft-format",
                "opensm", "--src", "0", "--dst", "15");
        assertThat(trace.exitCode()).as(trace.err()).isZero();
        assertThat(trace.out()).contains("delivered");
    }

    @Test
    void benchTakesAnIbnetdiscoverDumpToo() {
        CliRun run = CliRun.of("bench", "--topology", ibnet.toString(), "--engines", "dmodc", "--repeat", "1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("dmodc");
    }

    @Test
    void topologyExportsIbsimsNetFormat() throws IOException {
        Path net = dir.resolve("fabric.net");
        CliRun run = CliRun.of("topology", "--pgft", "PGFT(2;2,2;1,2;1,1)", "--degrade-links", "0.25", "--format", "ibsim",
                "--out", net.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(Files.readString(net)).contains("Hca\t1 \"n0_2000000000000000\"\n[1]\t\"s1-0_1000000100000000\"[1]\n");
        CliRun check = CliRun.of("topology", "--check", net.toString(), "--format", "ibsim");
        assertThat(check.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
    }

    @Test
    void compareRunsEveryEngineWhenOpenSmIsInstalled() {
        RealParts.require(OpenSmTools.find().isPresent(), "needs " + OpenSmTools.INSTALL_HINT);
        Path svg = dir.resolve("congestion.svg");
        CliRun run = CliRun.of("compare", "--pgft", "PGFT(2;4,4;1,2;1,1)", "--engines", "dmodc,minhop", "--work",
                dir.resolve("work").toString(), "--timeout", "120", "--svg", svg.toString());
        assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
        assertThat(svg).content().startsWith("<svg ").contains(">shift max</text>", ">opensm ftree</text>", ">dmodc</text>")
                .endsWith("</svg>\n");
        assertThat(run.out().lines().skip(1).map(l -> l.split("\\s{2,}")[0]).limit(6))
                .containsExactly("opensm ftree", "opensm updn", "opensm minhop", "opensm dfsssp", "dmodc", "minhop");
        assertThat(run.out().lines().findFirst().orElseThrow()).startsWith("engine").contains("routing ms", "unrouted pairs",
                "shift max", "all2all max");
    }

    @Test
    void compareSaysHowToInstallOpenSmWhenItIsMissing() throws IOException {
        // as on a machine without the tools, whether or not this one has them
        CompareCommand compare = new CompareCommand(java.util.Optional::empty);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.util.List<String> argv = java.util.List.of("--pgft", "PGFT(2;4,4;1,2;1,1)");
        int code = compare.run(CliTree.arguments(compare, argv),
                new Console(new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)));
        assertThat(code).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(err.toString()).startsWith("compare: needs OpenSM, ibsim and ibnetdiscover")
                .contains("install them with: apt-get install opensm ibsim-utils infiniband-diags");
        assertThat(out.toString()).isEmpty();
    }
}
