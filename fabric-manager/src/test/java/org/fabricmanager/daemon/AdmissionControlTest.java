package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.daemon.store.IndexMapStore;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission control on a running daemon: a switch outside the expected fabric that claims an existing
 * node is held pending and changes nothing (no table, no index) until an admin admits it; admitted, it
 * enters the fabric, and the node both claim goes to neither.
 */
class AdmissionControlTest {
    @TempDir
    Path state;

    @Test
    void anUnknownSwitchWaitsChangesNothingAndEntersOnceAdmitted() throws Exception {
        Fabric fabric = PgftGenerator.generate(SPEC);
        EndNode victim = fabric.nodes().get(0);
        long rogue = 0x0bad0000000000aaL;
        // a switch the expected PGFT does not know, cabled (it says) to a node that already has a leaf
        Fabric rogueFabric = new Fabric(null, List.of(new FabricSwitch(rogue, "rogue", 4)), List.of(victim),
                List.of(new Link(rogue, 1, victim.guid(), 1)));
        FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, SPEC)
                .withAdminToken("t0ken"), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        AgentSettings settings = DaemonSimulationTest.agentSettings(daemon);
        try (FabricSimulator sim = new FabricSimulator(fabric, settings, null, 1, null, 1);
             FabricSimulator rogueSim = new FabricSimulator(rogueFabric, settings, null, 1, null, 2)) {
            sim.start();
            Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED, "convergence");
            long version = s.routing().version();
            ForwardingTables before = new HopTestEngine().route(daemon.api().topology().get().index()).tables();
            String indices = Files.readString(state.resolve(IndexMapStore.FILE));

            rogueSim.start();
            awaitPending(daemon, rogue);
            // a change would have scheduled a re-route on the control thread in the very event that held the switch
            // pending (state ROUTING at once); this status is queued after that event
            s = daemon.api().status().get(5, TimeUnit.SECONDS);
            assertThat(s.state()).as("no re-route scheduled for a pending switch").isEqualTo(DaemonState.CONVERGED);
            assertThat(s.routing().version()).as("no re-route for a pending switch").isEqualTo(version);
            assertThat(s.switches().connected()).isEqualTo(fabric.switches().size());
            assertThat(daemon.api().topology().get().nodeByGuid(victim.guid()).orElseThrow().index()).isEqualTo(victim.index());
            assertThat(daemon.api().lft(rogue).get()).as("no table for it").isNull();
            assertThat(Files.readString(state.resolve(IndexMapStore.FILE))).as("nothing new in guid2index").isEqualTo(indices);
            DaemonSimulationTest.assertAgentsHold(sim, before, version);
            assertThat(rogueSim.agent(rogue).table().version()).isZero();
            Views.PendingSwitch p = daemon.api().pendingSwitches().get().get(0);
            assertThat(p.reason()).contains("outside the expected");

            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            String base = daemon.restUrl() + "/api/v1/switches/";
            assertThat(http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "pending")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body()).contains(Guids.format(rogue));
            java.net.URI admit = java.net.URI.create(base + Guids.format(rogue) + "/admit");
            assertThat(http.send(java.net.http.HttpRequest.newBuilder(admit).POST(java.net.http.HttpRequest.BodyPublishers
                    .noBody()).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            assertThat(http.send(java.net.http.HttpRequest.newBuilder(admit).header("Authorization", "Bearer nope")
                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(403);
            assertThat(daemon.api().pendingSwitches().get()).hasSize(1);
            java.net.http.HttpResponse<String> ok = http.send(java.net.http.HttpRequest.newBuilder(admit)
                    .header("Authorization", "Bearer t0ken").POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("switch " + Guids.format(rogue) + " admitted");
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() > version
                    && st.switches().connected() == fabric.switches().size() + 1, "the admitted switch routed");
            assertThat(daemon.api().pendingSwitches().get()).isEmpty();
            assertThat(daemon.api().lft(rogue).get()).as("routed now").isNotNull();
            assertThat(daemon.api().topology().get().nodeByGuid(victim.guid())).as("claimed twice: neither leaf gets it").isEmpty();
            assertThat(daemon.api().discovery().get().linkIssues()).anyMatch(i -> i.contains("neither gets it")
                    && i.contains(Guids.format(rogue))).anyMatch(i -> i.contains("neither gets it")
                    && i.contains(Guids.format(fabric.links().stream().filter(l -> l.b() == victim.guid() || l.a() == victim.guid())
                    .map(l -> l.a() == victim.guid() ? l.b() : l.a()).findFirst().orElseThrow())));
            assertThat(new AdmittedSwitchStore(state).load()).as("remembered for its next connection").contains(rogue);
        } finally {
            daemon.close();
        }
    }

    private static void awaitPending(FabricManagerDaemon daemon, long guid) {
        Await.value("switch " + Guids.format(guid) + " pending", () -> daemon.api().pendingSwitches().get(5, TimeUnit.SECONDS),
                pending -> pending.stream().anyMatch(p -> p.guid().equals(Guids.format(guid))));
    }
}
