package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The worked example of FORMATS.md, checked link by link against hand-computed numbering. */
class PgftGeneratorExampleTest {
    private final Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)"));

    @Test
    void hasTheCountsOfTheSpecExample() {
        assertThat(fabric.nodes()).hasSize(12);
        assertThat(fabric.switches()).hasSize(16);
        assertThat(fabric.links()).hasSize(12 + 24 + 12);
        FabricSummary summary = FabricSummary.of(fabric);
        assertThat(summary.levels()).extracting(FabricSummary.Level::switches).containsExactly(6, 6, 4);
        assertThat(summary.levels()).extracting(FabricSummary.Level::linksDown).containsExactly(12, 24, 12);
        assertThat(summary.levels()).extracting(FabricSummary.Level::maxRadix).containsExactly(6, 6, 3);
    }

    @Test
    void wiresLeafZeroAsComputedByHand() {
        // s1-0 up ports 3,4 to s2-0 down ports 1,2; up ports 5,6 to s2-1 down ports 1,2.
        assertThat(fabric.links()).contains(
                new Link(0x1000000100000000L, 3, 0x1000000200000000L, 1),
                new Link(0x1000000100000000L, 4, 0x1000000200000000L, 2),
                new Link(0x1000000100000000L, 5, 0x1000000200000001L, 1),
                new Link(0x1000000100000000L, 6, 0x1000000200000001L, 2));
        // node 5 is on leaf 2, port 2
        assertThat(fabric.links()).contains(new Link(0x1000000100000002L, 2, 0x2000000000000005L, 1));
    }

    @Test
    void wiresLevelTwoToTopAsComputedByHand() {
        // s2-3: A = 1, B = 1 (W2 = 2); c = A mod 3 = 1; parents (0, 1 + b*2) = s3-1, s3-3; down port 1 + c*1 = 2.
        assertThat(fabric.links()).contains(
                new Link(0x1000000200000003L, 5, 0x1000000300000001L, 2),
                new Link(0x1000000200000003L, 6, 0x1000000300000003L, 2));
    }
}
