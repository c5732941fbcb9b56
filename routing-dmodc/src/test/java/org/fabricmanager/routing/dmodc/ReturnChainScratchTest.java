package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Link;
import org.junit.jupiter.api.Test;

class ReturnChainScratchTest {
    @Test
    void chain() {
        String spec = System.getProperty("chain.spec", "PGFT(3;16,16,16;1,16,16;1,1,1)");
        try (DmodcEngine engine = new DmodcEngine(2)) {
            Fabric intact = TestFabrics.canonical(spec);
            long top = TestFabrics.sw(3, 5);
            long l2 = TestFabrics.sw(2, 37);
            Link uplink = null;
            for (Link l : intact.links()) {
                if ((l.a() == TestFabrics.sw(1, 20) && intact.isSwitch(l.b())) || (l.b() == TestFabrics.sw(1, 20) && intact.isSwitch(l.a()))) {
                    uplink = l;
                    break;
                }
            }
            Fabric f1 = intact.withoutSwitches(List.of(top));
            Fabric f2 = f1.withoutLinks(List.of(uplink));
            Fabric f3 = f2.withoutSwitches(List.of(l2));
            List<Fabric> chain = List.of(f1, f2, f3, f2, f1, intact);
            List<String> names = List.of("-top", "-uplink", "-l2", "+l2", "+uplink", "+top");
            ForwardingTables t = engine.compute(intact.index()).result().tables();
            report("intact", intact.index(), t, t);
            for (int i = 0; i < chain.size(); i++) {
                FabricIndex idx = chain.get(i).index();
                DmodcRouting r = engine.repair(t, idx);
                ForwardingTables full = engine.compute(idx).result().tables();
                System.out.printf("%s taken back %d; changed vs previous %d%n", names.get(i), r.takenBack(), diff(t, r.result().tables()));
                t = r.result().tables();
                report(names.get(i), idx, t, full);
            }
        }
    }

    static long diff(ForwardingTables a, ForwardingTables b) {
        long n = 0;
        for (int s = 0; s < b.switchCount(); s++) {
            int as = -1;
            for (int k = 0; k < a.switchCount(); k++) {
                if (a.switchGuid(k) == b.switchGuid(s)) {
                    as = k;
                }
            }
            for (int d = 0; d < b.destinationCount(); d++) {
                if (as < 0 ? b.port(s, d) != 255 : a.port(as, d) != b.port(s, d)) {
                    n++;
                }
            }
        }
        return n;
    }

    static void report(String name, FabricIndex idx, ForwardingTables t, ForwardingTables full) {
        List<String> out = new ArrayList<>();
        for (ForwardingTables x : List.of(t, full)) {
            CongestionAnalyzer c = new CongestionAnalyzer(RoutedFabric.of(idx, x), 2);
            out.add(String.format("shift %d a2a %d rnd %.2f", c.analyze(new TrafficPattern.Shift()).max(),
                    c.analyze(new TrafficPattern.AllToAll()).max(), c.analyze(new TrafficPattern.RandomPermutations(200, 99)).mean()));
        }
        System.out.printf("%-8s differ from full %d | tables %s | full %s%n", name, diff(full, t), out.get(0), out.get(1));
    }
}
