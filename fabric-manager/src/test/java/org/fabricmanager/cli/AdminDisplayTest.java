package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the admin commands print states a healthy demo does not show (a disconnected switch, a
 * power-killed switch the daemon has no name for, quarantined ports, drains), against a real HTTP server on
 * loopback that answers fixed JSON, the shapes of docs/rest-api.md.
 */
class AdminDisplayTest {
    private FixedJsonServer server;
    private Map<String, String> answers;
    /** The body of the last request to each path. */
    private Map<String, String> requests;
    private String url;

    @BeforeEach
    void start() throws IOException {
        server = new FixedJsonServer("{\"error\":\"unknown path\"}");
        answers = server.answers;
        requests = server.requests;
        url = server.url();
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
    void aDisconnectedSwitchShowsItsPortCountWithoutPortsUp() {
        answers.put("/api/v1/switches", """
                [{"guid":"0x1000000100000000","name":"s1-0","connected":true,"address":"/127.0.0.1:33598","ports":16,
                  "portsUp":15,"tableVersion":2,"inSync":true,"rttMs":1.43,"connectedSince":1795268637741},
                 {"guid":"0x1000000300000005","name":"s3-5","connected":false,"ports":16}]""");
        List<String> lines = ok("switches", "--url", url).out().lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(1)).startsWith("0x1000000100000000  s1-0").contains(" 15/16 ").contains(" v2 ");
        assertThat(lines.get(2)).startsWith("0x1000000300000005  s3-5").contains("  NO  ").contains(" -/16 ")
                .doesNotContain("null");
        assertThat(lines.get(3)).isEqualTo("2 switches, 1 connected, 1 in sync");
        assertThat(ok("switches", "--url", url, "--not-in-sync").out().lines().toList()).hasSize(3);
    }

    @Test
    void statusSaysOpenSmIsLostSinceWhenAndWhyAndUpWhenItIs() {
        answers.put("/api/v1/status", """
                {"state":"CONVERGED","daemonId":"0x1","uptimeMs":90000,"switches":{"connected":48},"nodes":64,
                 "routing":{"version":0,"engine":"dmodc"},"tables":{"inSync":48,"pending":0,"failing":0},
                 "opensm":{"state":"LOST","sinceMillis":1795268637741,"lostReason":"no keepalive from OpenSM's plug-in for
                  20 s (OpenSM stopped, frozen or hung)","lastKeepaliveMs":21000,"smState":"MASTER","madsOutstanding":0,
                  "eventsDropped":3,"countersDropped":0,"losses":1}}""".replace("\n", " "));
        String lost = ok("status", "--url", url).out();
        assertThat(lost).contains("opensm        LOST since 2026-11-21T13:43:57.741Z").contains(": no keepalive from OpenSM's plug-in for"
                + "   20 s").contains("the switches keep their tables, but nothing can change them (SM MASTER, last keepalive"
                + " 21s ago, lost 1 time(s), plug-in dropped 3 events and 0 counter readings)");
        answers.put("/api/v1/status", """
                {"state":"CONVERGED","daemonId":"0x1","uptimeMs":90000,"switches":{"connected":48},"nodes":64,
                 "routing":{"version":0,"engine":"dmodc"},"tables":{"inSync":48,"pending":0,"failing":0},
                 "opensm":{"state":"UP","sinceMillis":1795268637741,"lastKeepaliveMs":2000,"smState":"MASTER",
                  "madsOutstanding":0,"eventsDropped":0,"countersDropped":0,"losses":0}}""");
        assertThat(ok("status", "--url", url).out()).contains("opensm        up (SM MASTER, last keepalive 2s ago)\n");
        answers.put("/api/v1/status", """
                {"state":"CONVERGED","daemonId":"0x1","uptimeMs":90000,"switches":{"connected":48},"nodes":64,
                 "routing":{"version":0,"engine":"dmodc"},"tables":{"inSync":48,"pending":0,"failing":0}}""");
        assertThat(ok("status", "--url", url).out()).as("a daemon without OpenSM").doesNotContain("opensm");
    }

    @Test
    void faultsPrintsTablesAndADashForWhatTheDaemonDoesNotKnow() {
        answers.put("/api/v1/faults", """
                {"detectorEnabled":true,"ringEpoch":3,"ringMembers":193,
                 "switches":[{"guid":"0x1000000300000005","name":null,"source":"session","sinceMillis":1795268699229,"sessionAlive":false},
                             {"guid":"0x1000000300000006","name":"s3-6","source":"ring","sinceMillis":1795268699229,"sessionAlive":true}],
                 "links":[{"guid":"0x1000000100000014","name":"s1-20","port":12,"peerGuid":"0x1000000200000013","quarantined":true},
                          {"guid":"0x1000000100000002","name":"s1-2","port":3,"peerGuid":"0x2000000000000022","quarantined":false,
                           "peerName":"n34","peerNode":true,"peerIndex":34}],
                 "quarantined":[{"guid":"0x1000000100000014","port":12,"flaps":4,"sinceMillis":1795268701002,"stableUpSinceMillis":null}],
                 "reactions":3,"pendingEvents":2,"ringStarting":0,"ringUnconfirmed":2,
                 "unwatched":[{"guid":"0x1000000100000007","name":"s1-7","reason":"no failure detector"}],
                 "nodesUnreachable":1,"unreachableNodes":[{"guid":"0x2000000000000022","name":"n34","index":34}],
                 "drained":[{"element":"link 0x1000000100000003:9","guid":"0x1000000100000003","port":9,"name":"s1-3",
                             "peer":"0x1000000200000001:4","sinceMillis":1795268712004}]}""");
        String out = ok("faults", "--url", url).out();
        assertThat(out).startsWith("failure detector: on (ring epoch 3, 193 members); 3 reactions since start,"
                + " one in progress (2 events)\n");
        assertThat(out).doesNotContain("null").doesNotContain("ring starting")
                .contains("ring not confirmed: 2 switches did not answer their configuration in time")
                .contains("failed switches: 2\n")
                .containsPattern("(?m)^  0x1000000300000005  -     session  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  gone$")
                .containsPattern("(?m)^  0x1000000300000006  s3-6  ring  .*  alive$")
                .contains("switches the ring cannot watch: 1")
                .containsPattern("(?m)^  0x1000000100000007  s1-7  no failure detector$")
                .contains("links down: 2\n")
                .containsPattern("(?m)^  0x1000000100000014  s1-20  +12  0x1000000200000013  -  +yes$")
                // a node link names its node and destination index, not only a bare GUID
                .containsPattern("(?m)^  0x1000000100000002  s1-2  +3  0x2000000000000022  node n34 \\(index 34\\)  no$")
                .contains("end nodes unreachable: 1\n")
                .containsPattern("(?m)^  0x2000000000000022  n34  +34$")
                .contains("drained for maintenance: 1\n")
                .containsPattern("(?m)^  link 0x1000000100000003:9  s1-3  0x1000000200000001:4  \\d{4}-.*$")
                .contains("quarantined ports: 1\n")
                .containsPattern("(?m)^  0x1000000100000014  +12  +4  \\d{4}-.*  -$");
    }

    @Test
    void faultsAnswersAnErrorLikeTheOtherAdminCommands() {
        CliRun run = CliRun.of("faults", "--url", url);
        assertThat(run.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err()).isEqualTo("faults: the daemon at " + url + " answered 404: unknown path\n");
        CliRun bad = CliRun.of("faults", "--url", "localhost:7680");
        assertThat(bad.err()).isEqualTo("faults: option --url: 'localhost:7680' is not a daemon address (expected http://HOST:PORT)\n");
    }

    @Test
    void drainsAreListedAskedByNameAndShownInSwitchesAndStatus() {
        answers.put("/api/v1/drains", """
                [{"element":"switch 0x1000000300000005","guid":"0x1000000300000005","port":null,"name":"s3-5","peer":null,
                  "sinceMillis":1795268702114},
                 {"element":"link 0x1000000100000000:9","guid":"0x1000000100000000","port":9,"name":"s1-0",
                  "peer":"0x1000000200000000:1","sinceMillis":1795268703114}]""");
        answers.put("/api/v1/drains/isolated", "[]");
        List<String> listed = ok("drain", "--url", url).out().lines().toList();
        assertThat(listed).hasSize(5);
        assertThat(listed.get(1)).startsWith("switch 0x1000000300000005").contains("s3-5");
        assertThat(listed.get(2)).startsWith("link 0x1000000100000000:9").contains("0x1000000200000000:1");
        assertThat(listed.get(3)).isEqualTo("2 drained");
        assertThat(listed.get(4)).isEqualTo("0 isolated by the gray-link policy");
        answers.put("/api/v1/drains/isolated", """
                [{"element":"link 0x1000000100000001:10","guid":"0x1000000100000001","port":10,"name":"s1-1",
                  "peer":"0x1000000200000003:2","sinceMillis":1795268704114,"probationMs":600000,
                  "figures":"rxErrors at 0x1000000100000001:10: 480 in 60.0 s over 120000 packets (4000 ppm)"},
                 {"element":"link 0x1000000100000002:11","guid":"0x1000000100000002","port":11,"name":"s1-2",
                  "peer":"0x1000000200000004:2","sinceMillis":1795268704114,"probationMs":1200000,"figures":null}]""");
        List<String> apart = ok("drain", "--url", url).out().lines().toList();
        assertThat(apart).hasSize(9);
        assertThat(apart.get(3)).isEqualTo("2 drained");
        assertThat(apart.get(5)).startsWith("ISOLATED LINK").endsWith("DECIDED BY");
        assertThat(apart.get(6)).startsWith("link 0x1000000100000001:10").contains("s1-1").contains("600 s")
                .endsWith("rxErrors at 0x1000000100000001:10: 480 in 60.0 s over 120000 packets (4000 ppm)");
        assertThat(apart.get(7)).contains("1200 s").endsWith("(isolated before this manager started)");
        assertThat(apart.get(8)).startsWith("2 isolated by the gray-link policy (given back after their probation");

        answers.put("/api/v1/topology", """
                {"format":"fabric-topology/1","switches":[{"guid":"0x1000000100000000","name":"s1-0","ports":16}],
                 "nodes":[],"links":[]}""");
        answers.put("/api/v1/drain", """
                {"result":"drained","element":"link 0x1000000100000000:9","guid":"0x1000000100000000","port":9,
                 "name":"s1-0","routingVersion":7,"forced":true,"nodesCutOff":0}""");
        String out = ok("drain", "--url", url, "--link", "s1-0:9", "--force").out();
        assertThat(requests.get("/api/v1/drain")).isEqualTo("{\"guid\":\"0x1000000100000000\",\"port\":9,\"force\":true}");
        assertThat(out).startsWith("drained link 0x1000000100000000:9 (s1-0): routed around").contains("v7");
        answers.put("/api/v1/undrain", """
                {"result":"undrained","element":"switch 0x1000000300000005","guid":"0x1000000300000005",
                 "name":"s3-5","routingVersion":8,"forced":false,"nodesCutOff":0}""");
        ok("undrain", "--url", url, "--switch", "0x1000000300000005");
        assertThat(requests.get("/api/v1/undrain")).isEqualTo("{\"guid\":\"0x1000000300000005\"}");
        CliRun forced = CliRun.of("undrain", "--url", url, "--switch", "s3-5", "--force");
        assertThat(forced.exitCode()).as("undrain has no --force").isEqualTo(2);
        CliRun both = CliRun.of("drain", "--url", url, "--switch", "s1-0", "--link", "s1-0:9");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("cannot be used together");

        answers.put("/api/v1/switches", """
                [{"guid":"0x1000000300000005","name":"s3-5","connected":true,"address":"/127.0.0.1:33598","ports":16,
                  "portsUp":16,"tableVersion":8,"inSync":true,"rttMs":1.43,"connectedSince":1795268637741,
                  "state":"IN_SYNC","drained":true}]""");
        List<String> switches = ok("switches", "--url", url).out().lines().toList();
        assertThat(switches.get(1)).contains("IN_SYNC (drained)");
        assertThat(switches.get(2)).isEqualTo("1 switches, 1 connected, 1 in sync, 1 drained");
        answers.put("/api/v1/status", """
                {"state":"CONVERGED","switches":{"expected":8,"connected":8},"nodes":16,
                 "routing":{"engine":"dmodc","version":8,"computations":8},"tables":{"inSync":8,"pending":0,"failing":0},
                 "drained":{"switches":1,"links":1}}""");
        assertThat(ok("status", "--url", url).out()).contains("drained       1 switch(es), 1 cable(s)");
    }
}
