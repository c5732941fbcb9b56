package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Formulas (3) and (4), on the paper's Figure 4 and against their literal form. */
class DmodcFormulaTest {

    @Test
    void workedExampleOfFigureFour() {
        // Π_s = 4, d = 20, two candidate groups of three ports each.
        assertThat(DmodcFormula.groupIndex(20, 4, 2)).isEqualTo(1); // floor(20/4) mod 2 = 5 mod 2
        assertThat(DmodcFormula.portIndex(20, 4, 2, 3)).isEqualTo(2); // floor(20/(4*2)) mod 3 = 2 mod 3
    }

    @Test
    void nestedDivisionEqualsTheLiteralFormula() {
        for (int d = 0; d < 5000; d += 7) {
            for (int pi = 1; pi <= 70; pi += 3) {
                for (int c = 1; c <= 9; c++) {
                    for (int size = 1; size <= 4; size++) {
                        assertThat(DmodcFormula.portIndex(d, pi, c, size)).isEqualTo((d / (pi * c)) % size);
                        assertThat(DmodcFormula.groupIndex(d, pi, c)).isEqualTo((d / pi) % c);
                    }
                }
            }
        }
    }
}
