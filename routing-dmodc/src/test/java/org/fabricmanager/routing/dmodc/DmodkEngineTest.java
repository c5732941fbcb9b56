package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Dmodk: equal to Dmodc on every intact canonical PGFT, and refusing everything else. */
class DmodkEngineTest {
    private static final DmodkEngine DMODK = new DmodkEngine(3);
    private static final DmodcEngine DMODC = new DmodcEngine(2);

    @AfterAll
    static void close() {
        DMODK.close();
        DMODC.close();
    }

    @Test
    void dmodcAndDmodkTablesAreEqualOnIntactCanonicalPgfts() {
        List<String> specs = new ArrayList<>(TestFabrics.DMODC_SPECS);
        specs.addAll(List.of("PGFT(2;16,8;1,4;1,2)", "PGFT(3;8,4,6;1,4,2;1,2,3)", "PGFT(3;5,3,2;1,5,3;1,1,1)",
                "PGFT(3;2,6,2;1,2,4;1,3,2)", "PGFT(4;3,2,2,3;1,3,2,2;1,2,1,2)", "PGFT(3;16,8,8;1,8,8;1,2,1)"));
        for (String spec : specs) {
            Fabric fabric = TestFabrics.canonical(spec);
            ForwardingTables dmodk = DMODK.route(fabric.index()).tables();
            ForwardingTables dmodc = DMODC.route(fabric.index()).tables();
            for (int s = 0; s < dmodk.switchCount(); s++) {
                for (int d = 0; d < dmodk.destinationCount(); d++) {
                    if (dmodk.port(s, d) != dmodc.port(s, d)) {
                        throw new AssertionError(spec + ": switch " + Long.toHexString(dmodk.switchGuid(s)) + " d=" + d
                                + ": dmodk " + dmodk.port(s, d) + ", dmodc " + dmodc.port(s, d));
                    }
                }
            }
            assertThat(dmodk.sameAs(dmodc)).as(spec).isTrue();
        }
    }

    @Test
    void rowsFollowTheClosedFormEntryByEntry() {
        for (String text : TestFabrics.DMODC_SPECS) {
            PgftSpec spec = PgftSpec.parse(text);
            for (int l = 1; l <= spec.h(); l++) {
                for (int idx = 0; idx < spec.switchCount(l); idx++) {
                    byte[] row = DmodkEngine.row(spec, l, idx, spec.nodeCount());
                    for (int d = 0; d < row.length; d++) {
                        assertThat(row[d] & 0xff).as(text + " s" + l + "-" + idx + " d=" + d)
                                .isEqualTo(DmodkFormula.port(spec, l, idx, d));
                    }
                }
            }
        }
    }

    @Test
    void refusesADegradedFabricSayingWhatIsMissing() {
        Fabric intact = TestFabrics.canonical("PGFT(3;4,4,4;1,4,4;1,1,1)");
        Fabric fabric = Degrader.degrade(intact, DegradationPlan.random(0.05, 0, 3));
        // 128 switch links, 5% of them
        assertThat(intact.links().size() - fabric.links().size()).isEqualTo(6);
        assertThatThrownBy(() -> DMODK.route(fabric.index()))
                .isInstanceOf(RoutingException.class)
                .hasMessage("dmodk needs an intact canonical PGFT: fabric is degraded (6 links missing)");
        Fabric noSwitch = Degrader.degrade(intact, DegradationPlan.random(0.0, 2, 3));
        int missing = intact.links().size() - noSwitch.links().size();
        assertThatThrownBy(() -> DMODK.route(noSwitch.index()))
                .hasMessage("dmodk needs an intact canonical PGFT: fabric is degraded (2 switches and " + missing
                        + " links missing)");
    }

    @Test
    void refusesAFabricWithoutAnExpectedShape() {
        Fabric fabric = TestFabrics.canonical("PGFT(2;4,4;1,2;1,1)").withPgft(null);
        assertThatThrownBy(() -> DMODK.route(fabric.index()))
                .isInstanceOf(RoutingException.class)
                .hasMessageStartingWith("dmodk needs an intact canonical PGFT: the fabric has no expected PGFT shape");
    }

    @Test
    void refusesAMiswiredFabricNamingThePort() {
        Fabric fabric = TestFabrics.canonical("PGFT(2;2,2;1,2;1,1)");
        long leaf0 = PgftGenerator.switchGuid(1, 0);
        long leaf1 = PgftGenerator.switchGuid(1, 1);
        long top0 = PgftGenerator.switchGuid(2, 0);
        long top1 = PgftGenerator.switchGuid(2, 1);
        // Swap the cables at the top: leaf 0 port 3 now reaches top 0 port 2 (canonical: port 1).
        List<Link> links = new ArrayList<>();
        for (Link l : fabric.links()) {
            if (!(l.a() == leaf0 && l.aPort() == 3) && !(l.a() == leaf1 && l.aPort() == 3)) {
                links.add(l);
            }
        }
        links.add(new Link(leaf0, 3, top0, 2));
        links.add(new Link(leaf1, 3, top0, 1));
        Fabric miswired = new Fabric(fabric.pgft().orElseThrow(), fabric.switches(), fabric.nodes(), links);
        assertThat(top1).isNotZero();
        assertThatThrownBy(() -> DMODK.route(miswired.index()))
                .hasMessage("dmodk needs an intact canonical PGFT: port 3 of switch 0x1000000100000000 is linked to "
                        + "0x1000000200000000 port 2, expected 0x1000000200000000 port 1");
    }
}
