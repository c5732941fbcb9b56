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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.agent.SwitchAgent;
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
 * under way) or, for the what-if of a cable drained at that moment, 400 (not in the routed fabric), never a 500, and
 * the daemon logs no ERROR. The answers are the truth: a cable's accepted drains and
 * undrains alternate (a drain of a drained cable, an undrain of one that is not, are refused), so the cables with one
 * more accepted drain than undrain are exactly those {@code GET /api/v1/drains} lists, a refused call changed nothing,
 * and the tables the simulated switches hold send nothing out of either end of a drained cable and use every other.
 * Each accepted call is its cable's {@code DRAINED} or {@code UNDRAINED} event, in turn; the routed fabric lacks
 * exactly the drained cables, and once a rebalance routed it from scratch every switch holds offline {@code route}'s
 * table of it.
 */
class AdminRacesIT {
    private static final String TOKEN = "3b5d7f9a1c3e5a7c9e1b3d5f7a9c1e3b";
    private static final int CLIENTS = 8;
    private static final int REQUESTS_EACH = 40;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;

    /** A cable as the calls name it: a leaf's uplink port. */
    private record Cable(long guid, int port) implements Comparable<Cable> {
        String body() {
            return "{\"guid\":\"" + Guids.format(guid) + "\",\"port\":" + port + "}";
        }

        @Override
        public int compareTo(Cable o) {
            return guid != o.guid ? Long.compare(guid, o.guid) : Integer.compare(port, o.port);
        }

        @Override
        public String toString() {
            return Guids.format(guid) + ":" + port;
        }
    }

    @Test
    void racingDrainsUndrainsAndWhatIfsNeverFailAndTheDrainedSetAndTablesFollowTheAnswers()
            throws Exception {
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
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 192,
                    "the fabric converged");
            String base = "http://127.0.0.1:" + daemon.restAddress().getPort() + "/api/v1/";
            // uplinks of leaves (ports 9-16 of s1-x): drains that the what-if accepts
            List<Cable> cables = List.of(cable(0, 9), cable(1, 10), cable(2, 11), cable(3, 12));
            Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
            Map<String, String> errors = new ConcurrentHashMap<>();
            // per cable, its accepted drains and undrains (index 0 and 1)
            Map<Cable, AtomicInteger[]> accepted = new ConcurrentHashMap<>();
            cables.forEach(c -> accepted.put(c, new AtomicInteger[] {new AtomicInteger(), new AtomicInteger()}));
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                running.add(clients.submit(() -> {
                    for (int i = 0; i < REQUESTS_EACH; i++) {
                        // each client makes four calls on one cable, then on the next: every cable gets drains,
                        // undrains and what-ifs from several clients at once; the first two cables' fours end with
                        // the drain, the others' with the undrain, so that the race likely ends with both kinds
                        int cableIndex = (client + i / 4) % cables.size();
                        Cable cable = cables.get(cableIndex);
                        int step = i % 4;
                        String[] call = switch (cableIndex < 2 ? 3 - step : step) {
                            case 0 -> new String[] {"drain", cable.body()};
                            case 1 -> new String[] {"whatif", "{\"rebalance\":true}"};
                            case 2 -> new String[] {"whatif", "{\"links\":[" + cable.body() + "]}"};
                            default -> new String[] {"undrain", cable.body()};
                        };
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + call[0]))
                                .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + TOKEN)
                                .POST(HttpRequest.BodyPublishers.ofString(call[1])).build(),
                                HttpResponse.BodyHandlers.ofString());
                        statuses.computeIfAbsent(r.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                        if (r.statusCode() / 100 == 2 && !call[0].equals("whatif")) {
                            accepted.get(cable)[call[0].equals("drain") ? 0 : 1].incrementAndGet();
                        }
                        // a what-if of a cable's failure is 400 while that cable is drained: not in the routed fabric
                        boolean cableWhatIf = call[1].startsWith("{\"links\"");
                        if (r.statusCode() >= 500 || r.statusCode() == 400 && !cableWhatIf || r.statusCode() == 404) {
                            errors.putIfAbsent(r.statusCode() + " " + call[0] + " " + call[1], r.body());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(5, TimeUnit.MINUTES);
            }
            Map<Integer, Integer> counts = new TreeMap<>();
            statuses.forEach((k, v) -> counts.put(k, v.get()));
            Map<Cable, String> tally = new TreeMap<>();
            accepted.forEach((c, n) -> tally.put(c, n[0].get() + " drains, " + n[1].get() + " undrains accepted"));
            System.out.println("answers by status: " + counts + "; " + tally);
            assertThat(errors).as("answers other than 2xx, 409 and 429 (counts %s)", counts).isEmpty();
            assertThat(counts.keySet()).as("statuses").allMatch(s -> s / 100 == 2 || s == 400 || s == 409 || s == 429);
            assertThat(counts).as("some drains and what-ifs went through").containsKey(200);

            // the answers given: accepted drains and undrains of a cable alternate from undrained
            Set<Cable> drainedByAnswers = new TreeSet<>();
            for (Cable c : cables) {
                int drains = accepted.get(c)[0].get();
                int undrains = accepted.get(c)[1].get();
                assertThat(drains - undrains).as("accepted drains minus undrains of %s (%s)", c, tally).isBetween(0, 1);
                if (drains > undrains) {
                    drainedByAnswers.add(c);
                }
            }
            System.out.println("drained after the race, by the answers: " + drainedByAnswers);
            assertThat(accepted.values().stream().mapToInt(n -> n[0].get()).sum()).as("accepted drains (%s)", tally)
                    .isPositive();
            assertThat(drained(http, base)).as("GET /api/v1/drains after the race, against the answers (%s)", tally)
                    .isEqualTo(drainedByAnswers);

            // the switches' tables, read back from the simulated switches once the last re-route is in sync
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.tables().inSync() == 192,
                    "every switch in sync after the race");
            Map<String, Integer> expectedUse = new TreeMap<>();
            for (Cable c : cables) {
                boolean drained = drainedByAnswers.contains(c);
                expectedUse.put(c + (drained ? " drained" : " in use"), drained ? 0 : 1);
            }
            Await.value("the simulated switches' tables route around the drained cables " + drainedByAnswers
                    + " and through the others", Duration.ofSeconds(60), () -> use(sim, fabric, cables, drainedByAnswers),
                    use -> use.equals(expectedUse));

            // each accepted drain and undrain is its cable's DRAINED or UNDRAINED event, in turn from DRAINED
            List<Milestone> events = daemon.api().milestones(0).get(10, TimeUnit.SECONDS);
            assertThat(events.get(0).seq()).as("the event log kept every event since the start").isEqualTo(1);
            for (Cable c : cables) {
                List<Milestone.Kind> kinds = events.stream().filter(e -> (e.kind() == Milestone.Kind.DRAINED
                        || e.kind() == Milestone.Kind.UNDRAINED) && e.message().startsWith("link " + c + " ("))
                        .map(Milestone::kind).toList();
                assertThat(kinds).as("%s's events (%s)", c, tally)
                        .hasSize(accepted.get(c)[0].get() + accepted.get(c)[1].get());
                for (int i = 0; i < kinds.size(); i++) {
                    assertThat(kinds.get(i)).as("%s's event %s of %s", c, i, kinds)
                            .isEqualTo(i % 2 == 0 ? Milestone.Kind.DRAINED : Milestone.Kind.UNDRAINED);
                }
            }

            // the fabric in force lacks exactly the drained cables: routed again in full from scratch (a rebalance),
            // every switch holds offline route's table of that fabric
            Fabric expected = fabric.withoutLinks(drainedByAnswers.stream().map(c -> link(fabric, c)).toList());
            Views.Status quiet = SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && !s.routing().refinePending() && s.tables().inSync() == 192, "the race's last change refined");
            assertThat(normalized(daemon.api().topology().get(10, TimeUnit.SECONDS).links())).as("the routed fabric's cables")
                    .isEqualTo(normalized(expected.links()));
            long rebalanced = daemon.api().rebalance().get(120, TimeUnit.SECONDS).routingVersion();
            assertThat(rebalanced).isGreaterThan(quiet.routing().version());
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.routing().version() >= rebalanced
                    && s.tables().inSync() == 192, "the rebalance installed");
            ForwardingTables offline = SystemSupport.routeCommand(expected,
                    Files.createDirectories(state.resolve("offline")), "without-drained");
            SystemSupport.assertAgentsHold(sim, offline, rebalanced);
            assertThat(log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                    .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).toList()).as("ERROR lines").isEmpty();
        } finally {
            clients.shutdownNow();
            root.detachAppender(log);
        }
    }

    /**
     * Per cable, 0 when neither end's table sends an entry out of it, 1 when both ends do, else -1, keyed as the
     * expectation is ("GUID:P drained" or "GUID:P in use", by {@code drained}).
     */
    private static Map<String, Integer> use(FabricSimulator sim, Fabric fabric, List<Cable> cables, Set<Cable> drained) {
        Map<String, Integer> out = new TreeMap<>();
        for (Cable c : cables) {
            Link link = fabric.links().stream().filter(l -> l.touches(c.guid(), c.port())).findFirst().orElseThrow();
            int a = entriesOut(sim.agent(link.a()), link.aPort());
            int b = entriesOut(sim.agent(link.b()), link.bPort());
            out.put(c + (drained.contains(c) ? " drained" : " in use"), a == 0 && b == 0 ? 0 : a > 0 && b > 0 ? 1 : -1);
        }
        return out;
    }

    /** The link of {@code fabric} at cable {@code c}'s end. */
    private static Link link(Fabric fabric, Cable c) {
        return fabric.links().stream().filter(l -> l.touches(c.guid(), c.port())).findFirst().orElseThrow();
    }

    private static Set<Link> normalized(List<Link> links) {
        Set<Link> out = new HashSet<>();
        links.forEach(l -> out.add(l.normalized()));
        return out;
    }

    /** How many entries of the table {@code agent} holds send traffic out of {@code port}. */
    private static int entriesOut(SwitchAgent agent, int port) {
        int n = 0;
        for (byte p : agent.table().entries()) {
            n += (p & 0xff) == port ? 1 : 0;
        }
        return n;
    }

    /** The cables {@code GET /api/v1/drains} lists. */
    private static Set<Cable> drained(HttpClient http, String base) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "drains")).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET /api/v1/drains: %s", r.body()).isEqualTo(200);
        Set<Cable> out = new TreeSet<>();
        for (JsonNode d : JSON.readTree(r.body())) {
            assertThat(d.path("port").isNull()).as("a switch drained: %s", d).isFalse();
            out.add(new Cable(Guids.parse(d.path("guid").asText()), d.path("port").asInt()));
        }
        return out;
    }

    /** The cable at port {@code port} of leaf {@code index} (an uplink for ports 9-16). */
    private static Cable cable(int index, int port) {
        return new Cable(PgftGenerator.switchGuid(1, index), port);
    }
}
