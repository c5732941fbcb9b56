package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.DrainException;
import org.fabricmanager.daemon.api.DrainRequest;
import org.fabricmanager.daemon.api.DrainResult;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Draining a spine for maintenance, in one JVM with a simulated fabric routed by dmodc: the drain is judged by a
 * what-if, stored, recorded as an event, the check against the expected PGFT counts it drained (not missing), and the
 * tables the agents then hold send nothing through the spine; a restarted daemon keeps it drained; the undrain routes
 * through it again. A leaf's drain, which would cut off its end nodes, is refused unless forced.
 */
class DrainTest {
    static final String TOKEN = "drain-token-0123456789";
    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    MeterRegistry meters;
    final Fabric fabric = PgftGenerator.generate(SPEC);

    private void start() throws Exception {
        start(DaemonSimulationTest.config(state, SPEC));
    }

    private void start(DaemonConfig config) throws Exception {
        meters = new SimpleMeterRegistry();
        daemon = FabricManagerDaemon.start(config.withAdminToken(TOKEN), StartOptions.of(List.of()).registry(meters));
        sim = new FabricSimulator(fabric, DaemonSimulationTest.agentSettings(daemon), null, 1, null, 3);
        sim.start();
    }

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    /** The ports of every switch that lead to {@code spine} in the full fabric. */
    private Set<PortRef> portsTo(long spine) {
        Set<PortRef> ports = new HashSet<>();
        for (Link l : fabric.links()) {
            if (l.b() == spine) {
                ports.add(new PortRef(l.a(), l.aPort()));
            } else if (l.a() == spine) {
                ports.add(new PortRef(l.b(), l.bPort()));
            }
        }
        return ports;
    }

    /** Routes the agents hold (entries, summed over the switches) out of a port that leads to {@code spine}. */
    private int heldRoutesThrough(long spine) {
        Set<PortRef> toSpine = portsTo(spine);
        int routes = 0;
        for (SwitchAgent agent : sim.agents()) {
            for (byte entry : agent.table().entries()) {
                int port = entry & 0xff;
                if (port != ForwardingTables.NO_ROUTE && toSpine.contains(new PortRef(agent.guid(), port))) {
                    routes++;
                }
            }
        }
        return routes;
    }

    /** Converged on a routing after {@code after}, every switch holding it. */
    private Views.Status convergedAfter(long after, String what) {
        return await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 8
                && s.routing().version() > after && s.tables().inSync() == 8, what);
    }

    private List<Milestone> events(Milestone.Kind kind) throws Exception {
        return daemon.api().milestones(0).get(5, TimeUnit.SECONDS).stream().filter(m -> m.kind() == kind).toList();
    }

    private HttpResponse<String> rest(String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(daemon.restUrl() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpRequest request = body == null ? b.GET().build() : b.POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static DrainException refusal(ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(DrainException.class);
        return (DrainException) e.getCause();
    }

    @Test
    void aDrainedSpineIsRoutedAroundKeptAcrossARestartAndRoutedThroughOnceUndrained() throws Exception {
        long spine = PgftGenerator.switchGuid(2, 1);
        long leaf = PgftGenerator.switchGuid(1, 0);
        start();
        long v0 = convergedAfter(0, "convergence").routing().version();
        assertThat(heldRoutesThrough(spine)).as("routes through the spine before the drain").isPositive();

        assertThatThrownBy(() -> daemon.api().drain(new DrainRequest(leaf, 0, false)).get(60, TimeUnit.SECONDS))
                .isInstanceOfSatisfying(ExecutionException.class, e -> assertThat(refusal(e).getMessage())
                        .contains("would cut off 4 end node(s)").contains("force"));
        DrainResult drained = daemon.api().drain(new DrainRequest(spine, 0, false)).get(60, TimeUnit.SECONDS);
        assertThat(drained.result()).isEqualTo("drained");
        assertThat(drained.whatIf().valid()).as("the what-if judged it").isTrue();
        assertThat(drained.nodesCutOff()).isZero();
        assertThatThrownBy(() -> daemon.api().drain(new DrainRequest(spine, 0, true)).get(60, TimeUnit.SECONDS))
                .isInstanceOfSatisfying(ExecutionException.class, e -> assertThat(refusal(e).kind())
                        .isEqualTo(DrainException.Kind.CONFLICT));

        Views.Status st = convergedAfter(v0, "the routing around the drained spine");
        assertThat(st.drained()).isEqualTo(new Views.Drains(1, 0));
        FabricCheck check = daemon.api().discovery().get(5, TimeUnit.SECONDS).check();
        assertThat(check.verdict()).as("a drained spine is not missing: " + check.summary())
                .isEqualTo(FabricCheck.Verdict.INTACT);
        assertThat(check.summary()).endsWith(": 1 switch drained");
        assertThat(check.drainedSwitches()).containsExactly("s2-1 " + Guids.format(spine));
        assertThat(st.discovery().drainedSwitches()).isEqualTo(1);
        assertThat(heldRoutesThrough(spine)).as("routes the agents hold through the drained spine").isZero();
        assertThat(daemon.api().switches().get(5, TimeUnit.SECONDS)).filteredOn(Views.Switch::drained)
                .extracting(Views.Switch::guid).containsExactly(Guids.format(spine));
        assertThat(events(Milestone.Kind.DRAINED)).hasSize(1).first().extracting(Milestone::message).asString()
                .contains(Guids.format(spine));
        assertThat(meters.get("fabric.drained.switches").gauge()).isNotNull();
        assertThat(daemon.api().topology().get().links()).as("no cable of the drained spine is routed")
                .noneMatch(l -> l.a() == spine || l.b() == spine);

        daemon.close();
        sim.close();
        start();
        long v1 = convergedAfter(0, "convergence after the restart").routing().version();
        assertThat(daemon.api().drained().get(5, TimeUnit.SECONDS)).extracting(Views.Drained::element)
                .containsExactly("switch " + Guids.format(spine));
        assertThat(daemon.api().faults().get(5, TimeUnit.SECONDS).drained()).as("faults lists what is out of service")
                .extracting(Views.Drained::element).containsExactly("switch " + Guids.format(spine));
        assertThat(heldRoutesThrough(spine)).as("routes through the spine after the restart").isZero();

        DrainResult undrained = daemon.api().undrain(new DrainRequest(spine, 0, false)).get(10, TimeUnit.SECONDS);
        assertThat(undrained.result()).isEqualTo("undrained");
        st = convergedAfter(v1, "the routing through the undrained spine");
        assertThat(st.drained()).isEqualTo(new Views.Drains(0, 0));
        assertThat(heldRoutesThrough(spine)).as("routes through the spine once undrained").isPositive();
        assertThat(events(Milestone.Kind.UNDRAINED)).hasSize(1);
        assertThat(daemon.api().drained().get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(daemon.api().faults().get(5, TimeUnit.SECONDS).drained()).isEmpty();
        assertThatThrownBy(() -> daemon.api().undrain(new DrainRequest(spine, 0, false)).get(10, TimeUnit.SECONDS))
                .isInstanceOfSatisfying(ExecutionException.class, e -> assertThat(refusal(e).getMessage())
                        .contains("is not drained"));
    }

    @Test
    void aDrainedCableNamedByEitherEndIsRoutedAroundAndANodeCableIsRefusedUnlessForced() throws Exception {
        start();
        long v0 = convergedAfter(0, "convergence").routing().version();
        long spine = PgftGenerator.switchGuid(2, 0);
        Link up = fabric.links().stream().filter(l -> l.a() == spine || l.b() == spine).findFirst().orElseThrow();
        PortRef spineEnd = up.a() == spine ? new PortRef(up.a(), up.aPort()) : new PortRef(up.b(), up.bPort());
        PortRef leafEnd = up.a() == spine ? new PortRef(up.b(), up.bPort()) : new PortRef(up.a(), up.aPort());
        String body = "{\"guid\":\"" + Guids.format(spineEnd.guid()) + "\",\"port\":" + spineEnd.port() + "}";
        assertThat(rest("/api/v1/drain", body, null).statusCode()).as("without the admin token").isEqualTo(401);
        assertThat(rest("/api/v1/drain", body, "wrong-token-0123456789").statusCode()).as("wrong token").isEqualTo(403);
        assertThat(rest("/api/v1/drain", "{\"guid\":\"0x42\"}", TOKEN).statusCode()).as("unknown switch").isEqualTo(404);
        assertThat(rest("/api/v1/drain", "{\"guid\":1}", TOKEN).statusCode()).as("malformed").isEqualTo(400);
        assertThat(daemon.api().drained().get(5, TimeUnit.SECONDS)).as("nothing drained by the refused requests").isEmpty();
        HttpResponse<String> drained = rest("/api/v1/drain", body, TOKEN);
        assertThat(drained.statusCode()).as(drained.body()).isEqualTo(200);
        assertThat(drained.body()).contains("\"result\":\"drained\"").contains("\"element\":\"link " + spineEnd + "\"");
        Views.Status st = convergedAfter(v0, "the routing around the drained cable");
        assertThat(st.drained()).isEqualTo(new Views.Drains(0, 1));
        assertThat(rest("/api/v1/discovery", null, null).body()).as("the drained cable is not missing")
                .contains("\"verdict\":\"INTACT\"").contains(": 1 link drained\"").contains("\"missingLinkCount\":0")
                .contains("\"drainedLinkCount\":1");
        assertThat(st.discovery().drainedLinks()).isEqualTo(1);
        assertThat(daemon.api().topology().get().links()).as("the drained cable is not routed").hasSize(fabric.links().size() - 1)
                .noneMatch(l -> l.normalized().equals(up.normalized()));
        int leafPort = leafEnd.port();
        assertThat(sim.agent(leafEnd.guid()).table().entries()).as("the leaf's routes out of the drained cable")
                .doesNotContain((byte) leafPort);
        Views.SwitchDetail leafDetail = daemon.api().switchDetail(leafEnd.guid()).get(5, TimeUnit.SECONDS);
        assertThat(leafDetail.portList().get(leafPort - 1).link()).isEqualTo("DRAINED");
        assertThat(rest("/api/v1/drains", null, null).body()).contains("\"element\":\"link " + spineEnd + "\"")
                .contains("\"peer\":\"" + leafEnd + "\"");

        Link nodeCable = fabric.links().stream().filter(l -> fabric.isNode(l.b())).findFirst().orElseThrow();
        DrainRequest node = new DrainRequest(nodeCable.a(), nodeCable.aPort(), false);
        assertThatThrownBy(() -> daemon.api().drain(node).get(60, TimeUnit.SECONDS))
                .isInstanceOfSatisfying(ExecutionException.class, e -> assertThat(refusal(e).getMessage())
                        .contains("cut off 1 end node(s)"));
        DrainResult forced = daemon.api().drain(new DrainRequest(node.guid(), node.port(), true)).get(10, TimeUnit.SECONDS);
        assertThat(forced.forced()).isTrue();
        assertThat(forced.nodesCutOff()).isEqualTo(1);
        convergedAfter(st.routing().version(), "the routing without the node's cable");
        assertThat(daemon.api().topology().get().links()).noneMatch(l -> l.normalized().equals(nodeCable.normalized()));
    }

    /**
     * A drain is judged against the routing that has every drain before it: while the last one's re-route is due it
     * is refused with BUSY (429) and changes nothing. Judged against the routing still through the cable drained just
     * before, the last uplink of a leaf would be drained and the leaf cut off. A settle window of 2 s keeps each
     * drain's re-route due while the next drain is asked at once.
     */
    @Test
    void aDrainAskedWhileTheLastDrainIsRoutedIsRefusedAsBusyNotJudgedAgainstTheOldRouting() throws Exception {
        DaemonConfig base = DaemonSimulationTest.config(state, SPEC);
        DaemonConfig.Faults f = base.faults();
        start(base.withFaults(new DaemonConfig.Faults(2_000, f.flapThreshold(), f.flapWindowMs(), f.quarantineMs(),
                f.detector())));
        long version = convergedAfter(0, "convergence").routing().version();
        long leaf = PgftGenerator.switchGuid(1, 0);
        List<Integer> uplinks = fabric.links().stream().filter(l -> l.a() == leaf && !fabric.isNode(l.b()))
                .map(Link::aPort).sorted().toList();
        assertThat(uplinks).hasSize(4);
        for (int port : uplinks.subList(0, 2)) {
            daemon.api().drain(new DrainRequest(leaf, port, false)).get(60, TimeUnit.SECONDS);
            version = convergedAfter(version, "the routing around " + Guids.format(leaf) + ":" + port).routing().version();
        }
        DrainResult third = daemon.api().drain(new DrainRequest(leaf, uplinks.get(2), false)).get(60, TimeUnit.SECONDS);
        assertThat(third.result()).isEqualTo("drained");
        DrainRequest last = new DrainRequest(leaf, uplinks.get(3), false);
        assertThatThrownBy(() -> daemon.api().drain(last).get(60, TimeUnit.SECONDS)).as("the leaf's last uplink, at once")
                .isInstanceOfSatisfying(ExecutionException.class, e -> assertThat(refusal(e).kind())
                        .isEqualTo(DrainException.Kind.BUSY));
        assertThat(daemon.api().drained().get(5, TimeUnit.SECONDS)).as("drained after the refusal").hasSize(3);
        convergedAfter(version, "the routing around the third uplink");
        assertThatThrownBy(() -> daemon.api().drain(last).get(60, TimeUnit.SECONDS)).as("the leaf's last uplink, judged")
                .isInstanceOfSatisfying(ExecutionException.class, e -> assertThat(refusal(e).kind())
                        .isEqualTo(DrainException.Kind.CONFLICT));
        assertThat(daemon.api().drained().get(5, TimeUnit.SECONDS)).hasSize(3);
    }
}
