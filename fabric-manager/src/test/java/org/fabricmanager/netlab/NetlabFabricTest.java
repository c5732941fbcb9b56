package org.fabricmanager.netlab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How a netlab's namespaces and cables are split into iproute2 batches (NetlabFabric). */
class NetlabFabricTest {
    /** Any number of commands: every batch within the limit, none empty, all commands once and in order. */
    @Test
    void batchesKeepEveryCommandInOrderWithinTheLimit() {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        for (int run = 0; run < 200; run++) {
            int n = r.nextInt(3 * NetlabFabric.COMMANDS_PER_BATCH);
            int size = 1 + r.nextInt(NetlabFabric.COMMANDS_PER_BATCH);
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                lines.add("link add p" + i);
            }
            List<List<String>> batches = NetlabFabric.batches(lines, size);
            List<String> joined = new ArrayList<>();
            for (List<String> b : batches) {
                assertThat(b).as("seed %d", seed).isNotEmpty().hasSizeLessThanOrEqualTo(size);
                joined.addAll(b);
            }
            assertThat(joined).as("seed %d", seed).isEqualTo(lines);
            assertThat(batches).as("seed %d", seed).hasSize((n + size - 1) / size);
        }
    }

    /** A 768-switch lab's 4,864 namespaces and 12,288 cables need many batches, each far below 1,024 descriptors. */
    @Test
    void aBatchOpensFewerNamespaceFilesThanAProcessMayHold() {
        assertThat(2 * NetlabFabric.COMMANDS_PER_BATCH).isLessThan(1_024);
    }
}
