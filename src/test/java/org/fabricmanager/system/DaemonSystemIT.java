package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.SystemSupport.assertAgentsHold;
import static org.fabricmanager.system.SystemSupport.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon (dmodc) and a simulated {@code PGFT(3;8,8,8;1,8,8;1,1,1)} (512 nodes, 192 switches, one TCP
 * connection per switch) in one JVM: convergence to exactly the tables {@code route} computes, a link
 * failure and its repair (only changed blocks pushed, paths avoid the link), and a restart that neither
 * recomputes nor pushes anything.
 */
class DaemonSystemIT {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;8,8,8;1,8,8;1,1,1)");

    @TempDir
    Path state;
    @TempDir
    Path work;

    @Test
    void convergesReroutesAroundALinkAndRestartsWithoutRecomputing() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(org.fabricmanager.routing.engines.RoutingEngines.names().contains("dmodc"),
                "the dmodc engine is not registered in this build");
        Fabric fabric = PgftGenerator.generate(SPEC);
        // the repair as such, compared with route --previous: its refinement is ReturnsTest's and DetectorProcessesIT's
        FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state, SPEC).withRefineAfter("off"), List.of());
        int southboundPort = daemon.southboundAddress().getPort();
        try (FabricSimulator sim = SystemSupport.simulator(fabric, southboundPort)) {
            sim.start();

            // 1. discovery, routing, push: every agent holds what `route` computes for the reported topology
            Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED, "first convergence");
            assertThat(s.switches().connected()).isEqualTo(192);
            assertThat(s.switches().expected()).isEqualTo(192);
            assertThat(s.nodes()).isEqualTo(512);
            assertThat(s.routing().engine()).isEqualTo(RoutingEngines.DEFAULT);
            assertThat(s.routing().valid()).isTrue();
            assertThat(s.discovery().verdict()).isEqualTo("INTACT");
            assertThat(s.tables().inSync()).isEqualTo(192);
            long v1 = s.routing().version();
            Fabric reported = FabricJson.parse(httpGet(daemon, "/api/v1/topology"));
            assertThat(reported).isEqualTo(fabric);
            ForwardingTables intact = SystemSupport.routeCommand(reported, work, "intact");
            assertAgentsHold(sim, intact, v1);
            long fullPush = s.push().blocks();
            assertThat(fullPush).as("first push: every non-empty block").isPositive();

            // 2. a leaf-to-spine link goes down
            long leaf = PgftGenerator.switchGuid(1, 0);
            Link cut = fabric.links().stream().filter(l -> l.touches(leaf, 9)).findFirst().orElseThrow();
            long peer = cut.a() == leaf ? cut.b() : cut.a();
            int peerPort = cut.a() == leaf ? cut.bPort() : cut.aPort();
            sim.linkDown(leaf, 9);
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() > v1, "re-route");
            long v2 = s.routing().version();
            Fabric degraded = daemon.api().topology().get();
            assertThat(degraded.links()).hasSize(fabric.links().size() - 1);
            assertThat(s.discovery().verdict()).isEqualTo("DEGRADED");
            ForwardingTables rerouted = SystemSupport.routeCommand(degraded, work, "degraded", work.resolve("intact.lft"));
            assertAgentsHold(sim, rerouted, v2);
            long changedBlocks = countChangedBlocks(intact, rerouted);
            System.out.printf("link down: %d blocks pushed (%d changed blocks exist), full push was %d%n",
                    s.push().blocks(), changedBlocks, fullPush);
            assertThat(s.push().blocks()).isEqualTo(changedBlocks);
            assertThat(s.push().blocks()).isLessThan(fullPush / 5);
            assertThat(s.push().fullPushes()).isZero();
            assertThat(s.push().commits()).as("a commit only for each switch whose table changed")
                    .isEqualTo(countChangedRows(intact, rerouted)).isLessThan(192);
            assertThat(s.tables().inSync()).isEqualTo(192);
            assertPathsAvoid(daemon, degraded, leaf, 9, peer, peerPort);

            // 3. the link comes back: the intact tables return
            sim.linkUp(leaf, 9);
            s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.routing().version() > v2, "link repaired");
            long v3 = s.routing().version();
            assertThat(daemon.api().topology().get()).isEqualTo(fabric);
            assertAgentsHold(sim, intact, v3);
            assertThat(s.push().blocks()).isEqualTo(changedBlocks);

            // 4. restart on the unchanged fabric: same indices, no computation, nothing pushed
            daemon.close();
            daemon = FabricManagerDaemon.start(SystemSupport.config(state, SPEC).withRefineAfter("off").withPorts(southboundPort, 0), List.of());
            FabricManagerDaemon restarted = daemon;
            s = await(restarted, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 192,
                    "convergence after restart");
            assertThat(s.routing().version()).isEqualTo(v3);
            assertThat(s.routing().reusedFromState()).isTrue();
            assertThat(s.routing().computations()).isZero();
            assertThat(s.push().totalBlocks()).isZero();
            assertThat(s.push().totalBytes()).isZero();
            assertThat(s.tables().inSync()).isEqualTo(192);
            Fabric afterRestart = restarted.api().topology().get();
            for (EndNode n : afterRestart.nodes()) {
                assertThat(n.index()).isEqualTo(reported.nodeByGuid(n.guid()).orElseThrow().index());
            }
            for (SwitchAgent a : sim.agents()) {
                assertThat(a.handshakes()).as("%s reconnected", a).isEqualTo(2);
                assertThat(a.table().version()).as("nothing renumbered by the restart").isBetween(1L, v3);
            }
        } finally {
            daemon.close();
        }
    }

    private static int countChangedRows(ForwardingTables a, ForwardingTables b) {
        int n = 0;
        for (int s = 0; s < a.switchCount(); s++) {
            n += a.rowEquals(s, b, s) ? 0 : 1;
        }
        return n;
    }

    private static long countChangedBlocks(ForwardingTables a, ForwardingTables b) {
        long changed = 0;
        for (int s = 0; s < a.switchCount(); s++) {
            for (int base = 0; base < a.destinationCount(); base += 64) {
                for (int d = base; d < Math.min(base + 64, a.destinationCount()); d++) {
                    if (a.port(s, d) != b.port(s, d)) {
                        changed++;
                        break;
                    }
                }
            }
        }
        return changed;
    }

    /** Every route from or to the leaf's nodes is delivered and never uses the failed link. */
    private static void assertPathsAvoid(FabricManagerDaemon daemon, Fabric f, long leaf, int port, long peer, int peerPort)
            throws Exception {
        int traced = 0;
        for (EndNode a : f.nodes()) {
            for (EndNode b : f.nodes()) {
                boolean touches = a.index() < 8 || b.index() < 8;
                if (a == b || !touches) {
                    continue;
                }
                Views.Route r = daemon.api().route(a.index(), b.index()).get();
                assertThat(r.outcome()).as("%d -> %d", a.index(), b.index()).isEqualTo("DELIVERED");
                for (Views.Hop h : r.hops()) {
                    assertThat(h.guid().equals(Guids.format(leaf)) && h.outPort() == port).as("%s uses the failed link", r).isFalse();
                    assertThat(h.guid().equals(Guids.format(peer)) && h.outPort() == peerPort).as("%s uses the failed link", r).isFalse();
                }
                traced++;
            }
        }
        assertThat(traced).isEqualTo(2 * 8 * 511 - 8 * 7);
        // the REST endpoint gives the same answer
        String json = httpGet(daemon, "/api/v1/route?src=0&dst=511");
        assertThat(json).contains("\"outcome\":\"DELIVERED\"");
    }

    static String httpGet(FabricManagerDaemon daemon, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(daemon.restUrl() + path))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
        return r.body();
    }
}
