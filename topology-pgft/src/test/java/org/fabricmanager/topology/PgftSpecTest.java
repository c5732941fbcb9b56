package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.fabricmanager.testing.TestFabrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Parsing and printing of the PGFT notation, and every rejection with its message. */
class PgftSpecTest {

    @Test
    void printsWhatItParsesForManySpecs() {
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            String text = spec.toString();
            assertThat(PgftSpec.parse(text)).as(text).isEqualTo(spec);
            assertThat(PgftSpec.parse(text).toString()).isEqualTo(text);
            assertThat(PgftSpec.parse(text).hashCode()).isEqualTo(spec.hashCode());
        }
    }

    @Test
    void acceptsSpacesAnywhereBetweenTokens() {
        PgftSpec spec = PgftSpec.parse("  PGFT ( 3 ; 2 , 2 , 3 ; 1, 2, 2 ; 1 ,2 ,1 )  ");
        assertThat(spec.toString()).isEqualTo("PGFT(3;2,2,3;1,2,2;1,2,1)");
        assertThat(spec.h()).isEqualTo(3);
        assertThat(spec.m(3)).isEqualTo(3);
        assertThat(spec.w(2)).isEqualTo(2);
        assertThat(spec.p(2)).isEqualTo(2);
    }

    @Test
    void countsFollowTheFormulas() {
        PgftSpec spec = PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)");
        assertThat(spec.nodeCount()).isEqualTo(12);
        assertThat(spec.switchCount(1)).isEqualTo(6);
        assertThat(spec.switchCount(2)).isEqualTo(6);
        assertThat(spec.switchCount(3)).isEqualTo(4);
        assertThat(spec.linkCount(1)).isEqualTo(12);
        assertThat(spec.linkCount(2)).isEqualTo(24);
        assertThat(spec.linkCount(3)).isEqualTo(12);
        assertThat(spec.radix(1)).isEqualTo(2 + 2 * 2);
        assertThat(spec.radix(2)).isEqualTo(2 * 2 + 2 * 1);
        assertThat(spec.radix(3)).isEqualTo(3);
        assertThat(spec.bigW(3)).isEqualTo(4);
        assertThat(spec.bigM(2)).isEqualTo(4);
        assertThat(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)").isFullBisection()).isTrue();
        assertThat(PgftSpec.parse("PGFT(3;4,4,4;1,2,2;1,1,1)").isFullBisection()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "PGFT", "PGFT()", "PGFT(2;2,2;1,2)", "pgft(1;2;1;1)", "PGFT(2;2,2;1,2;1,1)x",
        "PGFT(2;2,;1,2;1,1)", "PGFT(2;2,a;1,2;1,1)", "PGFT(2;2,-2;1,2;1,1)", "PGFT(2 2;2,2;1,2;1,1)",
        "PGFT(1;2.5;1;1)", "PGFT(1;\u0662;1;1)"})
    void rejectsMalformedText(String text) {
        assertThatThrownBy(() -> PgftSpec.parse(text)).isInstanceOf(TopologyException.class)
                .hasMessageContaining("PGFT:").hasMessageContaining("malformed");
    }

    @Test
    void rejectsNull() {
        assertThatThrownBy(() -> PgftSpec.parse(null)).isInstanceOf(TopologyException.class)
                .hasMessageContaining("empty");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "PGFT(0;1;1;1)|h must be at least 1",
        "PGFT(2;2,2,2;1,2;1,1)|h=2 but 3 m values",
        "PGFT(2;2,2;1,2,2;1,1)|h=2 but 3 w values",
        "PGFT(2;2,2;1,2;1)|h=2 but 1 p values",
        "PGFT(2;0,2;1,2;1,1)|m1 must be at least 1, got 0",
        "PGFT(2;2,2;1,0;1,1)|w2 must be at least 1, got 0",
        "PGFT(2;2,2;1,2;1,0)|p2 must be at least 1, got 0",
        "PGFT(2;2,2;2,2;1,1)|w1 must be 1",
        "PGFT(2;2,2;1,2;2,1)|p1 must be 1",
        "PGFT(2;99999999999,2;1,2;1,1)|too large",
        "PGFT(2;200,2;1,60;1,1)|level-1 switches need 260 ports, more than 254",
        "PGFT(2;100,100;1,100;1,2)|more than 254",
        "PGFT(4;250,250,250,250;1,1,1,1;1,1,1,1)|fit an int",
        "PGFT(3;2,65536,65536;1,1,1;1,1,1)|fit an int",
    })
    void rejectsInvalidSpecsNamingTheProblem(String text, String message) {
        assertThatThrownBy(() -> PgftSpec.parse(text)).isInstanceOf(TopologyException.class)
                .hasMessageContaining(message);
    }

    @Test
    void rejectsZeroLevelsAndMismatchedArraysFromCode() {
        assertThatThrownBy(() -> PgftSpec.of(new int[0], new int[0], new int[0]))
                .hasMessageContaining("h must be at least 1");
        assertThatThrownBy(() -> PgftSpec.of(new int[] {2}, new int[] {1, 1}, new int[] {1}))
                .hasMessageContaining("h=1");
    }
}
