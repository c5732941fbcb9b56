package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The admin API under races (docs/rest-api.md): 8 clients drain, undrain and ask what-ifs (of failures and of a
 * rebalance) at once, a bounded number of times each, on 192 switches (a what-if takes long enough to overlap), while
 * the daemon re-routes for them. Every answer is 2xx, 409 (drained already, not drained), 429 (a what-if or routing
 * under way) or names a cable out of the routed fabric (drained, or undrained and not routed again yet), never a 500,
 * and the daemon logs no ERROR. The answers are then held to what the daemon did: a cable is
 * drained at the end ({@code GET /api/v1/drains}) exactly when its 2xx drains outnumber its 2xx undrains, its
 * {@code DRAINED} and {@code UNDRAINED} events are those answers in turn, a refusal left nothing; the switches hold
 * no route out of either end of a drained cable and routes again out of every other, the routed fabric lacks exactly
 * the drained cables, and after a rebalance every switch holds offline {@code route}'s table of that fabric.
 */
class AdminRacesIT {
    private static final String TOKEN = "3b5d7f9a1c3e5a7c9e1b3d5f7a9c1e3b";
    private static final int CLIENTS = 8;
    private static final int REQUESTS_EACH = 40;
    private static final int SWITCHES = 192;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;

    /** One answer a client got: the call, the cable it named ({@code null} for a what-if of a rebalance), its status. */
    private record Answer(String call, Link cable, int status) {
    }

    @Test
    void racingDrainsAndUndrainsEndAsTheirAnswersSaidInTheDrainedSetTheEventsAndTheTables() throws Exception {
        PgftSpec spec = PgftSpec.parse("PGFT(3;8,8,8;1,8,8;1,1,1)");
        Fabric fabric = PgftGenerator.generate(spec);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        log.start();
        root.addAppender(log);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state, spec)
                .withAdminToken(TOKEN), List.of());
             FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.start();
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == SWITCHES,
                    "the fabric converged");
            String base = "http://127.0.0.1:" + daemon.restAddress().getPort() + "/api/v1/";
            // uplinks of leaves (ports 9-16 of s1-x): drains that the what-if accepts, named by their leaf's end
            List<Link> cables = List.of(uplink(fabric, 0, 9), uplink(fabric, 1, 10), uplink(fabric, 2, 11),
                    uplink(fabric, 3, 12));
            Map<String, String> errors = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
            Map<String, String> samples = new ConcurrentHashMap<>();
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                running.add(clients.submit(() -> {
                    for (int i = 0; i < REQUESTS_EACH; i++) {
                        // each client drains, undrains and asks of every cable, four calls to a cable in turn
                        Link cable = cables.get((client + i / 4) % cables.size());
                        String named = body(cable);
                        String[] call = switch ((client + i) % 4) {
                            case 0 -> new String[] {"drain", named};
                            case 1 -> new String[] {"undrain", named};
                            case 2 -> new String[] {"whatif", "{\"rebalance\":true}"};
                            default -> new String[] {"whatif", "{\"links\":[" + named + "]}"};
                        };
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + call[0]))
                                .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + TOKEN)
                                .POST(HttpRequest.BodyPublishers.ofString(call[1])).build(),
                                HttpResponse.BodyHandlers.ofString());
                        answers.add(new Answer(call[0], call[1].startsWith("{\"rebalance") ? null : cable, r.statusCode()));
                        samples.putIfAbsent(call[0] + " " + r.statusCode(), r.body());
                        if (!expected(call[0], r.statusCode(), r.body())) {
                            errors.putIfAbsent(r.statusCode() + " " + call[0] + " " + call[1], r.body());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(5, TimeUnit.MINUTES);
            }
            Map<String, Integer> counts = new TreeMap<>();
            answers.forEach(a -> counts.merge(a.call() + " " + a.status(), 1, Integer::sum));
            System.out.println("answers by call and status: " + counts + "; the first of each: " + samples);
            assertThat(errors).as("answers other than 2xx, 409, 429 and a cable out of the routed fabric (counts %s)",
                    counts).isEmpty();
            assertThat(answers).as("drains, undrains and what-ifs went through (counts %s)", counts)
                    .anyMatch(a -> a.call().equals("drain") && a.status() / 100 == 2)
                    .anyMatch(a -> a.call().equals("undrain") && a.status() / 100 == 2)
                    .anyMatch(a -> a.call().equals("whatif") && a.status() / 100 == 2);

            // what the answers said: per cable, the 2xx drains and undrains (each 2xx flips it; a refusal changes nothing)
            Map<Link, int[]> done = new HashMap<>();
            cables.forEach(c -> done.put(c, new int[2]));
            for (Answer a : answers) {
                if (a.status() / 100 == 2 && !a.call().equals("whatif")) {
                    done.get(a.cable())[a.call().equals("drain") ? 0 : 1]++;
                }
            }
            Set<Link> drained = new HashSet<>();
            for (Link c : cables) {
                int[] d = done.get(c);
                assertThat(d[0] - d[1]).as("%s: 2xx drains %s minus 2xx undrains %s", c, d[0], d[1]).isBetween(0, 1);
                if (d[0] > d[1]) {
                    drained.add(c);
                }
            }
            System.out.println("drained at the end, by the answers: " + names(drained));

            // the drained set the daemon serves
            Set<String> listed = new TreeSet<>();
            for (JsonNode d : JSON.readTree(text(http, base + "drains"))) {
                listed.add(d.path("element").asText());
            }
            assertThat(listed).as("GET /api/v1/drains against the answers %s", counts).isEqualTo(names(drained));

            // the events: per cable, DRAINED and UNDRAINED in turn, one per 2xx answer
            List<Milestone> events = daemon.milestones(0).get(10, TimeUnit.SECONDS);
            assertThat(events.get(0).seq()).as("the event log kept every event since the start").isEqualTo(1);
            for (Link c : cables) {
                List<Milestone.Kind> kinds = events.stream().filter(e -> (e.kind() == Milestone.Kind.DRAINED
                        || e.kind() == Milestone.Kind.UNDRAINED) && e.message().contains(element(c)))
                        .map(Milestone::kind).toList();
                int[] d = done.get(c);
                assertThat(kinds).as("%s's events", element(c)).hasSize(d[0] + d[1]);
                for (int i = 0; i < kinds.size(); i++) {
                    assertThat(kinds.get(i)).as("%s's event %s of %s", element(c), i, kinds)
                            .isEqualTo(i % 2 == 0 ? Milestone.Kind.DRAINED : Milestone.Kind.UNDRAINED);
                }
            }

            // the tables the switches hold once the last change is routed, refined and installed
            Views.Status settled = Await.value("CONVERGED, refined, every switch in sync", Duration.ofSeconds(120),
                    () -> daemon.status().get(10, TimeUnit.SECONDS), s -> s.state() == DaemonState.CONVERGED
                            && s.switches().connected() == SWITCHES && s.tables().inSync() == SWITCHES
                            && !s.routing().refinePending());
            assertThat(settled.drained()).isEqualTo(new Views.Drains(0, drained.size()));
            for (Link c : cables) {
                if (drained.contains(c)) {
                    assertThat(sim.agent(c.a()).table().entries()).as("%s: routes out of the drained cable", element(c))
                            .doesNotContain((byte) c.aPort());
                    assertThat(sim.agent(c.b()).table().entries()).as("%s: routes into the drained cable from its spine",
                            element(c)).doesNotContain((byte) c.bPort());
                } else {
                    assertThat(sim.agent(c.a()).table().entries()).as("%s: routes out of the cable, not drained",
                            element(c)).contains((byte) c.aPort());
                    assertThat(sim.agent(c.b()).table().entries()).as("%s: routes down the cable, not drained",
                            element(c)).contains((byte) c.bPort());
                }
            }
            Fabric expected = fabric.withoutLinks(drained);
            assertThat(normalized(daemon.topology().get(10, TimeUnit.SECONDS).links())).as("the routed fabric's cables")
                    .isEqualTo(normalized(expected.links()));

            // routed in full from scratch, the fabric in force gives every switch offline route's table of it
            long rebalanced = daemon.rebalance().get(120, TimeUnit.SECONDS).routingVersion();
            Await.value("the rebalance installed", Duration.ofSeconds(120), () -> daemon.status().get(10, TimeUnit.SECONDS),
                    s -> s.state() == DaemonState.CONVERGED && s.routing().version() >= rebalanced
                            && s.tables().inSync() == SWITCHES);
            ForwardingTables offline = SystemSupport.routeCommand(expected, Files.createDirectories(state.resolve("offline")),
                    "without-drained");
            SystemSupport.assertAgentsHold(sim, offline, rebalanced);

            assertThat(log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                    .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).toList()).as("ERROR lines").isEmpty();
        } finally {
            clients.shutdownNow();
            root.detachAppender(log);
        }
    }

    /**
     * Whether a race may give this answer: 2xx, 409 (drained already, not drained), 429 (a what-if or routing under
     * way), and a cable out of the routed fabric, as docs/rest-api.md has it: drained, or undrained and not routed
     * again yet (a what-if of it 400, a drain of it 404, both saying no cable is plugged into the port). Never a 500.
     */
    private static boolean expected(String call, int status, String body) {
        boolean outOfTheRoutedFabric = body.contains("no cable is plugged into port");
        return status / 100 == 2 || status == 409 || status == 429
                || status == 400 && call.equals("whatif") && outOfTheRoutedFabric
                || status == 404 && call.equals("drain") && outOfTheRoutedFabric;
    }

    /** The cable at port {@code port} of leaf {@code index} (level 1), its leaf's end first. */
    private static Link uplink(Fabric fabric, int index, int port) {
        long leaf = PgftGenerator.switchGuid(1, index);
        for (Link l : fabric.links()) {
            if (l.a() == leaf && l.aPort() == port) {
                return l;
            }
            if (l.b() == leaf && l.bPort() == port) {
                return new Link(l.b(), l.bPort(), l.a(), l.aPort());
            }
        }
        throw new IllegalArgumentException("no cable at " + Guids.format(leaf) + ":" + port);
    }

    /** The drain body naming {@code cable} by its leaf's end. */
    private static String body(Link cable) {
        return "{\"guid\":\"" + Guids.format(cable.a()) + "\",\"port\":" + cable.aPort() + "}";
    }

    /** How {@code GET /api/v1/drains} and the events name {@code cable}, drained by its leaf's end. */
    private static String element(Link cable) {
        return "link " + Guids.format(cable.a()) + ":" + cable.aPort();
    }

    private static Set<String> names(Set<Link> cables) {
        Set<String> out = new TreeSet<>();
        cables.forEach(c -> out.add(element(c)));
        return out;
    }

    private static Set<Link> normalized(List<Link> links) {
        Set<Link> out = new HashSet<>();
        links.forEach(l -> out.add(l.normalized()));
        return out;
    }

    private static String text(HttpClient http, String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return r.body();
    }
}
