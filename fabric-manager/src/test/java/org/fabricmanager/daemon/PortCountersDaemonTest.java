package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.function.LongPredicate;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.PortCountersView;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Port counters end to end: agents that announce them are polled soon after they join and their counters are served
 * by REST; agents that predate them (no HELLO feature bit) are never asked and the fabric converges all the same.
 */
class PortCountersDaemonTest {
    @TempDir
    Path state;

    @Test
    void countersOfAgentsThatReportThemAreServedAndOlderAgentsStillWork() throws Exception {
        FabricManagerDaemon daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, DaemonSimulationTest.SPEC), StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        AgentSettings current = DaemonSimulationTest.agentSettings(daemon);
        AgentSettings older = current.withoutPortCounters();
        LongPredicate old = guid -> (Long.hashCode(guid) & 1) == 0;
        try (FabricSimulator sim = new FabricSimulator(PgftGenerator.generate(DaemonSimulationTest.SPEC),
                guid -> old.test(guid) ? older : current, null, 1, null, 1)) {
            sim.start();
            DaemonSimulationTest.await(daemon, s -> s.state() == DaemonState.CONVERGED, "convergence");
            int olds = 0;
            for (SwitchAgent a : sim.agents()) {
                PortCountersView v = Await.value("counters of " + a, () -> daemon.api().portCounters(a.guid()).get(5, TimeUnit.SECONDS),
                        view -> old.test(a.guid()) || !view.ports().isEmpty());
                assertThat(v.guid()).isEqualTo(Guids.format(a.guid()));
                if (old.test(a.guid())) {
                    olds++;
                    assertThat(v.reporting()).as("%s predates counters", a).isFalse();
                    assertThat(v.ports()).isEmpty();
                } else {
                    assertThat(v.reporting()).isTrue();
                    assertThat(v.ports()).hasSize(a.portCount());
                    assertThat(v.ports().get(0).port()).isEqualTo(1);
                    assertThat(v.incarnation()).isEqualTo(a.incarnation());
                    assertThat(v.ports()).allSatisfy(p -> assertThat(p.rxPackets()).isNotNull().isNotNegative());
                }
            }
            assertThat(olds).isBetween(1, sim.agents().size() - 1);
            SwitchAgent reporting = sim.agents().stream().filter(a -> !old.test(a.guid())).findFirst().orElseThrow();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(daemon.restUrl() + "/api/v1/switches/"
                    + Guids.format(reporting.guid()) + "/ports")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode json = new ObjectMapper().readTree(r.body());
            assertThat(json.path("ports")).hasSize(reporting.portCount());
            assertThat(json.path("ports").get(0).has("rxErrors")).isTrue();
            assertThat(json.path("totals").has("txDrops")).isTrue();
            assertThat(json.path("intervalMs").asLong()).isEqualTo(10_000);
            HttpResponse<String> unknown = http.send(HttpRequest.newBuilder(URI.create(daemon.restUrl()
                    + "/api/v1/switches/0x00000000000000ff/ports")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(daemon.registry().get("fabric.port.packets").tag("direction", "rx").functionCounter().count())
                    .isNotNegative();
        } finally {
            daemon.close();
        }
    }
}
