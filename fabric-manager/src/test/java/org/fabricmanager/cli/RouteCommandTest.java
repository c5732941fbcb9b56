package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouteCommandTest {
    private static final String EXAMPLE = "PGFT(3;2,2,3;1,2,2;1,2,1)";

    @TempDir
    Path dir;

    @Test
    void writesTheDmodcTablesOfTheSpecExampleToAFile() throws Exception {
        Path lft = dir.resolve("example.lft");
        CliRun run = CliRun.of("route", "--pgft", EXAMPLE, "--lft-out", lft.toString(), "--threads", "2");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).isEmpty();
        List<String> lines = Files.readAllLines(lft);
        assertThat(lines.get(0)).isEqualTo("# lft-text/1 engine=dmodc-home switches=16 nodes=12"); // Dmodc's when intact
        assertThat(lines).hasSize(17);
        ForwardingTables expected;
        try (DmodcEngine engine = new DmodcEngine(1)) {
            expected = engine.route(PgftGenerator.generate(PgftSpec.parse(EXAMPLE)).index()).tables();
        }
        assertThat(LftText.read(lft).sameAs(expected)).isTrue();
        assertThat(run.err()).contains("route: dmodc-home: 16 switches x 12 destinations in ")
                .contains("ranking", "groups", "cost+divider", "routes", "homes", "validity")
                .contains("route: valid: all 30 ordered leaf pairs routed");
    }

    @Test
    void previousRepairsTheTablesInForceAsTheDaemonDoesRefinedOnRequestAndAReturnGivesThemBack() throws Exception {
        String spec = "PGFT(3;4,4,4;1,4,4;1,1,1)";
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(spec));
        Path topo = TopologyFiles.write(intact, dir.resolve("intact.json"));
        Path lft = dir.resolve("intact.lft");
        assertThat(CliRun.of("route", "--topology", topo.toString(), "--lft-out", lft.toString()).exitCode()).isZero();
        long top = PgftGenerator.switchGuid(3, 1);
        Fabric degraded = intact.withoutSwitches(List.of(top));
        Path degradedTopo = TopologyFiles.write(degraded, dir.resolve("degraded.json"));
        Path repairedLft = dir.resolve("repaired.lft");

        CliRun run = CliRun.of("route", "--topology", degradedTopo.toString(), "--previous", lft.toString(),
                "--refine", "--lft-out", repairedLft.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        ForwardingTables repaired = LftText.read(repairedLft);
        try (HomeDmodcEngine engine = new HomeDmodcEngine(1); DmodcEngine dmodc = new DmodcEngine(1)) {
            // the default engine's repair, its moved entries refined as a daemon with refineAfter refines them
            TableRepairer repairer = engine.repairer().orElseThrow();
            RoutedSnapshot base = engine.routeSnapshot(intact.index());
            ForwardingTables daemonWay = repairer.refine(base.result().tables(), repairer.repair(base,
                    degraded.index())).orElseThrow().result().tables();
            assertThat(repaired.sameAs(daemonWay)).isTrue();
            assertThat(repaired.sameAs(dmodc.route(degraded.index()).tables())).as("not Dmodc's own").isFalse();
            ForwardingTables dmodcRepair = dmodc.repair(dmodc.compute(intact.index()), degraded.index()).result()
                    .tables();
            assertThat(repaired.sameAs(dmodcRepair)).as("not Dmodc's repair").isFalse();
            // without --refine, the repair as the daemon installs it first (then refines it: routing.rebalance.refineAfter)
            Path plainLft = dir.resolve("plain.lft");
            assertThat(CliRun.of("route", "--topology", degradedTopo.toString(), "--previous", lft.toString(),
                    "--lft-out", plainLft.toString()).exitCode()).isZero();
            assertThat(LftText.read(plainLft).sameAs(dmodcRepair)).as("Dmodc's repair of the same tables").isTrue();
        }
        // the 4 level-2 switches under the top (one per pod) each sent it a quarter of their 48 remote destinations
        assertThat(run.err()).contains("route: repaired " + lft + ": 48 entries changed, minimum 48 (1.00x)")
                .contains("repair").contains("route: valid");
        Path back = dir.resolve("back.lft");
        CliRun again = CliRun.of("route", "--topology", topo.toString(), "--previous", repairedLft.toString(),
                "--lft-out", back.toString());
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(CliRun.of("route", "--topology", topo.toString(), "--previous", lft.toString(), "--lft-out",
                back.toString()).err()).contains(": 0 entries changed, minimum 0");
        assertThat(LftText.read(back).sameAs(LftText.read(lft))).isTrue();
        assertThat(CliRun.of("route", "--pgft", spec, "--previous", lft.toString(), "--engine", "minhop").exitCode())
                .isEqualTo(2);
    }

    @Test
    void writesTablesToStdoutWithoutLftOutAndDmodkGivesTheSameOnAnIntactFabric() throws Exception {
        CliRun dmodc = CliRun.of("route", "--pgft", EXAMPLE);
        CliRun dmodk = CliRun.of("route", "--pgft", EXAMPLE, "--engine", "dmodk", "--threads", "1");

        assertThat(dmodc.exitCode()).as(dmodc.err()).isZero();
        assertThat(dmodk.exitCode()).as(dmodk.err()).isZero();
        ForwardingTables a = LftText.read(new StringReader(dmodc.out()), "stdout");
        ForwardingTables b = LftText.read(new StringReader(dmodk.out()), "stdout");
        assertThat(a.switchCount()).isEqualTo(16);
        assertThat(a.sameAs(b)).isTrue();
        assertThat(dmodk.out()).startsWith("# lft-text/1 engine=dmodk ");
        assertThat(dmodk.err()).contains("route: dmodk: 16 switches x 12 destinations").contains("check", "routes");
    }

    @Test
    void rejectsAnUnknownEngineInOneLine() {
        CliRun run = CliRun.of("route", "--pgft", EXAMPLE, "--engine", "ftree");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("route: unknown routing engine 'ftree' (known: dmodc, dmodk")
                .hasLineCount(1);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void rejectsDmodkOnADegradedFabricInOneLine() {
        CliRun run = CliRun.of("route", "--pgft", "PGFT(3;4,4,4;1,4,4;1,1,1)", "--degrade-links", "0.05", "--seed", "3",
                "--engine", "dmodk");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("route: dmodk needs an intact canonical PGFT: fabric is degraded (6 links missing)"
                + System.lineSeparator());
        assertThat(run.out()).isEmpty();
    }

    @Test
    void reportsADisconnectedFabricAndStillWritesWhatItCanRoute() throws Exception {
        Fabric intact = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,3;1,2;1,1)"));
        long cut = PgftGenerator.switchGuid(1, 1);
        List<Link> gone = new ArrayList<>();
        for (Link l : intact.links()) {
            if ((l.a() == cut || l.b() == cut) && intact.isSwitch(l.a()) && intact.isSwitch(l.b())) {
                gone.add(l);
            }
        }
        Path topology = dir.resolve("cut.json");
        TopologyFiles.write(intact.withoutLinks(gone), topology);
        Path lft = dir.resolve("cut.lft");

        CliRun run = CliRun.of("route", "--topology", topology.toString(), "--lft-out", lft.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("route: fabric is disconnected: 4 of 6 ordered leaf pairs have no up*/down* path "
                + "(e.g. 0x1000000100000000 -> 0x1000000100000001, 0x1000000100000001 -> 0x1000000100000000, "
                + "0x1000000100000001 -> 0x1000000100000002, 0x1000000100000002 -> 0x1000000100000001); their entries are 255");
        ForwardingTables tables = LftText.read(lft);
        // leaf 0 (nodes 0, 1) still reaches leaf 2 (nodes 4, 5), not leaf 1 (nodes 2, 3)
        assertThat(tables.port(0, 4)).isNotEqualTo(ForwardingTables.NO_ROUTE);
        assertThat(tables.port(0, 2)).isEqualTo(ForwardingTables.NO_ROUTE);
    }

    @Test
    void rejectsBadThreadsAndUnwritableOutput() {
        CliRun threads = CliRun.of("route", "--pgft", EXAMPLE, "--threads", "0");
        assertThat(threads.exitCode()).isEqualTo(2);
        assertThat(threads.err()).isEqualTo("route: --threads must be in [1, 1024], got 0" + System.lineSeparator());

        CliRun out = CliRun.of("route", "--pgft", EXAMPLE, "--lft-out", dir.resolve("no/such/dir/x.lft").toString());
        assertThat(out.exitCode()).isEqualTo(2);
        assertThat(out.err()).startsWith("route: --lft-out ").contains("x.lft").hasLineCount(1);
    }

    @Test
    void rejectsAFabricWithoutLeaves() throws Exception {
        Fabric intact = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,3;1,2;1,1)"));
        List<Link> switchLinks = new ArrayList<>();
        for (Link l : intact.links()) {
            if (intact.isSwitch(l.a()) && intact.isSwitch(l.b())) {
                switchLinks.add(l);
            }
        }
        Path topology = dir.resolve("noleaves.json");
        TopologyFiles.write(new Fabric(null, intact.switches(), intact.nodes(), switchLinks), topology);
        CliRun run = CliRun.of("route", "--topology", topology.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("route: the fabric has no leaf switch (no node is linked to a switch): nothing to route"
                + System.lineSeparator());
    }
}
