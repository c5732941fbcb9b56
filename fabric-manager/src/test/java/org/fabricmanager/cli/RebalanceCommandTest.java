package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rebalance} against a loopback HTTP server that answers like the daemon (docs/rest-api.md) and, like it,
 * refuses a request without the admin token: the rebalance posts to {@code /api/v1/routing/rebalance}, the dry run
 * asks the what-if of a rebalance, each printed in a few lines; a refusal is one line and exit code 2.
 */
class RebalanceCommandTest {
    private static final String TOKEN = "rebalance-token-0123456789";
    private FixedJsonServer server;
    private Map<String, String> answers;
    /** The body of the last request to each path. */
    private Map<String, String> requests;
    private String url;
    @TempDir
    Path dir;

    @BeforeEach
    void start() throws IOException {
        // as the daemon: reading the status needs no token, the actions do
        server = new FixedJsonServer("{\"error\":\"unknown path\"}").requireToken(TOKEN, Set.of("/api/v1/status"));
        answers = server.answers;
        requests = server.requests;
        url = server.url();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** The method and body of the last request to {@code path}, as "METHOD BODY". */
    private String request(String path) {
        return server.methods.get(path) + " " + requests.get(path);
    }

    private String tokenFile() throws IOException {
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        return token.toString();
    }

    @Test
    void aRebalancePostsAndSaysWhatChanged() throws IOException {
        answers.put("/api/v1/routing/rebalance", """
                {"result":"rebalanced","reason":"operator","routingVersion":3,"previousVersion":2,"replacedRepair":true,
                 "changedEntries":24,"changedBlocks":1,"switchesTouched":1,"durationMs":3.2}""");
        CliRun run = CliRun.of("rebalance", "--url", url, "--token-file", tokenFile());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(request("/api/v1/routing/rebalance")).isEqualTo("POST ");
        assertThat(run.out().lines()).containsExactly("routing v3 routed in full in 3.2 ms, replacing v2 (a repair)",
                "24 entries in 1 blocks on 1 switches changed; `fabric-manager status` shows the push converge (or --wait)");
    }

    @Test
    void aRebalanceWithWaitReturnsOnceTheDaemonConvergedOnItsVersion() throws IOException {
        answers.put("/api/v1/routing/rebalance", """
                {"result":"rebalanced","reason":"operator","routingVersion":3,"previousVersion":2,"replacedRepair":true,
                 "changedEntries":24,"changedBlocks":1,"switchesTouched":1,"durationMs":3.2}""");
        answers.put("/api/v1/status", """
                {"state":"CONVERGED","routing":{"version":3},"tables":{"inSync":48,"pending":0,"failing":0}}""");
        CliRun run = CliRun.of("rebalance", "--url", url, "--token-file", tokenFile(), "--wait");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(requests).containsKey("/api/v1/status");
        assertThat(run.out().lines().toList()).last().asString().startsWith("converged: v3 on 48 switches after ");
    }

    @Test
    void aDryRunAsksTheWhatIfOfARebalanceAndChangesNothing() throws IOException {
        answers.put("/api/v1/whatif", """
                {"routingVersion":2,"engine":"dmodc","repaired":true,"changedEntries":24,"changedBlocks":1,
                 "switchesTouched":1,"valid":true,"unreachableLeafPairs":0,
                 "before":{"shift":{"max":2,"mean":1.571,"unroutedPairs":0},"all2all":{"max":96,"mean":null,"unroutedPairs":0}},
                 "after":{"shift":{"max":2,"mean":1.5,"unroutedPairs":0},"all2all":{"max":80,"mean":null,"unroutedPairs":0}},
                 "routingMs":30.0,"analysisMs":20.5}""");
        CliRun run = CliRun.of("rebalance", "--url", url, "--token-file", tokenFile(), "--dry-run");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(requests).containsOnlyKeys("/api/v1/whatif");
        assertThat(request("/api/v1/whatif")).isEqualTo("POST {\"rebalance\":true}");
        assertThat(run.out()).startsWith("a rebalance of routing v2 (dmodc, a repair) would change 24 entries in 1 blocks"
                + " on 1 switches\n").contains("  shift mean              1.571          1.5\n")
                .contains("  all2all max                96           80\n");
    }

    @Test
    void withoutTheTokenTheRefusalIsOneLineAndExitCode2() {
        CliRun run = CliRun.of("rebalance", "--url", url);
        assertThat(run.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err()).contains("401").contains("Authorization").hasLineCount(1);
        assertThat(run.out()).isEmpty();
        assertThat(CliRun.of("rebalance", "--help").out()).contains("--dry-run").contains("--token-file");
    }
}
