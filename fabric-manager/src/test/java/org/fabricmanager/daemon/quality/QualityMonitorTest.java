package org.fabricmanager.daemon.quality;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.api.PatternFigures;
import org.fabricmanager.daemon.api.QualityView;
import org.fabricmanager.daemon.api.RoutingQuality;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.QualityFigures;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TableQuality;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * The quality measured after each routing's tables converged: equal to {@link TableQuality} on the same
 * tables, published as gauges, stale as soon as a newer routing is installed, never measured for a routing
 * replaced before its tables converged, and after a burst of routings the newest is the one measured.
 */
class QualityMonitorTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,2;1,1,1)");

    @Test
    void measuresEachInstalledRoutingAndEndsOnTheNewestOfABurst() throws Exception {
        ActiveRouting[] routings = routings();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (QualityMonitor monitor = new QualityMonitor(1, registry)) {
            assertThat(monitor.view().quality()).isNull();
            monitor.measure(routings[0]);
            QualityView first = await(monitor, 1);
            assertEqualsAnalysis(first.quality(), routings[0]);
            assertThat(registry.get(QualityMonitor.CONGESTION_MAX).tag(QualityMonitor.PATTERN_TAG, "all2all").gauge().value())
                    .isEqualTo(first.quality().patterns().get("all2all").max());
            assertThat(registry.get(QualityMonitor.VERSION).gauge().value()).isEqualTo(1.0);

            // a burst: each routing installed is stale at once, the newest is the one measured in the end
            monitor.measure(routings[1]);
            QualityView afterSecond = monitor.view();
            assertThat(afterSecond.routingVersion()).isEqualTo(2);
            // 64 nodes measure in a millisecond: a descheduled test thread may already see v2 measured
            assertThat(afterSecond.stale() || afterSecond.quality().routingVersion() == 2)
                    .as("the figures of v1 are stale once v2 is in force: %s", afterSecond).isTrue();
            monitor.measure(routings[2]);
            monitor.measure(routings[3]);
            QualityView last = await(monitor, 4);
            assertEqualsAnalysis(last.quality(), routings[3]);
            assertThat(last.computing()).isFalse();
            assertThat(registry.get(QualityMonitor.CONGESTION_MAX).tag(QualityMonitor.PATTERN_TAG, "random").gauge().value())
                    .isEqualTo(last.quality().patterns().get("random").max());
            assertThat(last.quality().patterns().get("all2all").max())
                    .as("four switches fewer load the busiest link more")
                    .isGreaterThan(first.quality().patterns().get("all2all").max());

            // the version measured is not measured again
            monitor.measure(routings[3]);
            assertThat(monitor.view()).isEqualTo(last);
        }
    }

    @Test
    void aRoutingReplacedBeforeItsTablesConvergedIsNeverMeasured() throws Exception {
        ActiveRouting[] routings = routings();
        try (QualityMonitor monitor = new QualityMonitor(1, new SimpleMeterRegistry())) {
            monitor.installed(routings[0]);
            monitor.installed(routings[1]);
            // v1's push ends after v2 was installed (a fault during the first push): v1 is not worth a core
            monitor.measure(routings[0]);
            QualityView view = monitor.view();
            assertThat(view.routingVersion()).isEqualTo(2);
            assertThat(view.computing()).as("nothing measured for a routing no longer in force").isFalse();
            assertThat(view.stale()).isTrue();
            assertThat(view.quality()).isNull();

            monitor.measure(routings[1]);
            assertEqualsAnalysis(await(monitor, 2).quality(), routings[1]);
        }
    }

    @Test
    void aFabricChangeAbandonsTheMeasurementUnderWayAndTheNextConvergenceMeasuresAgain() throws Exception {
        // 4,096 nodes: seconds of analysis on one thread, so the change lands while it runs
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;16,16,16;1,16,16;1,1,1)"));
        ActiveRouting routing;
        try (DmodcEngine engine = new DmodcEngine(2)) {
            RoutingResult r = engine.route(fabric.index());
            routing = new ActiveRouting(1, fabric, "fp", new TableSet(1, r.tables()), "dmodc", 1.0, true, 0, false, null);
        }
        try (QualityMonitor monitor = new QualityMonitor(1, new SimpleMeterRegistry())) {
            monitor.measure(routing);
            assertThat(monitor.view().computing()).isTrue();
            monitor.fabricChanging();
            Await.value("the measurement to end", Duration.ofSeconds(60), monitor::view, v -> !v.computing());
            assertThat(monitor.view().quality()).as("abandoned: no figures of a measurement cut short").isNull();
            assertThat(monitor.view().stale()).isTrue();

            // the fault needed no new tables: they converge again on the same routing, which is measured whole
            monitor.measure(routing);
            assertThat(await(monitor, 1).quality().valid()).isTrue();
        }
    }

    /** Four routings of {@link #SPEC}, each with more spines gone, as versions 1 to 4. */
    private static ActiveRouting[] routings() {
        Fabric intact = PgftGenerator.generate(SPEC);
        List<Fabric> fabrics = List.of(intact,
                intact.withoutSwitches(List.of(PgftGenerator.switchGuid(3, 0))),
                intact.withoutSwitches(List.of(PgftGenerator.switchGuid(3, 0), PgftGenerator.switchGuid(3, 1))),
                intact.withoutSwitches(List.of(PgftGenerator.switchGuid(3, 0), PgftGenerator.switchGuid(3, 1),
                        PgftGenerator.switchGuid(3, 2), PgftGenerator.switchGuid(2, 5))));
        ActiveRouting[] routings = new ActiveRouting[fabrics.size()];
        try (DmodcEngine engine = new DmodcEngine(1)) {
            for (int v = 0; v < routings.length; v++) {
                RoutingResult r = engine.route(fabrics.get(v).index());
                routings[v] = new ActiveRouting(v + 1, fabrics.get(v), "fp" + v, new TableSet(v + 1, r.tables()), "dmodc",
                        1.0, r.validity().isValid(), r.validity().unreachablePairs(), false, null);
            }
        }
        return routings;
    }

    private static void assertEqualsAnalysis(RoutingQuality q, ActiveRouting r) {
        RoutedFabric routed = RoutedFabric.of(r.fabric().index(), r.tables().tables());
        QualityFigures expected = new TableQuality(routed, 1).measure(TableQuality.defaultPatterns(routed.attachedCount()));
        assertThat(q.routingVersion()).isEqualTo(r.version());
        assertThat(q.valid()).isEqualTo(expected.validity().isValid());
        assertThat(q.unreachableLeafPairs()).isEqualTo(expected.validity().unreachablePairs());
        assertThat(q.deadlockFree()).isEqualTo(expected.deadlockFree());
        assertThat(q.maxPathLength()).isEqualTo(expected.maxPathLength());
        assertThat(q.patterns()).hasSize(3);
        for (PatternCongestion c : expected.patterns()) {
            assertThat(q.patterns().get(c.pattern().name())).isEqualTo(PatternFigures.of(c));
        }
    }

    @Test
    void aHeldMonitorMeasuresOnlyOnceEveryHoldIsClosed() throws Exception {
        ActiveRouting[] routings = routings();
        try (QualityMonitor monitor = new QualityMonitor(1, new SimpleMeterRegistry())) {
            // the OpenSM provider holds the analyses while it computes the tables by LID it answers with
            DaemonApi.Hold first = monitor.hold();
            DaemonApi.Hold second = monitor.hold();
            monitor.measure(routings[0]);
            assertThat(monitor.view().quality()).as("nothing measured while held").isNull();
            assertThat(monitor.view().computing()).as("the measurement is due").isTrue();
            first.close();
            first.close(); // a hold closes once: the second one still holds
            assertThat(monitor.view().quality()).as("still held by the second hold").isNull();
            second.close();
            assertEqualsAnalysis(await(monitor, 1).quality(), routings[0]);
        }
    }

    private static QualityView await(QualityMonitor monitor, long version) {
        QualityView v = Await.value("v" + version + " measured", Duration.ofSeconds(60), monitor::view,
                w -> w.quality() != null && w.quality().routingVersion() == version && !w.computing());
        assertThat(v.stale()).isFalse();
        return v;
    }
}
