package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code fabric-manager ports} against a loopback HTTP server answering the shapes of docs/rest-api.md. */
class PortsCommandTest {
    private static final String PORTS = """
            {"guid":"0x1000000100000000","name":"s1-0","reporting":true,"incarnation":5,"receivedAt":1795349024722,
             "ageMs":2310,"intervalMs":10000,"totals":{"rxPackets":3000,"rxErrors":4},
             "ports":[{"port":1,"rxPackets":1000,"txPackets":1000,"rxBytes":256000,"txBytes":256000,"rxErrors":0,
                       "txErrors":0,"rxDrops":0,"txDrops":0},
                      {"port":2,"rxPackets":2000,"txPackets":2000,"rxBytes":512000,"txBytes":512000,"rxErrors":4,
                       "txErrors":null,"rxDrops":0,"txDrops":0},
                      {"port":3,"rxPackets":0,"txPackets":0,"rxBytes":0,"txBytes":0,"rxErrors":0,
                       "txErrors":0,"rxDrops":0,"txDrops":0}]}""";
    private FixedJsonServer server;
    private Map<String, String> answers;
    private String url;

    @BeforeEach
    void start() throws IOException {
        server = new FixedJsonServer("{\"error\":\"unknown switch\"}");
        answers = server.answers;
        url = server.url();
        answers.put("/api/v1/switches/0x1000000100000000/ports", PORTS);
        answers.put("/api/v1/switches", """
                [{"guid":"0x1000000100000000","name":"s1-0","connected":true}]""");
        answers.put("/api/v1/links/health", "[]");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private CliRun ok(String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        return run;
    }

    @Test
    void printsOneLinePerPortAndMarksThoseWithErrors() {
        List<String> lines = ok("ports", "--url", url, "--switch", "0x1000000100000000").out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("switch 0x1000000100000000 (s1-0): counters reported 2.3 s ago");
        assertThat(lines).hasSize(6);
        assertThat(lines.get(2)).contains("1,000").doesNotEndWith("!");
        assertThat(lines.get(3)).contains("2,000").contains(" 4 ").contains(" - ").endsWith("!");
        assertThat(lines.get(5)).isEqualTo("3 ports, 1 with errors or drops");
    }

    @Test
    void portsWhoseLinksErrAreMarkedAndTheirFiguresListedIsolatedOnesWithWhatDecided() {
        answers.put("/api/v1/links/health", """
                [{"link":"0x1000000100000000:3-0x1000000200000001:1","aName":"s1-0","bName":"s2-1","level":"HEALTHY",
                  "figures":"no errors in 60.0 s (4000 packets/s)","details":{},"advice":null,"isolated":true,
                  "isolatedFigures":"rxErrors at 0x1000000100000000:3: 480 in 60.0 s over 120000 packets (4000 ppm)",
                  "sinceMillis":1795268702114,"probationMs":600000},
                 {"link":"0x1000000000000007:1-0x1000000100000000:1","aName":null,"bName":"s1-0","level":"BAD",
                  "figures":"rxErrors at 0x1000000100000000:1: 900 in 60.0 s","details":{},
                  "advice":"an end node's only cable: isolating it would cut the node off","isolated":false,
                  "isolatedFigures":null,"sinceMillis":null,"probationMs":null},
                 {"link":"0x1000000100000009:2-0x1000000200000002:4","aName":"s1-9","bName":"s2-2","level":"SUSPECT",
                  "figures":"rxErrors at 0x1000000100000009:2: 50","details":{},"advice":null,"isolated":false,
                  "isolatedFigures":null,"sinceMillis":null,"probationMs":null}]""");
        List<String> lines = ok("ports", "--url", url, "--switch", "s1-0").out().lines().toList();
        assertThat(lines.get(2)).endsWith(" bad");
        assertThat(lines.get(3)).endsWith("!").doesNotContain("bad").doesNotContain("isolated");
        assertThat(lines.get(4)).endsWith(" isolated");
        assertThat(lines).hasSize(8);
        assertThat(lines.get(6)).isEqualTo("port 1: link 0x1000000000000007:1-0x1000000100000000:1 bad, not isolated "
                + "(an end node's only cable: isolating it would cut the node off): rxErrors at "
                + "0x1000000100000000:1: 900 in 60.0 s");
        assertThat(lines.get(7)).startsWith("port 3: link 0x1000000100000000:3-0x1000000200000001:1 isolated by the "
                + "gray-link policy since 2026-").contains("(given back after 600 s healthy); decided by: rxErrors at "
                + "0x1000000100000000:3: 480").endsWith("; now isolated: no errors in 60.0 s (4000 packets/s)");
        List<String> errors = ok("ports", "--url", url, "--switch", "s1-0", "--errors").out().lines().toList();
        assertThat(errors.subList(2, 5)).as("the erring ports and the isolated one").extracting(String::strip)
                .satisfiesExactly(l -> assertThat(l).startsWith("1 "), l -> assertThat(l).startsWith("2 "),
                        l -> assertThat(l).startsWith("3 "));
    }

    @Test
    void aSwitchIsFoundByNameAndErrorsListsOnlyTroubledPorts() {
        List<String> lines = ok("ports", "--url", url, "--switch", "s1-0", "--errors").out().lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(2).strip()).startsWith("2 ").endsWith("!");
    }

    @Test
    void countsAboveTwoToThe63PrintUnsignedAndImplausibleOnesAreMarkedAndExplained() {
        answers.put("/api/v1/switches/0x1000000100000000/ports", """
                {"guid":"0x1000000100000000","name":"s1-0","reporting":true,"incarnation":5,"receivedAt":1795349024722,
                 "ageMs":2310,"intervalMs":10000,"totals":{"rxBytes":18446744073709551614},
                 "ports":[{"port":1,"rxPackets":9223372036854775808,"txPackets":0,"rxBytes":18446744073709551614,
                           "txBytes":0,"rxErrors":0,"txErrors":0,"rxDrops":0,"txDrops":0},
                          {"port":2,"rxPackets":0,"txPackets":0,"rxBytes":18446744073709551614,"txBytes":0,
                           "rxErrors":18446744073709551614,"txErrors":0,"rxDrops":0,"txDrops":0,
                           "implausible":{"rxErrors":"rose by 18446744073709551614 in 10.0 s"}}]}""");
        List<String> lines = ok("ports", "--url", url, "--switch", "s1-0").out().lines().toList();
        assertThat(lines.get(2)).contains("9,223,372,036,854,775,808").contains("18,446,744,073,709,551,614")
                .doesNotContain("-9").doesNotEndWith("!");
        assertThat(lines.get(3)).contains("18,446,744,073,709,551,614?").endsWith("!");
        assertThat(lines.get(4)).isEqualTo("2 ports, 1 with errors or drops");
        assertThat(lines.get(5)).isEqualTo("? port 2 rxErrors: rose by 18446744073709551614 in 10.0 s");
        assertThat(lines).hasSize(6);
    }

    @Test
    void jsonIsTheDaemonsAnswer() throws Exception {
        String out = ok("ports", "--url", url, "--switch", "0x1000000100000000", "--json").out();
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree(out)).isEqualTo(json.readTree(PORTS));
    }

    @Test
    void anUnknownSwitchIsExitCodeTwoWithOneLine() {
        CliRun byGuid = CliRun.of("ports", "--url", url, "--switch", "0x00000000000000ff");
        assertThat(byGuid.exitCode()).isEqualTo(2);
        assertThat(byGuid.err()).contains("unknown switch");
        CliRun byName = CliRun.of("ports", "--url", url, "--switch", "nosuch");
        assertThat(byName.exitCode()).isEqualTo(2);
        assertThat(byName.err()).contains("no switch named 'nosuch'");
    }

    @Test
    void aSwitchWhoseAgentReportsNoCountersSaysSo() {
        answers.put("/api/v1/switches/0x1000000100000001/ports", """
                {"guid":"0x1000000100000001","name":"s1-1","reporting":false,"intervalMs":10000,"totals":{},"ports":[]}""");
        assertThat(ok("ports", "--url", url, "--switch", "0x1000000100000001").out().strip())
                .isEqualTo("switch 0x1000000100000001 (s1-1): no port counters (its agent reports none)");
    }
}
