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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.testing.Await;

/**
 * Three {@code run} members on Raft, each with OpenSM's plug-in socket, as processes for {@link OpenSmStandbysIT}:
 * their configurations, their role lines ({@code NAME.out}) and logs ({@code NAME.err}), their REST, and OpenSM's
 * logs beside them.
 */
final class OpenSmStandbyGroup {
    /** Every wait on the group or on OpenSM: bounds for a loaded 2-core machine, not measures. */
    static final int WAIT_SECONDS = 120;
    /** A member's log time stamp: "08:52:52.223 WARN  OpenSmStandby - ...". */
    private static final Pattern MEMBER_STAMP = Pattern.compile("^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*");
    /** OpenSM's log time stamp: "Nov 27 07:11:54 064187 [326D96C0] 0x02 -> text". */
    private static final Pattern OPENSM_STAMP = Pattern.compile("^\\w{3} +\\d+ (\\d\\d:\\d\\d:\\d\\d) (\\d{6}) .*");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One member: its id, ports, configuration and OpenSM socket. */
    record Member(String id, int raftPort, int southboundPort, int restPort, Path config, Path socket) {
        String url() {
            return "http://127.0.0.1:" + restPort;
        }
    }

    private final Path work;
    private final List<Member> members = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Members n1, n2 and n3 in {@code work}, on free loopback ports. */
    OpenSmStandbyGroup(Path work) throws IOException {
        this.work = work;
        Set<Integer> ports = new HashSet<>();
        for (int i = 1; i <= 3; i++) {
            String id = "n" + i;
            members.add(new Member(id, freePort(ports), freePort(ports), freePort(ports), work.resolve(id + ".yaml"),
                    work.resolve(id).resolve("opensm.sock")));
        }
    }

    List<Member> members() {
        return members;
    }

    Member member(String id) {
        return members.stream().filter(m -> m.id().equals(id)).findFirst().orElseThrow();
    }

    /**
     * Writes each member's configuration, with {@code ha.electionTimeoutMs} from {@code electionTimeoutsMs} where
     * given (else the default), and starts it in {@code processes}.
     */
    Map<String, Process> start(FabricProcesses processes, Map<String, Integer> electionTimeoutsMs) throws IOException {
        Map<String, Process> started = new HashMap<>();
        for (Member m : members) {
            writeConfig(m, electionTimeoutsMs.get(m.id()));
            started.put(m.id(), processes.startMember(m.id(), m.config(), m.southboundPort(), m.restPort(), "-Xmx256m"));
        }
        return started;
    }

    private void writeConfig(Member m, Integer electionTimeoutMs) throws IOException {
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
                """.formatted(m.config().resolveSibling("state-" + m.id()), m.socket(), m.id(), peers)
                + (electionTimeoutMs == null ? "" : "  electionTimeoutMs: " + electionTimeoutMs + "\n"));
    }

    /** The member whose last role line says ACTIVE (its manager runs). */
    Member awaitActive() {
        return Await.value("an active manager", Duration.ofSeconds(WAIT_SECONDS), () -> members.stream()
                .filter(m -> lastRole(m).contains(" ACTIVE ")).findFirst().orElse(null), m -> m != null);
    }

    /**
     * Waits until a member leads in a term above {@code term} and its manager runs (its last role line says ACTIVE);
     * returns it. Which member wins is Raft's and the campaign order's choice, not the test's: the first after the
     * gone leader campaigns at once, the next one 300 ms after its own verdict if no election began by then, which
     * a loaded host can make happen.
     */
    Member awaitActiveAfter(long term) {
        Await.value("a member active in a term above " + term + " (last seen: the members' last roles; see " + work + ")",
                Duration.ofSeconds(WAIT_SECONDS), this::roles, roles -> activeAfter(term) != null);
        return activeAfter(term);
    }

    private Member activeAfter(long term) {
        return members.stream().filter(m -> lastRole(m).contains(" ACTIVE ") && lastTerm(m) > term).findFirst()
                .orElse(null);
    }

    /** {@code m} CONVERGED with every switch of OpenSM's subnet in sync; its status. */
    JsonNode awaitConverged(Member m, int switches) {
        try {
            return Await.value(m.id() + " active and CONVERGED on " + switches + " switches", Duration.ofSeconds(WAIT_SECONDS),
                    () -> status(m), s -> s != null && "CONVERGED".equals(s.path("state").asText())
                            && s.at("/switches/connected").asInt() == switches && s.at("/tables/inSync").asInt() == switches);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last roles " + roles() + "; see " + work, e);
        }
    }

    private String roles() {
        StringBuilder roles = new StringBuilder();
        for (Member each : members) {
            roles.append(each.id()).append(": '").append(lastRole(each)).append("'; ");
        }
        return roles.toString();
    }

    /** Whether {@code m} printed that it led. */
    boolean led(Member m) {
        return roleLines(m).stream().anyMatch(l -> l.startsWith("ha " + m.id() + " LEADER "));
    }

    /** The term of {@code m}'s last role line. */
    long lastTerm(Member m) {
        return term(lastRole(m));
    }

    private static long term(String roleLine) {
        Matcher t = Pattern.compile("term (\\d+)").matcher(roleLine);
        return t.find() ? Long.parseLong(t.group(1)) : -1;
    }

    private List<String> roleLines(Member m) {
        try {
            return Files.readAllLines(work.resolve(m.id() + ".out"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of();
        }
    }

    private String lastRole(Member m) {
        String last = "";
        for (String l : roleLines(m)) {
            if (l.startsWith("ha ")) {
                last = l;
            }
        }
        return last;
    }

    /** {@code m}'s log lines ({@code NAME.err}) that hold {@code text}. */
    List<String> logLines(Member m, String text) throws IOException {
        return Files.readAllLines(work.resolve(m.id() + ".err"), StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains(text)).toList();
    }

    /** When {@code m} first logged a line holding {@code text}, waiting for it. */
    LocalTime awaitLogged(Member m, String text) {
        String line = Await.value(m.id() + " logs '" + text + "'", Duration.ofSeconds(WAIT_SECONDS),
                () -> logLines(m, text).stream().findFirst().orElse(null), l -> l != null);
        Matcher t = MEMBER_STAMP.matcher(line);
        assertThat(t.matches()).as("a time stamp in '" + line + "'").isTrue();
        return LocalTime.parse(t.group(1));
    }

    JsonNode status(Member m) {
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

    /** {@code m}'s events ({@code GET /api/v1/events?since=0}). */
    String events(Member m) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(m.url() + "/api/v1/events?since=0"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * {@code m}'s count of OpenSM routing passes and leadership transfers of {@code outcome} ({@code requested},
     * {@code done}, {@code failed}, {@code held}), as its {@code /metrics} gives it in
     * {@code fabric_ha_opensm_transfers_total}.
     */
    double transfers(Member m, String outcome) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(m.url() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("%s's /metrics", m.id()).isEqualTo(200);
        Matcher c = Pattern.compile("(?m)^fabric_ha_opensm_transfers_total\\{[^}]*outcome=\"" + outcome
                + "\"[^}]*} (\\S+)$").matcher(r.body());
        assertThat(c.find()).as("%s's fabric_ha_opensm_transfers_total{outcome=\"%s\"}", m.id(), outcome).isTrue();
        return Double.parseDouble(c.group(1));
    }

    /** Waits until OpenSM's log holds {@code text}. */
    static void awaitOpenSmLog(Path log, String text) {
        SystemSupport.awaitTrue(() -> Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text),
                "OpenSM's log " + log + " shows '" + text + "'", WAIT_SECONDS);
    }

    /** The first line of OpenSM's {@code log} holding {@code text} at or after {@code from}. */
    static String line(String log, String text, int from) {
        String line = nextLine(log, text, from);
        assertThat(line).as("'" + text + "' in OpenSM's log after offset " + from).isNotNull();
        return line;
    }

    /** The first line of OpenSM's {@code log} holding {@code text} at or after {@code from}, or null. */
    static String nextLine(String log, String text, int from) {
        int at = log.indexOf(text, Math.max(0, from));
        if (at < 0) {
            return null;
        }
        int start = log.lastIndexOf('\n', at) + 1;
        int end = log.indexOf('\n', at);
        return log.substring(start, end < 0 ? log.length() : end);
    }

    /** The time stamp of OpenSM's log line {@code line} (local time). */
    static LocalTime openSmTime(String line) {
        Matcher m = OPENSM_STAMP.matcher(line);
        assertThat(m.matches()).as("a time stamp in '" + line + "'").isTrue();
        return LocalTime.parse(m.group(1), DateTimeFormatter.ISO_LOCAL_TIME).plusNanos(Long.parseLong(m.group(2)) * 1000);
    }

    /** Milliseconds from {@code t} to {@code then} (the same day). */
    static double msBetween(LocalTime t, LocalTime then) {
        return Duration.between(t, then).toNanos() / 1e6;
    }

    private static int freePort(Set<Integer> taken) throws IOException {
        while (true) {
            try (ServerSocket s = new ServerSocket(0)) {
                if (taken.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
    }
}
