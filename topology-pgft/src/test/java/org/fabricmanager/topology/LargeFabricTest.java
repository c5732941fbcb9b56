package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.testing.TestFabrics;
import org.junit.jupiter.api.Test;

/**
 * The largest fabric the issue names, {@code PGFT(3;32,32,64;1,32,32;1,1,1)} (65,536 nodes, 5,120
 * switches), built, indexed, ordered and recognised (by GUID and by structure) in memory under the test heap (-Xmx2g). No
 * timing is asserted: speed belongs in benchmarks.
 */
class LargeFabricTest {

    @Test
    void buildsIndexesAndRecognisesSixtyFiveThousandNodes() {
        PgftSpec spec = PgftSpec.parse("PGFT(3;32,32,64;1,32,32;1,1,1)");
        Fabric fabric = PgftGenerator.generate(spec);
        assertThat(fabric.nodes()).hasSize(65_536);
        assertThat(fabric.switches()).hasSize(5_120);
        assertThat(fabric.links()).hasSize(65_536 + 2_048 * 32 + 2_048 * 32);

        FabricIndex index = fabric.index();
        assertThat(index.leafCount()).isEqualTo(2_048);
        assertThat(index.destinationCount()).isEqualTo(65_536);

        FabricSummary summary = FabricSummary.of(fabric);
        assertThat(summary.levels()).extracting(FabricSummary.Level::switches).containsExactly(2_048, 2_048, 1_024);
        assertThat(summary.levels()).extracting(FabricSummary.Level::maxRadix).containsExactly(64, 64, 64);

        long[] order = TopologicalIndexer.order(fabric);
        for (int d = 0; d < order.length; d += 997) {
            assertThat(order[d]).isEqualTo(PgftGenerator.nodeGuid(d));
        }
        assertThat(PgftRecognizer.recognize(fabric).verdict()).isEqualTo(PgftRecognition.Verdict.INTACT);
        // the same fabric as a real cluster would report it: matched by structure, spec inferred
        PgftRecognition relabelled = PgftRecognizer.recognize(TestFabrics.relabel(fabric, 1));
        assertThat(relabelled.matching()).isEqualTo(PgftRecognition.Matching.BY_STRUCTURE);
        assertThat(relabelled.verdict()).isEqualTo(PgftRecognition.Verdict.INTACT);
        assertThat(relabelled.spec()).isEqualTo(spec);
    }
}
