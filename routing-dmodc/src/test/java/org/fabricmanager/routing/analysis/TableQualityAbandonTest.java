package org.fabricmanager.routing.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;

/**
 * A quality measurement overtaken by a fault gives up inside its analyses, not only between them: the daemon's
 * re-route must not share the cores with tens of seconds of analysis of a routing about to be replaced.
 */
class TableQualityAbandonTest {
    private static final String SPEC = "PGFT(3;4,4,8;1,4,4;1,1,1)";

    @Test
    void aMeasurementGivesUpWithinAnAnalysisOnceAskedAndIsUnchangedWhenNever() {
        RoutedFabric routed = routed();
        List<TrafficPattern> patterns = TableQuality.defaultPatterns(routed.attachedCount());
        Validity validity = TracedValidity.of(routed);
        QualityFigures whole = new TableQuality(routed, 2).measure(validity, patterns, () -> false);
        assertThat(whole).isNotNull();

        // how often a whole measurement asks: far more often than once per analysis (5 analyses here)
        AtomicLong asked = new AtomicLong();
        QualityFigures counted = new TableQuality(routed, 2).measure(validity, patterns, () -> {
            asked.incrementAndGet();
            return false;
        });
        assertThat(counted).isEqualTo(whole);
        int blocks = DestinationBlock.blockCount(routed.index().destinationCount());
        assertThat(asked.get()).as("checked before each block of destinations of each per-destination analysis")
                .isGreaterThanOrEqualTo(3L * blocks);

        // turned true at any point of the way: nothing more is analysed, no figures
        for (long after : new long[] {0, 1, blocks / 2, blocks + 3, asked.get() - 1}) {
            AtomicLong calls = new AtomicLong();
            QualityFigures cut = new TableQuality(routed, 2).measure(validity, patterns,
                    () -> calls.incrementAndGet() > after);
            assertThat(cut).as("abandoned after %d checks", after).isNull();
            assertThat(calls.get()).as("no check after the measurement gave up (2 workers)").isLessThanOrEqualTo(after + 2);
        }
    }

    @Test
    void tracedValidityGivesUpBeforeTheNextLeaf() {
        RoutedFabric routed = routed();
        AtomicLong calls = new AtomicLong();
        assertThatThrownBy(() -> TracedValidity.of(routed, () -> calls.incrementAndGet() > 3))
                .isInstanceOf(AbandonedException.class);
        assertThat(calls.get()).isEqualTo(4);
        assertThat(TracedValidity.of(routed, () -> false)).isEqualTo(TracedValidity.of(routed));
    }

    private static RoutedFabric routed() {
        try (RoutingEngine dmodc = RoutingEngines.create("dmodc", 1)) {
            FabricIndex index = TestFabrics.canonical(SPEC).index();
            return RoutedFabric.of(index, dmodc.route(index).tables());
        }
    }
}
