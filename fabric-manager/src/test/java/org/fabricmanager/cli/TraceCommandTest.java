package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceCommandTest {
    // PGFT(2;2,2;1,2;1,1): leaves s1-0 (nodes 0,1) and s1-1 (nodes 2,3), spines s2-0 and s2-1.
    private static final String LEAF0 = "0x1000000100000000";
    private static final String LEAF1 = "0x1000000100000001";
    private static final String SPINE0 = "0x1000000200000000";

    @TempDir
    Path dir;
    private Path topology;
    private Path lft;
    private final CliSession cli = new CliSession();

    @BeforeEach
    void writeFabricAndTables() throws IOException {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
        topology = dir.resolve("fabric.json");
        TopologyFiles.write(fabric, topology);
        lft = dir.resolve("tables.lft");
        // minimal routes: node 0 and 2 via spine 0, nodes 1 and 3 via spine 1
        writeLft(LEAF0 + " 1 2 3 4", LEAF1 + " 3 4 1 2", SPINE0 + " 1 1 2 2", "0x1000000200000001 1 1 2 2");
    }

    private void writeLft(String... lines) throws IOException {
        Files.writeString(lft, "# lft-text/1 engine=hand switches=4 nodes=4\n" + String.join("\n", lines) + "\n");
    }

    @Test
    void printsEveryHopOfADeliveredRoute() {
        int code = cli.run("trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src", "0", "--dst", "2");
        assertThat(code).isEqualTo(ExitCodes.OK);
        assertThat(cli.out().lines()).containsExactly(
                "trace n0 (index 0, 0x2000000000000000) -> n2 (index 2, 0x2000000000000002)",
                "hop  switch             name         port  leads to",
                "1    0x1000000100000000 s1-0            3  0x1000000200000000 s2-0 port 1",
                "2    0x1000000200000000 s2-0            2  0x1000000100000001 s1-1 port 3",
                "3    0x1000000100000001 s1-1            1  node n2 (index 2, 0x2000000000000002)",
                "delivered: 3 switches, 2 switch-to-switch links");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    void tracesTablesWrittenByAnEngine() throws IOException {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)"));
        TopologyFiles.write(fabric, topology);
        try (RoutingEngine engine = RoutingEngines.create("updn", 1)) {
            ForwardingTables tables = engine.route(fabric.index()).tables();
            LftText.write(tables, "updn", lft);
        }
        int code = cli.run("trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src", "0", "--dst",
                "11");
        assertThat(code).isEqualTo(ExitCodes.OK);
        // leaf -> level 2 -> top -> level 2 -> leaf
        assertThat(cli.out()).contains("delivered: 5 switches, 4 switch-to-switch links");
    }

    @Test
    void saysWhereALoopCloses() throws IOException {
        writeLft(LEAF0 + " 1 2 3 4", LEAF1 + " 3 4 1 2", SPINE0 + " 1 1 1 2", "0x1000000200000001 1 1 2 2");
        int code = cli.run("trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src", "1", "--dst", "2");
        assertThat(code).isEqualTo(ExitCodes.MISMATCH);
        assertThat(cli.out()).contains("2    0x1000000200000000 s2-0            1  0x1000000100000000 s1-0 port 3")
                .contains("loop: switch 0x1000000200000000 (s2-0) sends the packet back to 0x1000000100000000 (s1-0),"
                        + " hop 1");
    }

    @Test
    void saysWhichKindOfDeadEnd() throws IOException {
        writeLft(LEAF0 + " 1 2 3 4", LEAF1 + " 3 4 1 2", SPINE0 + " 1 1 255 2", "0x1000000200000001 1 1 2 2");
        int code = cli.run("trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src", "0", "--dst", "2");
        assertThat(code).isEqualTo(ExitCodes.MISMATCH);
        assertThat(cli.out()).contains("(no route)")
                .contains("dead end: switch 0x1000000200000000 (s2-0) has no route (255) for index 2");
        writeLft(LEAF0 + " 1 2 3 4", LEAF1 + " 3 4 2 2", SPINE0 + " 1 1 2 2", "0x1000000200000001 1 1 2 2");
        cli.run("trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src", "0", "--dst", "2");
        assertThat(cli.out()).contains("node n3 (index 3")
                .contains("dead end: port 2 of switch 0x1000000100000001 (s1-1) leads to another node");
        writeLft(LEAF0 + " 1 2 9 4", LEAF1 + " 3 4 1 2", SPINE0 + " 1 1 2 2", "0x1000000200000001 1 1 2 2");
        cli.run("trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src", "0", "--dst", "2");
        assertThat(cli.out()).contains("(no such port: the switch has 4)")
                .contains("dead end: port 9 of switch 0x1000000100000000 (s1-0) leads nowhere");
    }

    @Test
    void rejectsBadInputWithOneLine() throws IOException {
        assertBadInput("trace: missing required option --lft", "trace", "--topology", topology.toString(), "--src",
                "0", "--dst", "1");
        assertBadInput("trace: --dst 7: no node of " + topology + " has destination index 7", "trace", "--topology",
                topology.toString(), "--lft", lft.toString(), "--src", "0", "--dst", "7");
        assertBadInput("trace: --src must be in [0, 2147483647], got -3", "trace", "--topology", topology.toString(),
                "--lft", lft.toString(), "--src", "-3", "--dst", "1");
        assertBadInput("trace: --src and --dst are the same node (index 1)", "trace", "--topology",
                topology.toString(), "--lft", lft.toString(), "--src", "1", "--dst", "1");
        assertBadInput("trace: " + dir.resolve("none.lft") + ": no such file", "trace", "--topology",
                topology.toString(), "--lft", dir.resolve("none.lft").toString(), "--src", "0", "--dst", "1");

        writeLft(LEAF0 + " 1 2 3 4", LEAF1 + " 3 4 1 2", SPINE0 + " 1 1 2 2");
        assertBadInput("trace: " + lft + ": forwarding tables are not for this fabric: they have 3 switches, the"
                + " fabric has 4 (" + topology + ")", "trace", "--topology", topology.toString(), "--lft",
                lft.toString(), "--src", "0", "--dst", "1");

        writeLft(LEAF0 + " 1 2 3 4", LEAF1 + " 3 4 x 2");
        assertBadInput("trace: " + lft + ":3: entry 2 of switch " + LEAF1 + " is 'x', not a port in [0, 255]",
                "trace", "--topology", topology.toString(), "--lft", lft.toString(), "--src", "0", "--dst", "1");
    }

    private void assertBadInput(String message, String... args) {
        assertThat(cli.run(args)).as(message).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(cli.err().lines()).containsExactly(message);
        assertThat(cli.out()).isEmpty();
    }
}
