package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The worked example of docs/formats.md, checked link by link against hand-computed numbering. */
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

    @Test
    void namesGuidsAndPortCountsFollowTheSpec() {
        assertThat(fabric.switchByGuid(0x1000000300000003L)).get().extracting(FabricSwitch::name).isEqualTo("s3-3");
        assertThat(fabric.switchByGuid(0x1000000100000005L)).get().extracting(FabricSwitch::ports).isEqualTo(6);
        assertThat(fabric.switchByGuid(0x1000000200000005L)).get().extracting(FabricSwitch::ports).isEqualTo(6);
        assertThat(fabric.switchByGuid(0x1000000300000000L)).get().extracting(FabricSwitch::ports).isEqualTo(3);
        assertThat(fabric.nodeByGuid(0x200000000000000bL)).get()
                .satisfies(n -> assertThat(n.name()).isEqualTo("n11"))
                .satisfies(n -> assertThat(n.index()).isEqualTo(11));
        assertThat(fabric.switchByGuid(0x1000000100000006L)).isEmpty();
        assertThat(fabric.switchByGuid(0x1000000300000004L)).isEmpty();
    }

    @Test
    void wiresTheLastLeafAndItsNodesAsComputedByHand() {
        // node 11: leaf floor(11/2) = 5, port 1 + 11 mod 2 = 2
        assertThat(fabric.links()).contains(new Link(0x1000000100000005L, 2, 0x200000000000000bL, 1));
        // s1-5: A = 5, c = 5 mod 2 = 1, parents (2, 0 + b) = s2-4, s2-5; down ports 1 + 1*2 + j = 3, 4
        assertThat(fabric.links()).contains(
                new Link(0x1000000100000005L, 3, 0x1000000200000004L, 3),
                new Link(0x1000000100000005L, 4, 0x1000000200000004L, 4),
                new Link(0x1000000100000005L, 5, 0x1000000200000005L, 3),
                new Link(0x1000000100000005L, 6, 0x1000000200000005L, 4));
    }

    @Test
    void topSwitchHasExactlyTheChildrenOfItsColumn() {
        // s3-3: B = 3, children are the level-2 switches with B mod W2 = 1: s2-1, s2-3, s2-5 (A = 0, 1, 2)
        long s33 = 0x1000000300000003L;
        assertThat(fabric.links()).filteredOn(l -> l.a() == s33 || l.b() == s33).containsExactlyInAnyOrder(
                new Link(0x1000000200000001L, 6, s33, 1),
                new Link(0x1000000200000003L, 6, s33, 2),
                new Link(0x1000000200000005L, 6, s33, 3));
        // s2-0 (A = 0, B = 0): up port 5 to s3-0 port 1, up port 6 to s3-2 port 1
        assertThat(fabric.links()).contains(
                new Link(0x1000000200000000L, 5, 0x1000000300000000L, 1),
                new Link(0x1000000200000000L, 6, 0x1000000300000002L, 1));
    }

    @Test
    void isRecognisedAsIntactByGuid() {
        PgftRecognition r = PgftRecognizer.recognize(fabric);
        assertThat(r.verdict()).isEqualTo(PgftRecognition.Verdict.INTACT);
        assertThat(r.matching()).isEqualTo(PgftRecognition.Matching.BY_GUID);
        assertThat(r.levels()).extracting(PgftRecognition.LevelCount::present).containsExactly(6, 6, 4);
    }
}
