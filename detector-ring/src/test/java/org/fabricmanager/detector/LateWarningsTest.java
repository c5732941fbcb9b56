package org.fabricmanager.detector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LateWarningsTest {
    private static final long MS = 1_000_000L;

    @Test
    void oneWarningPerIntervalCountsTheOthers() {
        LateWarnings w = new LateWarnings();
        assertThat(w.admit(5 * MS)).as("the first late heartbeat warns").isZero();
        assertThat(w.admit(6 * MS)).isEqualTo(-1);
        assertThat(w.admit((5 + LateWarnings.INTERVAL_MS - 1) * MS)).isEqualTo(-1);
        assertThat(w.admit((5 + LateWarnings.INTERVAL_MS) * MS)).as("warns again, naming the two held back").isEqualTo(2);
        assertThat(w.admit((6 + LateWarnings.INTERVAL_MS) * MS)).isEqualTo(-1);
    }

    @Test
    void membersOfOneProcessShareTheirWarnings() {
        ProcessHealth process = new ProcessHealth();
        // two hundred members late at once, as on an overloaded simulator: one warning
        long warnings = 0;
        for (int member = 0; member < 200; member++) {
            if (process.lateWarnings().admit(member * MS) >= 0) {
                warnings++;
            }
        }
        assertThat(warnings).isEqualTo(1);
        assertThat(process.lateWarnings().admit(LateWarnings.INTERVAL_MS * MS)).isEqualTo(199);
    }
}
