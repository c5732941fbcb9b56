package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TableHashTest {
    @Test
    void matchesTheTestVectorsOfTheProtocolDocument() {
        assertThat(TableHash.EMPTY).isEqualTo(0x4d25767f9dce13f5L);
        assertThat(TableHash.of(new byte[] {1, 2, (byte) 255})).isEqualTo(0xa03cc5fbb8c6bc00L);
        byte[] unrouted = new byte[64];
        Arrays.fill(unrouted, (byte) 255);
        assertThat(TableHash.of(unrouted)).isEqualTo(0x550fdadba6740d75L);
    }

    @Test
    void lengthIsPartOfTheHash() {
        assertThat(TableHash.of(new byte[] {0})).isNotEqualTo(TableHash.of(new byte[] {0, 0}));
        byte[] big = {9, 1, 2, 3};
        assertThat(TableHash.of(big, 1, 3)).isEqualTo(TableHash.of(new byte[] {1, 2, 3}));
    }
}
