package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.daemon.store.FabricFingerprint;
import org.fabricmanager.daemon.testing.FabricReports;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologicalIndexer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what one fabric snapshot costs the control thread at scale,
 * phase by phase (build from the reports, the index, the expected-shape check, the fingerprint), warm
 * medians. Run with {@code -Dtest=SnapshotCostBenchmark -Dfm.bench=true -Dfm.test.jvm=-Xmx6g}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class SnapshotCostBenchmark {
    @Test
    void snapshotPhases() {
        String text = System.getProperty("fm.bench.spec", "PGFT(3;32,32,64;1,32,32;1,1,1)");
        PgftSpec spec = PgftSpec.parse(text);
        Fabric fabric = PgftGenerator.generate(spec);
        FabricReports reports = new FabricReports(fabric);
        List<SwitchPorts> ports = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            SwitchPorts p = new SwitchPorts(s.guid(), s.name(), s.ports());
            for (PortRecord r : reports.of(s.guid())) {
                p.update(r);
            }
            ports.add(p);
        }
        DestinationIndexMap indices = new DestinationIndexMap();
        indices.assign(TopologicalIndexer.order(fabric));
        RecognizingFabricChecker checker = new RecognizingFabricChecker();
        int runs = Integer.getInteger("fm.bench.repeats", 9);
        double[][] ms = new double[5][runs];
        org.fabricmanager.topology.Link cut = fabric.links().stream().filter(l -> fabric.isSwitch(l.a())
                && fabric.isSwitch(l.b())).findFirst().orElseThrow();
        fabric.index();
        for (int warm = 0; warm < 3 + runs; warm++) {
            long t0 = System.nanoTime();
            TopologyBuilder.Result r = TopologyBuilder.build(ports, indices, spec, TopologicalIndexer::order);
            long t1 = System.nanoTime();
            r.fabric().index();
            long t2 = System.nanoTime();
            checker.check(r.fabric(), spec);
            long t3 = System.nanoTime();
            FabricFingerprint.of(r.fabric(), "dmodc");
            long t4 = System.nanoTime();
            fabric.withChanges(java.util.Set.of(), java.util.Set.of(), List.of(cut), List.of()).index();
            long t5 = System.nanoTime();
            if (warm >= 3) {
                int i = warm - 3;
                ms[0][i] = (t1 - t0) / 1e6;
                ms[1][i] = (t2 - t1) / 1e6;
                ms[2][i] = (t3 - t2) / 1e6;
                ms[3][i] = (t4 - t3) / 1e6;
                ms[4][i] = (t5 - t4) / 1e6;
            }
        }
        // the discovery manager's own snapshot of one link going down and up, warm: the control thread's part
        org.fabricmanager.daemon.registry.SwitchRegistry registry = new org.fabricmanager.daemon.registry.SwitchRegistry();
        org.fabricmanager.daemon.testing.ManualControlLoop loop = new org.fabricmanager.daemon.testing.ManualControlLoop();
        DiscoveryManager d = new DiscoveryManager(
                new DiscoverySettings(new org.fabricmanager.daemon.config.DaemonConfig.Discovery(500, 60_000), spec),
                new DiscoverySources(registry, java.util.function.UnaryOperator.identity(), java.util.List::of,
                        TopologicalIndexer::order,
                        new org.fabricmanager.daemon.store.IndexMapStore(java.nio.file.Path.of(
                                System.getProperty("java.io.tmpdir"), "fm-snapshot-bench-" + System.nanoTime())),
                        checker),
                loop, new org.fabricmanager.daemon.control.MilestoneLog(), task -> { }, why -> { }); // the check and the refresh run on their own thread in the daemon: not timed here
        java.util.Map<Long, org.fabricmanager.daemon.registry.ManagedSwitch> byGuid = new java.util.HashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            org.fabricmanager.daemon.testing.FakeSession session = org.fabricmanager.daemon.testing.FakeSession.of(
                    s.guid(), s.name(), s.ports(), 1);
            org.fabricmanager.daemon.registry.ManagedSwitch sw = registry.register(session, session.hello(), 0);
            for (PortRecord r : reports.of(s.guid())) {
                d.report(sw.ports(), r, false);
            }
            registry.admit(sw);
            d.admitted(sw.ports());
            d.changed();
            byGuid.put(s.guid(), sw);
        }
        d.snapshot().fabric().index();
        double[] derived = new double[runs];
        for (int warm = 0; warm < 3 + runs; warm++) {
            boolean down = warm % 2 == 0;
            PortRecord a = down ? PortRecord.down(cut.aPort()) : reports.of(cut.a()).get(cut.aPort() - 1);
            PortRecord b = down ? PortRecord.down(cut.bPort()) : reports.of(cut.b()).get(cut.bPort() - 1);
            d.report(byGuid.get(cut.a()).ports(), a, true);
            d.report(byGuid.get(cut.b()).ports(), b, true);
            long t0 = System.nanoTime();
            TopologyBuilder.Result r = d.snapshot();
            long t1 = System.nanoTime();
            r.fabric().index();
            if (warm >= 3) {
                derived[warm - 3] = (t1 - t0) / 1e6;
            }
        }
        Arrays.sort(derived);
        System.out.printf("  %-24s %8.1f ms (%.1f, %.1f); %d of %d snapshots derived%n", "manager snapshot (link)",
                derived[runs / 2], derived[0], derived[runs - 1], d.derivedSnapshots(), 3 + runs);
        // the fabric without a top switch, derived ahead of its leaving (a ring verdict's echo wait), and its index
        loop.advance(60_000);
        long top = fabric.switches().get(fabric.switches().size() - 1).guid();
        double[] without = new double[runs];
        double[] withoutIndex = new double[runs];
        for (int warm = 0; warm < 3 + runs; warm++) {
            long t0 = System.nanoTime();
            Fabric f = d.snapshotWithout(top);
            long t1 = System.nanoTime();
            f.index();
            long t2 = System.nanoTime();
            d.forgetTentative();
            if (warm >= 3) {
                without[warm - 3] = (t1 - t0) / 1e6;
                withoutIndex[warm - 3] = (t2 - t1) / 1e6;
            }
        }
        // the top switch leaves and comes back (a reboot): the snapshot of its return, derived as a join
        org.fabricmanager.daemon.registry.ManagedSwitch topSwitch = byGuid.get(top);
        double[] rejoin = new double[runs];
        double[] rejoinIndex = new double[runs];
        for (int warm = 0; warm < 3 + runs; warm++) {
            d.leaving(topSwitch.ports());
            registry.remove(topSwitch.session());
            d.snapshot().fabric().index(); // as its routing builds it, on the routing thread
            FabricSwitch s = fabric.switchByGuid(top).orElseThrow();
            org.fabricmanager.daemon.testing.FakeSession session = org.fabricmanager.daemon.testing.FakeSession.of(
                    s.guid(), s.name(), s.ports(), 2 + warm);
            topSwitch = registry.register(session, session.hello(), 0);
            for (PortRecord r : reports.of(s.guid())) {
                d.report(topSwitch.ports(), r, false);
            }
            registry.admit(topSwitch);
            d.admitted(topSwitch.ports());
            long t0 = System.nanoTime();
            TopologyBuilder.Result back = d.snapshot();
            long t1 = System.nanoTime();
            back.fabric().index();
            long t2 = System.nanoTime();
            if (warm >= 3) {
                rejoin[warm - 3] = (t1 - t0) / 1e6;
                rejoinIndex[warm - 3] = (t2 - t1) / 1e6;
            }
        }
        Arrays.sort(rejoin);
        Arrays.sort(rejoinIndex);
        System.out.printf("  %-24s %8.1f ms (%.1f, %.1f); its index %.1f ms (%.1f, %.1f); %d of them derived%n",
                "a top switch back", rejoin[runs / 2], rejoin[0], rejoin[runs - 1], rejoinIndex[runs / 2], rejoinIndex[0],
                rejoinIndex[runs - 1], d.derivedJoins());
        Arrays.sort(without);
        Arrays.sort(withoutIndex);
        System.out.printf("  %-24s %8.1f ms (%.1f, %.1f); its index %.1f ms (%.1f, %.1f)%n", "without a top switch",
                without[runs / 2], without[0], without[runs - 1], withoutIndex[runs / 2], withoutIndex[0],
                withoutIndex[runs - 1]);
        String[] names = {"build", "index", "check", "fingerprint", "derive + index (one link down)"};
        System.out.printf("%s, %d switches: warm median (min, max) over %d runs%n", text, fabric.switches().size(), runs);
        for (int p = 0; p < 5; p++) {
            Arrays.sort(ms[p]);
            System.out.printf("  %-24s %8.1f ms (%.1f, %.1f)%n", names[p], ms[p][runs / 2], ms[p][0], ms[p][runs - 1]);
        }
    }
}
