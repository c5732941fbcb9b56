package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * Hot-standby managers under OpenSM as processes (docs/opensm.md, "OpenSM and hot standbys"): three {@code run}
 * members on Raft, two OpenSMs with the plug-in on two end nodes of an ibsim fabric (SM priorities 15 and 14, so the
 * master is known), each OpenSM's plug-in on its own member's socket as on two management hosts. The master SM's
 * "host" fails: its OpenSM and its member are killed with SIGKILL. The other OpenSM becomes master, the leadership
 * moves to the member next to it, its routing pass is answered with the daemon's tables, and every switch's table, as
 * {@code ibroute} reads it, equals offline Dmodc of the fabric. The time from the kill to OpenSM's SUBNET UP with the
 * daemon's tables is printed for docs/performance.md, not asserted. Skipped when OpenSM, ibsim, infiniband-diags or
 * the plug-in are missing.
 */
class OpenSmStandbysIT {
    private static final String SPEC = "PGFT(2;4,4;1,4;1,1)";
    private static final long TOOL_LIMIT_SECONDS = OpenSmLab.TOOL_LIMIT_SECONDS;
    /** Every wait on the group or on OpenSM: bounds for a loaded 2-core machine, not measures. */
    private static final int WAIT_SECONDS = 120;
    /**
     * The standby SM polls the master's SMInfo every second and declares it dead after 2 failed polls (defaults: 10 s
     * and 4, i.e. about 40 s before a standby SM takes over).
     */
    private static final String ELECTION = "sminfo_polling_timeout 1000\npolling_retry_number 2\n";
    /** OpenSM's log time stamp: "Nov 27 07:11:54 064187 [326D96C0] 0x02 -> text". */
    private static final Pattern STAMP = Pattern.compile("^\\w{3} +\\d+ (\\d\\d:\\d\\d:\\d\\d) (\\d{6}) .*");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The words of a standby's REFUSED on which the plug-in waits for the socket (docs/opensm.md, "The plug-in's protocol"). */
    private static final String MOVING = "leadership is moving here";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Set<Integer> ports = new HashSet<>();

    /** One member: its id, ports, configuration and OpenSM socket. */
    private record Member(String id, int raftPort, int southboundPort, int restPort, Path config, Path socket) {
        String url() {
            return "http://127.0.0.1:" + restPort;
        }
    }

    @Test
    void whenTheMasterSmsHostFailsTheOtherOpenSmAndItsManagerTakeOverWithTheDaemonsTables() throws Exception {
        OpenSmLab lab = OpenSmLab.require();
        Path work = lab.plugin().directory().resolveSibling("opensm-standbys-it");
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        int switches = fabric.switches().size();
        List<Member> members = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            String id = "n" + i;
            members.add(new Member(id, freePort(), freePort(), freePort(), work.resolve(id + ".yaml"),
                    work.resolve(id).resolve("opensm.sock")));
        }
        // the standby SM on an end node of the last leaf: another "host" than the net file's first node (the master's)
        EndNode standbyNode = fabric.nodes().stream().max((a, b) -> Integer.compare(a.index(), b.index())).orElseThrow();
        assertThat(standbyNode.guid()).isNotEqualTo(IbsimNet.smNode(fabric).guid());
        Member first = members.get(0);
        Map<String, Process> processes = new HashMap<>();
        Process masterSm = null;
        Process standbySm = null;
        try (FabricProcesses group = new FabricProcesses(work);
             IbsimFabric ibsim = IbsimFabric.start(lab.tools(), fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS)) {
            for (Member m : members) {
                writeConfig(m, members);
                processes.put(m.id(), group.startMember(m.id(), m.config(), m.southboundPort(), m.restPort(), "-Xmx256m"));
            }
            awaitActive(work, members);

            // each OpenSM's plug-in on its own member's socket: the same path on every host in production, two here
            Path masterLog = work.resolve("opensm-" + first.id()).resolve("opensm.log");
            masterSm = lab.plugin().startElectingOpenSm(ibsim, first.socket(), OpenSmLab.PLUGIN_TIMEOUT_MS,
                    masterLog.getParent(), "sm_priority 15\n" + ELECTION, null);
            // the manager follows the master SM: whichever member was elected, n1 ends active and routes its subnet
            awaitConverged(work, members, first, switches);
            awaitLog(masterLog, "routed by the daemon");

            // The standby SM's member: one that never led. A member that led within 30 s holds the leadership back
            // (no back and forth), which would add up to 30 s to the takeover measured here. Of two, n3: in trial runs
            // n2 won the election after the kill (both campaign at once; Raft decides), so the leadership usually has
            // to move on OpenSM's pass. Either way is checked below.
            Member second = members.get(2);
            if (led(work, second)) {
                second = members.get(1);
            }
            // started once OpenSM-1 routed with the daemon: a standby SM coming up during OpenSM-1's first passes was
            // once followed by OpenSM-1 sweeping no more (the plug-in's re-route ignored for 2 minutes)
            Path standbyLog = work.resolve("opensm-" + second.id()).resolve("opensm.log");
            standbySm = lab.plugin().startElectingOpenSm(ibsim, second.socket(), OpenSmLab.PLUGIN_TIMEOUT_MS,
                    standbyLog.getParent(), "sm_priority 14\n" + ELECTION, IbsimNet.id(standbyNode.name(), standbyNode.guid()));
            awaitLog(standbyLog, "Entering STANDBY state");
            OpenSmRoutingIT.assertTablesEqualOffline(ibsim, work.resolve("before"), null);
            assertThat(Files.readString(standbyLog, StandardCharsets.ISO_8859_1)).as("the standby SM never routed")
                    .doesNotContain("routed by the daemon").doesNotContain("Entering MASTER state");
            assertThat(Files.readString(masterLog, StandardCharsets.ISO_8859_1)).as("OpenSM-1 stayed master")
                    .doesNotContain("Entering STANDBY state");

            // the master SM's host fails: its OpenSM and its manager, SIGKILL both, no goodbye
            LocalTime killedAt = LocalTime.now();
            long killed = System.nanoTime();
            masterSm.destroyForcibly();
            processes.get(first.id()).destroyForcibly();
            assertThat(masterSm.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(processes.get(first.id()).waitFor(30, TimeUnit.SECONDS)).isTrue();

            awaitLog(standbyLog, "Entering MASTER state");
            awaitLog(standbyLog, "routed by the daemon");
            JsonNode converged = awaitConverged(work, members, second, switches);
            double convergedMs = (System.nanoTime() - killed) / 1e6;
            String log = Files.readString(standbyLog, StandardCharsets.ISO_8859_1);
            // OpenSM's own clock from the kill: its MASTER state, its first SUBNET UP (with the fallback engine's tables
            // when the first pass was refused), the daemon's answer and its tables set on every switch; a SUBNET UP
            // follows the daemon's answer only when that pass was a heavy sweep's (a re-route prints none)
            double masterMs = msAfter(killedAt, line(log, "Entering MASTER state", 0));
            double firstUpMs = msAfter(killedAt, line(log, "SUBNET UP", 0));
            int routed = log.indexOf("routed by the daemon");
            double routedMs = msAfter(killedAt, line(log, "routed by the daemon", 0));
            double setMs = msAfter(killedAt, line(log, "fabric-manager tables configured on all switches", routed));
            String upAfter = nextLine(log, "SUBNET UP", routed);
            String leaderAfterKill = electedAfterKill(work, members);
            boolean moved = log.contains(MOVING);
            System.out.printf("OpenSM standby takeover on %s: kill to MASTER %.0f ms, to its first SUBNET UP %.0f ms, to"
                    + " routed by the daemon %.0f ms, to the daemon's tables on every switch %.0f ms (SUBNET UP after it: %s),"
                    + " to %s CONVERGED %.0f ms; elected after the kill: %s; leadership %s%n", SPEC, masterMs, firstUpMs,
                    routedMs, setMs, upAfter == null ? "none, a re-route" : "%.0f ms".formatted(msAfter(killedAt, upAfter)),
                    second.id(), convergedMs, leaderAfterKill,
                    moved ? "moved to " + second.id() + " on OpenSM's pass" : "already there");
            if (!second.id().equals(leaderAfterKill)) {
                // the other survivor was elected: the new master SM's first pass reached this member's standby socket,
                // which refused it, took the leadership and bound the socket again, and the plug-in asked for a re-route
                assertThat(log).as("the new master SM's first pass refused by " + second.id() + "'s standby listener")
                        .contains(MOVING).contains("the daemon listens again on");
                assertThat(text(second.url() + "/api/v1/events?since=0")).as(second.id() + "'s events")
                        .contains("leadership moved to " + second.id() + " from " + leaderAfterKill);
            }
            assertThat(converged.at("/switches/connected").asInt()).isEqualTo(switches);
            // no switch ends with tables other than the daemon's: each table ibroute reads equals offline Dmodc
            OpenSmRoutingIT.assertTablesEqualOffline(ibsim, work.resolve("after"), null);
            assertThat(log).as("the new master SM's log").doesNotContain("SUBNET_ERROR");
            assertThat(standbySm.isAlive()).as("the new master SM runs on").isTrue();
        } finally {
            OpenSmLab.stop(masterSm);
            OpenSmLab.stop(standbySm);
        }
    }

    private void writeConfig(Member m, List<Member> members) throws IOException {
        StringBuilder peers = new StringBuilder();
        for (Member p : members) {
            peers.append(peers.length() == 0 ? "" : ", ").append("\"").append(p.id()).append("=127.0.0.1:")
                    .append(p.raftPort()).append("\"");
        }
        Files.createDirectories(m.socket().getParent());
        // as OpenSmLab.daemonConfig: a short settle window, the first pass must be answered within the plug-in's timeout
        Files.writeString(m.config(), """
                southbound:
                  bind: "127.0.0.1"
                rest:
                  bind: "127.0.0.1"
                discovery:
                  settleMs: 300
                  maxWaitMs: 30000
                state:
                  directory: "%s"
                security:
                  insecure: true
                opensm:
                  socket: "%s"
                ha:
                  enabled: true
                  nodeId: %s
                  peers: [%s]
                """.formatted(m.config().resolveSibling("state-" + m.id()), m.socket(), m.id(), peers));
    }

    /** The member whose last role line says ACTIVE (its manager runs). */
    private static Member awaitActive(Path work, List<Member> members) {
        return Await.value("an active manager", Duration.ofSeconds(WAIT_SECONDS), () -> members.stream()
                .filter(m -> lastRole(work, m).contains(" ACTIVE ")).findFirst().orElse(null),
                m -> m != null);
    }

    /** {@code m} CONVERGED with every switch of OpenSM's subnet in sync; its status. */
    private JsonNode awaitConverged(Path work, List<Member> members, Member m, int switches) {
        try {
            return Await.value(m.id() + " active and CONVERGED on " + switches + " switches", Duration.ofSeconds(WAIT_SECONDS),
                    () -> status(m), s -> s != null && "CONVERGED".equals(s.path("state").asText())
                            && s.at("/switches/connected").asInt() == switches && s.at("/tables/inSync").asInt() == switches);
        } catch (AssertionError e) {
            StringBuilder roles = new StringBuilder();
            for (Member each : members) {
                roles.append(each.id()).append(": '").append(lastRole(work, each)).append("'; ");
            }
            throw new AssertionError(e.getMessage() + "; last roles " + roles + "see " + work, e);
        }
    }

    /** The member a "LEADER" line names first after the kill (the members' only leader lines then), or "none". */
    private static String electedAfterKill(Path work, List<Member> members) {
        // each survivor printed its role lines in order; the first LEADER line of n2 or n3 in a term above n1's last
        long n1Term = term(lastRole(work, members.get(0)));
        String first = "none";
        long lowest = Long.MAX_VALUE;
        for (Member m : members.subList(1, members.size())) {
            for (String l : lines(work, m)) {
                if (l.startsWith("ha " + m.id() + " LEADER term ") && term(l) > n1Term && term(l) < lowest) {
                    lowest = term(l);
                    first = m.id();
                }
            }
        }
        return first;
    }

    /** Whether {@code m} printed that it led. */
    private static boolean led(Path work, Member m) {
        return lines(work, m).stream().anyMatch(l -> l.startsWith("ha " + m.id() + " LEADER "));
    }

    private static long term(String roleLine) {
        Matcher t = Pattern.compile("term (\\d+)").matcher(roleLine);
        return t.find() ? Long.parseLong(t.group(1)) : -1;
    }

    private static List<String> lines(Path work, Member m) {
        try {
            return Files.readAllLines(work.resolve(m.id() + ".out"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String lastRole(Path work, Member m) {
        String last = "";
        for (String l : lines(work, m)) {
            if (l.startsWith("ha ")) {
                last = l;
            }
        }
        return last;
    }

    private JsonNode status(Member m) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(m.url() + "/api/v1/status"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            return null; // not listening yet, or killed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private String text(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Waits until OpenSM's log holds {@code text}. */
    private static void awaitLog(Path log, String text) {
        SystemSupport.awaitTrue(() -> Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text),
                "OpenSM's log " + log + " shows '" + text + "'", WAIT_SECONDS);
    }

    /** The first line of {@code log} holding {@code text} at or after {@code from}. */
    private static String line(String log, String text, int from) {
        String line = nextLine(log, text, from);
        assertThat(line).as("'" + text + "' in OpenSM's log after offset " + from).isNotNull();
        return line;
    }

    /** The first line of {@code log} holding {@code text} at or after {@code from}, or null. */
    private static String nextLine(String log, String text, int from) {
        int at = log.indexOf(text, Math.max(0, from));
        if (at < 0) {
            return null;
        }
        int start = log.lastIndexOf('\n', at) + 1;
        int end = log.indexOf('\n', at);
        return log.substring(start, end < 0 ? log.length() : end);
    }

    /** Milliseconds from {@code t} to the time stamp of OpenSM's log line {@code line} (same day, local time). */
    private static double msAfter(LocalTime t, String line) {
        Matcher m = STAMP.matcher(line);
        assertThat(m.matches()).as("a time stamp in '" + line + "'").isTrue();
        LocalTime at = LocalTime.parse(m.group(1), DateTimeFormatter.ISO_LOCAL_TIME).plusNanos(Long.parseLong(m.group(2)) * 1000);
        return Duration.between(t, at).toNanos() / 1e6;
    }

    private int freePort() throws IOException {
        while (true) {
            try (ServerSocket s = new ServerSocket(0)) {
                if (ports.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
    }
}
