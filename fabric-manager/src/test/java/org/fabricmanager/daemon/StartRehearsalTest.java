package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.daemon.discovery.RecognizingFabricChecker;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.discovery.TopologyBuilder;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologicalIndexer;
import org.junit.jupiter.api.Test;

class StartRehearsalTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,2;1,1,1)");

    @Test
    void theReportsOfTheExpectedFabricBuildThatVeryFabric() {
        Fabric expected = PgftGenerator.generate(SPEC);
        List<SwitchPorts> reports = StartRehearsal.reports(expected);
        assertThat(reports).hasSize(expected.switches().size());
        Fabric built = TopologyBuilder.build(reports, new DestinationIndexMap(), SPEC, TopologicalIndexer::order).fabric();
        assertThat(built.switches()).hasSameSizeAs(expected.switches());
        assertThat(built.nodes()).hasSameSizeAs(expected.nodes());
        assertThat(built.links()).hasSameSizeAs(expected.links());
        assertThat(new RecognizingFabricChecker().check(built, SPEC).verdict())
                .isEqualTo(org.fabricmanager.daemon.api.FabricCheck.Verdict.INTACT);
    }

    @Test
    void allStepsRunWhileDiscoveringAndNoneAfter() {
        assertThat(StartRehearsal.run(SPEC, "dmodc", new RecognizingFabricChecker(), TopologicalIndexer::order,
                () -> true)).isEqualTo(5);
        assertThat(StartRehearsal.run(SPEC, "dmodc", new RecognizingFabricChecker(), TopologicalIndexer::order,
                () -> false)).isZero();
        // the daemon's first routing starts after two of the checks: the rehearsal stops there
        AtomicInteger asked = new AtomicInteger();
        assertThat(StartRehearsal.run(SPEC, "dmodc", new RecognizingFabricChecker(), TopologicalIndexer::order,
                () -> asked.incrementAndGet() <= 2)).isEqualTo(2);
    }

    @Test
    void anEngineThatCannotBeMadeEndsTheRehearsalWithoutHarm() {
        assertThat(StartRehearsal.run(SPEC, "no-such-engine", new RecognizingFabricChecker(), TopologicalIndexer::order,
                () -> true)).isEqualTo(-1);
    }
}
