package org.fabricmanager.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class RealPartsTest {
    @Test
    void aPresentPartPassesWhateverTheSwitch() {
        assertThatCode(() -> RealParts.check(true, "no tool", null)).doesNotThrowAnyException();
        assertThatCode(() -> RealParts.check(true, "no tool", "1")).doesNotThrowAnyException();
    }

    @Test
    void aMissingPartSkipsWithItsReasonWhenTheSwitchIsUnsetOrOff() {
        for (String off : new String[] {null, "", " ", "0"}) {
            assertThatThrownBy(() -> RealParts.check(false, "promtool is not installed", off))
                    .as("switch %s", off).isInstanceOf(TestAbortedException.class)
                    .hasMessageContaining("promtool is not installed");
        }
    }

    @Test
    void aMissingPartFailsWithItsReasonUnderTheSwitch() {
        assertThatThrownBy(() -> RealParts.check(false, "promtool is not installed", "1"))
                .isInstanceOf(AssertionError.class).isNotInstanceOf(TestAbortedException.class)
                .hasMessageContaining("promtool is not installed").hasMessageContaining("FM_REQUIRE_REAL_PARTS=1");
    }
}
