package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.sim.IbsimErrorRates;
import org.fabricmanager.sim.IbsimFaults;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Gray links under OpenSM (docs/operations.md, "Gray links"): the symbol errors of a leaf's uplink rise at ibsim's
 * console as the demo's hand makes them ({@link IbsimFaults#linkErrors}), OpenSM's performance manager reads them, the
 * plug-in carries them to the daemon, and the daemon with policy {@code isolate} takes the cable out: once it calls
 * the routing converged, {@code ibroute} reads no end-node LID out of either end of the cable. The leaf's cable to an
 * end node erring as much gets advice only. Once the errors stop, the cable is given back after its probation and
 * carries routes again. Skipped when OpenSM, ibsim, infiniband-diags or the plug-in are missing.
 */
class OpenSmGrayLinksIT {
    private static final long TOOL_LIMIT_SECONDS = OpenSmLab.TOOL_LIMIT_SECONDS;
    /** Errors a second on each erring port: far above linkHealth's bad rate on a link that carries little. */
    private static final long ERRORS_PER_SECOND = 2_000;
    /** The performance manager reads every port each second, the fastest OpenSM's option allows. */
    private static final String PERFMGR = "perfmgr TRUE\nperfmgr_sweep_time_s 1\nperfmgr_max_outstanding_queries 4\n";
    private static final int PROBATION_MS = 4_000;

    static OpenSmLab lab;

    @BeforeAll
    static void tools() {
        lab = OpenSmLab.require();
    }

    @Test
    void anErringSpineCableIsIsolatedOnTheSwitchesAndGivenBackOnceQuietWhileANodesCableGetsAdviceOnly()
            throws Exception {
        Path work = lab.plugin().directory().resolveSibling("opensm-gray-links-it");
        OpenSmRoutingIT.deleteTree(work);
        Files.createDirectories(work);
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        Path socket = work.resolve("opensm.sock");
        // judged each second over 3 s, isolated at once after convergence, given back after 4 s quiet
        DaemonConfig config = OpenSmLab.daemonConfig(work.resolve("state"), socket).withLinkHealth(
                LinkHealthSection.defaults().withPolicy("isolate").withTimings(1_000, 3_000, 0, PROBATION_MS));
        int switches = fabric.switches().size();
        Process opensm = null;
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of());
             IbsimFabric ibsim = IbsimFabric.start(lab.tools(), fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS);
             IbsimErrorRates rates = IbsimErrorRates.start(ibsim::console)) {
            opensm = lab.plugin().startOpenSm(ibsim, socket, OpenSmLab.PLUGIN_TIMEOUT_MS, work.resolve("opensm"),
                    OpenSmPlugin.Fallback.MINHOP, PERFMGR);
            Views.Status start = SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == switches, "the daemon converged on OpenSM's subnet");
            OpenSmLab.awaitSubnetUp(work.resolve("opensm"));
            LidFabric seen = IbnetdiscoverReader.readWithLids(ibsim.ibnetdiscover(work.resolve("ibnet.txt"),
                    TOOL_LIMIT_SECONDS));
            // a leaf away from OpenSM's own port (on s1-0), its first uplink, and its first cable to an end node
            FabricSwitch leaf = seen.fabric().switches().stream().filter(s -> s.name().startsWith("s1-1_")).findFirst()
                    .orElseThrow();
            Link uplink = seen.fabric().links().stream().filter(l -> l.a() == leaf.guid()
                    && seen.fabric().isSwitch(l.b())).min((x, y) -> Integer.compare(x.aPort(), y.aPort()))
                    .orElseThrow();
            Link nodeCable = seen.fabric().links().stream().filter(l -> (l.a() == leaf.guid() || l.b() == leaf.guid())
                    && (seen.fabric().isNode(l.a()) || seen.fabric().isNode(l.b()))).findFirst().orElseThrow();
            int nodePort = nodeCable.a() == leaf.guid() ? nodeCable.aPort() : nodeCable.bPort();
            int leafLid = seen.lids().lid(leaf.guid()).orElseThrow();
            int spineLid = seen.lids().lid(uplink.b()).orElseThrow();
            Set<Integer> nodeLids = new HashSet<>();
            seen.fabric().nodes().forEach(n -> nodeLids.add(seen.lids().lid(n.guid()).orElseThrow()));
            Path reads = Files.createDirectories(work.resolve("ibroute"));
            assertThat(routesAcross(ibsim, leafLid, uplink.aPort(), spineLid, uplink.bPort(), nodeLids, reads))
                    .as("end-node LIDs routed across the uplink before its errors").isNotEmpty();

            IbsimFaults faults = new IbsimFaults(fabric, names(daemon), ibsim::console, rates);
            long erring = System.nanoTime();
            faults.linkErrors(leaf.guid(), uplink.aPort(), ERRORS_PER_SECOND);
            faults.linkErrors(leaf.guid(), nodePort, ERRORS_PER_SECOND);
            List<Views.Isolated> isolated = Await.value("the uplink isolated", Duration.ofSeconds(60),
                    () -> daemon.api().isolated().get(10, TimeUnit.SECONDS), l -> !l.isEmpty());
            long isolatedAt = System.nanoTime();
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED && s.routing() != null
                    && s.routing().version() > start.routing().version()
                    && s.tables().inSync() == s.switches().connected(), "CONVERGED around the isolated uplink");
            long convergedAt = System.nanoTime();
            assertThat(isolated).hasSize(1);
            assertThat(uplink.touches(Guids.parse(isolated.get(0).guid()), isolated.get(0).port()))
                    .as("the isolated link %s is the uplink %s", isolated.get(0), uplink).isTrue();
            assertThat(routesAcross(ibsim, leafLid, uplink.aPort(), spineLid, uplink.bPort(), nodeLids, reads))
                    .as("end-node LIDs ibroute reads across the isolated uplink once the daemon calls it converged")
                    .isEmpty();
            assertThat(daemon.api().drained().get(10, TimeUnit.SECONDS)).as("not an operator's drain").isEmpty();
            assertThat(events(daemon, Milestone.Kind.LINK_ISOLATED)).hasSize(1).first().satisfies(m ->
                    assertThat(m.details()).containsEntry("counter", "rxErrors"));
            Milestone advice = Await.value("advice on the node's cable", Duration.ofSeconds(60), () ->
                    events(daemon, Milestone.Kind.LINK_SUSPECT).stream().filter(m -> m.message().contains("end node"))
                            .findFirst().orElse(null), m -> m != null);
            assertThat(advice.message()).contains("bad, not isolated").contains(Guids.format(leaf.guid()) + ":"
                    + nodePort);
            assertThat(daemon.api().isolated().get(10, TimeUnit.SECONDS)).as("the node's cable is not isolated")
                    .hasSize(1);
            System.out.printf("OpenSM: errors' start to isolated %d ms, to converged (tables set) %d ms%n",
                    (isolatedAt - erring) / 1_000_000, (convergedAt - erring) / 1_000_000);

            faults.linkErrors(leaf.guid(), uplink.aPort(), 0);
            faults.linkErrors(leaf.guid(), nodePort, 0);
            Await.value("the uplink given back", Duration.ofSeconds(60),
                    () -> daemon.api().isolated().get(10, TimeUnit.SECONDS), List::isEmpty);
            SystemSupport.awaitTrue(() -> {
                Views.Status s = daemon.api().status().get(10, TimeUnit.SECONDS);
                return s.state() == DaemonState.CONVERGED && s.tables().inSync() == s.switches().connected()
                        && !routesAcross(ibsim, leafLid, uplink.aPort(), spineLid, uplink.bPort(), nodeLids, reads)
                        .isEmpty();
            }, "end-node LIDs routed across the uplink again", 60);
            assertThat(events(daemon, Milestone.Kind.LINK_REINSTATED)).hasSize(1).first()
                    .extracting(Milestone::message).asString().contains("healthy for " + PROBATION_MS / 1000 + " s");
            assertThat(events(daemon, Milestone.Kind.LINK_ISOLATED)).as("isolated once").hasSize(1);
        } finally {
            OpenSmLab.stop(opensm);
        }
    }

    /** The end-node LIDs routed out of the leaf's end of the cable or out of the spine's. */
    private static Set<Integer> routesAcross(IbsimFabric ibsim, int leafLid, int leafPort, int spineLid, int spinePort,
                                             Set<Integer> nodeLids, Path reads) throws Exception {
        Set<Integer> out = new HashSet<>(OpenSmDay2IT.nodeLidsOut(ibsim, leafLid, leafPort, nodeLids, reads));
        out.addAll(OpenSmDay2IT.nodeLidsOut(ibsim, spineLid, spinePort, nodeLids, reads));
        return out;
    }

    private static List<Milestone> events(FabricManagerDaemon daemon, Milestone.Kind kind) throws Exception {
        return daemon.api().milestones(0).get(10, TimeUnit.SECONDS).stream().filter(m -> m.kind() == kind).toList();
    }

    /** The daemon's GUID of each switch -> its name (ibsim's node id, as OpenSM reads it). */
    private static Map<Long, String> names(FabricManagerDaemon daemon) throws Exception {
        Map<Long, String> names = new HashMap<>();
        for (Views.Switch s : daemon.api().switches().get(10, TimeUnit.SECONDS)) {
            names.put(Guids.parse(s.guid()), s.name());
        }
        return names;
    }
}
