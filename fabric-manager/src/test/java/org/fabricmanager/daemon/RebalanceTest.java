package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.assertAgentsHold;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rebalance, with the daemon ({@code routing.onFault: repair}, Dmodc) and a simulated fabric in one JVM: the what-if
 * of a cable's failure gives the repair and churn the daemon then installs for that very fault; the what-if of a
 * rebalance and {@code GET /api/v1/routing} give how far the repair is from a full Dmodc; {@code POST
 * /api/v1/routing/rebalance} is refused without the admin token, and with it installs exactly a full Dmodc's tables
 * of the degraded fabric, pushing only the blocks that differ from the repair, with a {@code REBALANCED} event; with
 * {@code routing.rebalance.quietPeriod} the daemon does the same by itself once the repair has stayed quiet (the policy
 * itself, on virtual time: {@link QuietRebalanceTest}).
 */
class RebalanceTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)");
    private static final String TOKEN = "rebalance-token-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;

    @Test
    void aRepairedRoutingBecomesAFullDmodcAndOnlyTheChangedBlocksArePushed() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, SPEC)
                .withEngine(DmodcEngine.NAME).withAdminToken(TOKEN), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()));
        int switches = fabric.switches().size();
        try (FabricSimulator sim = new FabricSimulator(fabric, DaemonSimulationTest.agentSettings(daemon), null, 1,
                null, 1);
             DmodcEngine engine = new DmodcEngine(1)) {
            sim.start();
            await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == switches
                    && st.tables().inSync() == switches, "first convergence");
            ForwardingTables v1 = engine.compute(daemon.api().topology().get().index()).result().tables();
            assertThat(json(rest(daemon, "/api/v1/routing", null, null), 200).path("fromFull").asText())
                    .isEqualTo("full");

            // the what-if of a cable's failure: the repair the daemon installs for that fault, and its churn
            long l2 = PgftGenerator.switchGuid(2, 0);
            int up = fabric.switchByGuid(l2).orElseThrow().ports();
            JsonNode whatIf = json(rest(daemon, "/api/v1/whatif", "{\"links\":[{\"guid\":\"" + Guids.format(l2)
                    + "\",\"port\":" + up + "}]}", TOKEN), 200);
            assertThat(whatIf.path("repaired").asBoolean()).isTrue();
            sim.linkDown(l2, up);
            Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 2
                    && st.tables().inSync() == switches, "repair");
            assertThat(s.routing().repaired()).isTrue();
            assertThat(whatIf.path("changedEntries").asLong()).as("what-if churn = the daemon's")
                    .isEqualTo(s.routing().changedEntries()).isPositive();
            assertThat(whatIf.path("minimumEntries").asLong()).isEqualTo(s.routing().minimumEntries());
            Fabric degraded = daemon.api().topology().get();
            ForwardingTables v2 = engine.repair(v1, degraded.index()).result().tables();
            ForwardingTables full = engine.compute(degraded.index()).result().tables();
            assertAgentsHold(sim, v2, 2, v1);
            long differ = differingEntries(v2, full);
            long blocks = changedBlocks(v2, full);
            assertThat(differ).as("the repair is not a full Dmodc here").isPositive();

            // refused without the admin token, or with another; only POST
            assertThat(rest(daemon, "/api/v1/routing/rebalance", "", null).statusCode()).isEqualTo(401);
            assertThat(rest(daemon, "/api/v1/routing/rebalance", "", "wrong").statusCode()).isEqualTo(403);
            assertThat(rest(daemon, "/api/v1/routing/rebalance", null, null).statusCode()).isEqualTo(405);

            // what a rebalance would change and gain, and the same in GET /api/v1/routing
            JsonNode estimate = json(rest(daemon, "/api/v1/whatif", "{\"rebalance\":true}", TOKEN), 200);
            assertThat(estimate.path("routingVersion").asLong()).isEqualTo(2);
            assertThat(estimate.path("repaired").asBoolean()).isTrue();
            assertThat(estimate.path("changedEntries").asLong()).isEqualTo(differ);
            assertThat(estimate.path("changedBlocks").asLong()).isEqualTo(blocks);
            assertThat(estimate.path("before").has("all2all")).isTrue();
            assertThat(estimate.path("after").path("shift").path("max").isNumber()).isTrue();
            JsonNode routing = json(rest(daemon, "/api/v1/routing", null, null), 200);
            assertThat(routing.path("fromFull").asText()).isEqualTo("known");
            assertThat(routing.path("estimate").path("changedEntries").asLong()).isEqualTo(differ);
            assertThat(routing.path("routing").path("repaired").asBoolean()).isTrue();
            assertThat(daemon.api().status().get().routing().version()).as("a what-if changes nothing").isEqualTo(2);

            // the rebalance: a full Dmodc's tables, only the blocks that differ from the repair pushed
            long since = daemon.api().milestones(0).get().size();
            JsonNode done = json(rest(daemon, "/api/v1/routing/rebalance", "", TOKEN), 200);
            assertThat(done.path("routingVersion").asLong()).isEqualTo(3);
            assertThat(done.path("previousVersion").asLong()).isEqualTo(2);
            assertThat(done.path("replacedRepair").asBoolean()).isTrue();
            assertThat(done.path("changedEntries").asLong()).isEqualTo(differ);
            assertThat(done.path("changedBlocks").asLong()).isEqualTo(blocks);
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 3
                    && st.tables().inSync() == switches, "rebalance");
            assertAgentsHold(sim, full, 3, v2);
            assertThat(s.routing().repaired()).isFalse();
            assertThat(s.push().blocks()).as("only the changed blocks are pushed").isEqualTo(blocks);
            Milestone event = Await.value("the REBALANCED event", () -> daemon.api().milestones(since).get(5, TimeUnit.SECONDS)
                    .stream().filter(m -> m.kind() == Milestone.Kind.REBALANCED).findFirst().orElse(null), m -> m != null);
            assertThat(event.details()).containsEntry("reason", "operator").containsEntry("changedBlocks", blocks);
            assertThat(((Number) event.details().get("changedEntries")).longValue()).isEqualTo(differ);
            assertThat(json(rest(daemon, "/api/v1/routing", null, null), 200).path("fromFull").asText())
                    .isEqualTo("full");
        } finally {
            daemon.close();
        }
    }

    @Test
    void theQuietPeriodRebalancesARepairByItself() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, SPEC)
                .withEngine(DmodcEngine.NAME).withQuietPeriod("1s"), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()));
        int switches = fabric.switches().size();
        try (FabricSimulator sim = new FabricSimulator(fabric, DaemonSimulationTest.agentSettings(daemon), null, 1,
                null, 1);
             DmodcEngine engine = new DmodcEngine(1)) {
            sim.start();
            await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == switches
                    && st.tables().inSync() == switches, "first convergence");
            long l2 = PgftGenerator.switchGuid(2, 0);
            sim.linkDown(l2, fabric.switchByGuid(l2).orElseThrow().ports());
            // the repair (v2), then, a quiet second later, the full routing of the same fabric (v3)
            Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 3
                    && st.tables().inSync() == switches, "the quiet period's rebalance");
            assertThat(s.routing().repaired()).isFalse();
            ForwardingTables full = engine.compute(daemon.api().topology().get().index()).result().tables();
            assertAgentsHold(sim, full, 3, engine.repair(engine.compute(fabric.index()).result().tables(),
                    daemon.api().topology().get().index()).result().tables());
            List<Milestone> rebalanced = daemon.api().milestones(0).get(5, TimeUnit.SECONDS).stream()
                    .filter(m -> m.kind() == Milestone.Kind.REBALANCED).toList();
            assertThat(rebalanced).hasSize(1);
            assertThat(rebalanced.get(0).details()).containsEntry("reason", "quiet period of 1s")
                    .containsEntry("previousVersion", 2L);
        } finally {
            daemon.close();
        }
    }

    /**
     * A repair whose refinement is due is not estimated by itself (the refinement routes the fabric in full too, and
     * replaces it): it is estimated on request; the refined tables are estimated after their quality measurement.
     */
    @Test
    void aRepairAboutToBeRefinedIsEstimatedOnRequestAndItsRefinementInTheBackground() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, SPEC)
                .withEngine(HomeDmodcEngine.NAME).withRefineAfter("3s"), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()));
        int switches = fabric.switches().size();
        try (FabricSimulator sim = new FabricSimulator(fabric, DaemonSimulationTest.agentSettings(daemon), null, 1,
                null, 1)) {
            sim.start();
            await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == switches
                    && st.tables().inSync() == switches, "first convergence");
            long l2 = PgftGenerator.switchGuid(2, 0);
            sim.linkDown(l2, fabric.switchByGuid(l2).orElseThrow().ports());
            await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 2
                    && st.tables().inSync() == switches, "the repair");
            // its quality measured: an estimate, had one been due, would have started then
            Await.value("the repair's quality", () -> daemon.api().routingQuality().get(5, TimeUnit.SECONDS).quality(),
                    q -> q != null && q.routingVersion() == 2);
            JsonNode routing = json(rest(daemon, "/api/v1/routing", null, null), 200);
            assertThat(routing.path("routing").path("version").asLong()).as("still the repair").isEqualTo(2);
            assertThat(routing.path("routing").path("refinePending").asBoolean()).isTrue();
            assertThat(routing.path("fromFull").asText()).isEqualTo("onRequest");

            await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() == 3
                    && !st.routing().refinePending(), "the refinement");
            JsonNode refined = Await.value("the refined tables' estimate", () -> json(rest(daemon, "/api/v1/routing",
                    null, null), 200), r -> r.path("fromFull").asText().equals("known"));
            assertThat(refined.path("routing").path("version").asLong()).isEqualTo(3);
            // the refined tables take the full routing's ports where the repair moved an entry; the cable out left
            // its level-1 switch weak, and the detours of its homes at other pods' leaves (entries the repair did not
            // move) come with a full routing only: what a rebalance would change, as worked out offline
            long detours;
            try (HomeDmodcEngine engine = new HomeDmodcEngine(1)) {
                FabricIndex degraded = daemon.api().topology().get().index();
                TableRepairer repairer = engine.repairer().orElseThrow();
                ForwardingTables v1 = engine.route(fabric.index()).tables();
                RoutedSnapshot repaired = repairer.repair(engine.routeSnapshot(fabric.index()), degraded);
                ForwardingTables mixed = repairer.refine(v1, repaired).orElseThrow().result().tables();
                detours = differingEntries(mixed, engine.route(degraded).tables());
            }
            assertThat(detours).as("entries only a full routing changes").isPositive();
            assertThat(refined.path("estimate").path("routingVersion").asLong()).isEqualTo(3);
            assertThat(refined.path("estimate").path("changedEntries").asLong()).isEqualTo(detours);
        } finally {
            daemon.close();
        }
    }

    private static HttpResponse<String> rest(FabricManagerDaemon daemon, String path, String body, String token)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(daemon.restUrl() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpRequest request = body == null ? b.GET().build() : b.POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response, int status) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return JSON.readTree(response.body());
    }

    /** Entries that differ between the same switches' rows of {@code a} and {@code b}. */
    static long differingEntries(ForwardingTables a, ForwardingTables b) {
        long n = 0;
        for (int s = 0; s < a.switchCount(); s++) {
            int row = DaemonSimulationTest.rowOf(b, a.switchGuid(s));
            for (int d = 0; d < a.destinationCount(); d++) {
                n += a.port(s, d) == b.port(row, d) ? 0 : 1;
            }
        }
        return n;
    }

    /** The 64-entry blocks that differ between the same switches' rows of {@code a} and {@code b}. */
    static long changedBlocks(ForwardingTables a, ForwardingTables b) {
        long blocks = 0;
        for (int s = 0; s < a.switchCount(); s++) {
            int row = DaemonSimulationTest.rowOf(b, a.switchGuid(s));
            for (int from = 0; from < a.destinationCount(); from += 64) {
                int to = Math.min(a.destinationCount(), from + 64);
                blocks += a.rangeEquals(s, b, row, from, to) ? 0 : 1;
            }
        }
        return blocks;
    }
}
