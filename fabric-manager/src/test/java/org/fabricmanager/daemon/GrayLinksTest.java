package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;
import static org.fabricmanager.daemon.DaemonSimulationTest.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gray links end to end, in one JVM with simulated agents whose counters are made to rise with errors: a leaf's
 * uplink erroring under load is isolated by the policy (the tables the agents hold then send nothing through it),
 * while the leaf's cable to an end node erroring as much gets advice only; the isolation is kept across a restart of
 * the daemon, and once the errors have stopped the link is given back after its probation and carries routes again.
 */
class GrayLinksTest {
    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    MeterRegistry meters;
    final Fabric fabric = PgftGenerator.generate(SPEC);
    final long leaf = PgftGenerator.switchGuid(1, 0);

    LinkHealthSection health = LinkHealthSection.defaults().withPolicy("isolate").withTimings(1_000, 3_000, 0, 3_000);

    private void start() throws Exception {
        meters = new SimpleMeterRegistry();
        daemon = FabricManagerDaemon.start(DaemonSimulationTest.config(state, SPEC).withLinkHealth(health),
                StartOptions.of(List.of()).registry(meters));
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

    private Views.Status convergedAfter(long after, String what) {
        return await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 8
                && s.routing().version() > after && s.tables().inSync() == 8, what);
    }

    /** Entries the agents hold that leave through either end of {@code link}. */
    private int routesThrough(Link link) {
        int routes = 0;
        for (SwitchAgent agent : sim.agents()) {
            for (byte entry : agent.table().entries()) {
                int port = entry & 0xff;
                if (port != ForwardingTables.NO_ROUTE && link.touches(agent.guid(), port)) {
                    routes++;
                }
            }
        }
        return routes;
    }

    private List<Milestone> events(Milestone.Kind kind) throws Exception {
        return daemon.api().milestones(0).get(5, TimeUnit.SECONDS).stream().filter(m -> m.kind() == kind).toList();
    }

    private List<Views.Isolated> isolated() throws Exception {
        return daemon.api().isolated().get(5, TimeUnit.SECONDS);
    }

    @Test
    void anErringUplinkIsIsolatedKeptAcrossARestartAndGivenBackOnceQuietWhileANodesCableGetsAdviceOnly()
            throws Exception {
        Link uplink = fabric.links().stream().filter(l -> l.touches(leaf, l.a() == leaf ? l.aPort() : l.bPort())
                && fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst().orElseThrow();
        Link nodeCable = fabric.links().stream().filter(l -> (l.a() == leaf || l.b() == leaf)
                && (fabric.isNode(l.a()) || fabric.isNode(l.b()))).findFirst().orElseThrow();
        int upPort = uplink.a() == leaf ? uplink.aPort() : uplink.bPort();
        int nodePort = nodeCable.a() == leaf ? nodeCable.aPort() : nodeCable.bPort();
        start();
        long v0 = convergedAfter(0, "convergence").routing().version();
        assertThat(routesThrough(uplink)).as("routes through the uplink before its errors").isPositive();

        long erring = System.nanoTime();
        sim.linkErrors(leaf, upPort, 20_000);
        sim.linkErrors(leaf, nodePort, 20_000);
        Await.value("the uplink isolated", this::isolated, l -> !l.isEmpty());
        long isolatedAt = System.nanoTime();
        convergedAfter(v0, "the routing around the isolated uplink");
        System.out.printf("errors' start to isolated %d ms, to converged %d ms%n",
                (isolatedAt - erring) / 1_000_000, (System.nanoTime() - erring) / 1_000_000);
        Views.Isolated out = isolated().get(0);
        assertThat(new PortRef(Guids.parse(out.guid()), out.port())).satisfies(p ->
                assertThat(uplink.touches(p.guid(), p.port())).isTrue());
        assertThat(routesThrough(uplink)).as("routes the agents hold through the isolated uplink").isZero();
        assertThat(daemon.api().drained().get(5, TimeUnit.SECONDS)).as("not an operator's drain").isEmpty();
        assertThat(events(Milestone.Kind.LINK_ISOLATED)).hasSize(1).first().satisfies(m -> {
            assertThat(m.message()).contains("rxErrors").contains("ppm");
            assertThat(m.details()).containsEntry("counter", "rxErrors").containsEntry("loaded", true);
        });
        Milestone advice = Await.value("advice on the node's cable", () -> events(Milestone.Kind.LINK_SUSPECT)
                .stream().filter(m -> m.message().contains("end node")).findFirst().orElse(null), m -> m != null);
        assertThat(advice.message()).contains("bad, not isolated").contains(Guids.format(leaf) + ":" + nodePort);
        assertThat(isolated()).as("the node's cable is not isolated").hasSize(1);
        assertThat(meters.get("fabric.link.isolated").gauge().value()).isEqualTo(1.0);
        assertThat(meters.get("fabric.link.bad").gauge().value()).isGreaterThanOrEqualTo(1.0);
        assertThat(out.figures()).as("the figures that decided").contains("rxErrors at").contains("ppm");
        List<Views.LinkHealth> judged = daemon.api().linkHealth().get(5, TimeUnit.SECONDS);
        assertThat(judged).as("the isolated uplink first, then the node's cable").hasSize(2);
        assertThat(judged.get(0)).satisfies(h -> {
            assertThat(h.link()).isEqualTo(uplink.normalized().toString());
            assertThat(h.isolated()).isTrue();
            assertThat(h.isolatedFigures()).isEqualTo(out.figures());
            assertThat(h.probationMs()).isEqualTo(3_000L);
        });
        assertThat(judged.get(1)).satisfies(h -> {
            assertThat(h.link()).isEqualTo(nodeCable.normalized().toString());
            assertThat(h.isolated()).isFalse();
            assertThat(h.level()).isEqualTo("BAD");
            assertThat(h.advice()).contains("end node");
            assertThat(h.details()).containsEntry("counter", "rxErrors");
        });

        // a restart: the new agents count no errors, yet the isolation holds until its probation has passed
        daemon.close();
        sim.close();
        start();
        convergedAfter(0, "convergence after the restart");
        assertThat(isolated()).as("kept across the restart").hasSize(1);
        assertThat(isolated().get(0).figures()).as("decided before this daemon started").isNull();
        assertThat(routesThrough(uplink)).as("routes through the uplink after the restart").isZero();

        Await.value("the uplink given back", this::isolated, List::isEmpty);
        await(daemon, s -> s.state() == DaemonState.CONVERGED && s.tables().inSync() == 8 && routesThrough(uplink) > 0,
                "routes through the uplink again");
        assertThat(events(Milestone.Kind.LINK_REINSTATED)).hasSize(1).first().extracting(Milestone::message)
                .asString().contains("given back: healthy for 3 s");
    }

    @Test
    void errorsOnMoreLinksThanTheCapIsolateOnlyUpToTheCapAndTheRestGetAdviceSayingSo() throws Exception {
        health = health.withTimings(1_000, 3_000, 0, 600_000).withCaps(2, 100);
        List<Link> uplinks = new java.util.ArrayList<>();
        List<PortRef> leafEnds = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long l = PgftGenerator.switchGuid(1, i);
            Link up = fabric.links().stream().filter(k -> (k.a() == l || k.b() == l) && fabric.isSwitch(k.a())
                    && fabric.isSwitch(k.b())).findFirst().orElseThrow();
            uplinks.add(up.normalized());
            leafEnds.add(new PortRef(l, up.a() == l ? up.aPort() : up.bPort()));
        }
        start();
        long v0 = convergedAfter(0, "convergence").routing().version();
        for (PortRef end : leafEnds) {
            sim.linkErrors(end.guid(), end.port(), 20_000);
        }
        Milestone held = Await.value("advice on the link over the cap", () -> events(Milestone.Kind.LINK_SUSPECT)
                .stream().filter(m -> m.message().contains("linkHealth.maxIsolated 2")).findFirst().orElse(null),
                m -> m != null);
        // the advice counts the isolations proposed; the daemon lists one once its what-if has confirmed it
        List<Views.Isolated> capped = Await.value("the two links under the cap isolated", this::isolated,
                l -> l.size() >= 2);
        assertThat(capped).as("isolated: the cap").hasSize(2);
        convergedAfter(v0, "the routing around the two isolated uplinks");
        assertThat(isolated()).as("isolated once converged: the cap").hasSize(2);
        // a judgement taken while the routing around the isolations was in flight says "settling"; the next one,
        // on the converged fabric, says the cap again
        List<Views.LinkHealth> judged = Await.value("the link over the cap advised with the cap once converged",
                () -> daemon.api().linkHealth().get(5, TimeUnit.SECONDS), l -> l.stream().anyMatch(h -> !h.isolated()
                        && h.advice() != null && h.advice().contains("linkHealth.maxIsolated 2")));
        assertThat(judged).extracting(Views.LinkHealth::link).containsExactlyInAnyOrderElementsOf(
                uplinks.stream().map(Link::toString).toList());
        Views.LinkHealth over = judged.stream().filter(h -> !h.isolated()).findFirst().orElseThrow();
        assertThat(over.level()).isEqualTo("BAD");
        assertThat(over.advice()).contains("2 link(s) isolated already, linkHealth.maxIsolated 2");
        assertThat(held.message()).contains(over.link().split("-")[0]);
        Link left = uplinks.stream().filter(l -> l.toString().equals(over.link())).findFirst().orElseThrow();
        assertThat(routesThrough(left)).as("routes through the link over the cap").isPositive();
        for (Link l : uplinks) {
            if (l != left) {
                assertThat(routesThrough(l)).as("routes through isolated %s", l).isZero();
            }
        }
        assertThat(events(Milestone.Kind.LINK_ISOLATED)).hasSize(2);
        assertThat(meters.get("fabric.link.isolated").gauge().value()).isEqualTo(2.0);
        assertThat(meters.get("fabric.link.bad").gauge().value()).isEqualTo(3.0);
    }
}
