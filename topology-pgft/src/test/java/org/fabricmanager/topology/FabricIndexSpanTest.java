package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Sparse destination indices are accepted up to a bound, beyond which a file is rejected, not an OOM. */
class FabricIndexSpanTest {
    private static final FabricSwitch LEAF = new FabricSwitch(0x10L, "leaf", 4);

    @Test
    void acceptsIndicesWithGapsWithinTheSpan() {
        EndNode node = new EndNode(0x20L, "n", Fabric.maxIndexSpan(1) - 1);
        Fabric fabric = new Fabric(null, List.of(LEAF), List.of(node), List.of(new Link(0x10L, 1, 0x20L, 1)));
        assertThat(fabric.index().destinationCount()).isEqualTo(Fabric.maxIndexSpan(1));
    }

    @Test
    void rejectsAnIndexFarAboveTheNodeCountNamingTheNode() {
        EndNode node = new EndNode(0x20L, "n", 2_000_000_000);
        assertThatThrownBy(() -> new Fabric(null, List.of(LEAF), List.of(node), List.of()))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("nodes[0] (0x0000000000000020)")
                .hasMessageContaining("too sparse");
    }
}
