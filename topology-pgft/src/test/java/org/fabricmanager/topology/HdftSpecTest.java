package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HdftSpecTest {

    @Test
    void parsesAndPrintsTheNotation() {
        HdftSpec spec = HdftSpec.parse("HDFT(16x16;8;1;1)");
        assertThat(spec).isEqualTo(new HdftSpec(16, 16, 8, 1, 1));
        assertThat(spec.toString()).isEqualTo("HDFT(16x16;8;1;1)");
        assertThat(HdftSpec.parse(" HDFT ( 8 X 4 ; 2 ; 2 ; 3 ) ")).hasToString("HDFT(8x4;2;2;3)")
                .isEqualTo(new HdftSpec(8, 4, 2, 2, 3));
    }

    @Test
    void countsFollowTheShape() {
        HdftSpec spec = HdftSpec.parse("HDFT(16x16;8;1;1)");
        assertThat(spec.leafCount()).isEqualTo(256);
        assertThat(spec.nodeCount()).isEqualTo(2048);
        assertThat(spec.rowSwitchCount()).isEqualTo(16);
        assertThat(spec.columnSwitchCount()).isEqualTo(16);
        assertThat(spec.totalSwitchCount()).isEqualTo(288);
        assertThat(spec.totalLinkCount()).isEqualTo(2048 + 256 * 2);
        assertThat(spec.leafRadix()).isEqualTo(10);
        HdftSpec wide = HdftSpec.parse("HDFT(5x3;2;2;3)");
        assertThat(wide.leafIndex(4, 2)).isEqualTo(14);
        assertThat(wide.nodeIndex(4, 2, 1)).isEqualTo(29);
        assertThat(wide.rowSwitchCount()).isEqualTo(6);
        assertThat(wide.columnSwitchCount()).isEqualTo(15);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "PGFT(2;4,4;1,4;1,1)|HDFT: malformed 'PGFT(2;4,4;1,4;1,1)': expected HDFT(XxY;k;r;c), e.g. HDFT(16x16;8;1;1)",
        "HDFT(16x16;8;1)|HDFT: malformed 'HDFT(16x16;8;1)': 3 ';'-separated parts, expected HDFT(XxY;k;r;c)",
        "HDFT(16;8;1;1)|HDFT: malformed 'HDFT(16;8;1;1)': the grid '16' must be XxY, e.g. 16x16",
        "HDFT(4x4;a;1;1)|HDFT: malformed 'HDFT(4x4;a;1;1)': k 'a' is not a non-negative integer",
        "HDFT(4x-4;1;1;1)|HDFT: malformed 'HDFT(4x-4;1;1;1)': Y '-4' is not a non-negative integer",
        "HDFT(0x4;1;1;1)|HDFT: X (columns) must be at least 1, got 0",
        "HDFT(4x4;1;0;1)|HDFT: r (row switches per row) must be at least 1, got 0",
        "HDFT(255x4;1;1;1)|HDFT: HDFT(255x4;1;1;1): row switches need X = 255 ports, more than 254",
        "HDFT(4x300;1;1;1)|HDFT: HDFT(4x300;1;1;1): column switches need Y = 300 ports, more than 254",
        "HDFT(4x4;200;30;30)|HDFT: HDFT(4x4;200;30;30): leaf switches need k+r+c = 260 ports, more than 254",
        "HDFT(4x4;99999999999;1;1)|HDFT: k '99999999999' in 'HDFT(4x4;99999999999;1;1)' is too large",
        "HDFT(4x4;1;1;1;1)|HDFT: malformed 'HDFT(4x4;1;1;1;1)': 5 ';'-separated parts",
        "HDFT(4x4x4;1;1;1)|HDFT: malformed 'HDFT(4x4x4;1;1;1)': the grid '4x4x4' must be XxY",
    })
    void rejectsBadNotationWithAPreciseMessage(String text, String message) {
        assertThatThrownBy(() -> HdftSpec.parse(text)).isInstanceOf(TopologyException.class).hasMessageStartingWith(message);
    }

    @Test
    void theLargestShapeFitsAnInt() {
        HdftSpec spec = HdftSpec.parse("HDFT(254x254;252;1;1)");
        assertThat(spec.nodeCount()).isEqualTo(254 * 254 * 252);
        assertThat(spec.totalLinkCount()).isEqualTo(254 * 254 * 254);
    }

    @Test
    void rejectsAnEmptySpecification() {
        assertThatThrownBy(() -> HdftSpec.parse(" ")).hasMessageContaining("empty specification");
        assertThatThrownBy(() -> HdftSpec.parse(null)).hasMessageContaining("empty specification");
    }
}
