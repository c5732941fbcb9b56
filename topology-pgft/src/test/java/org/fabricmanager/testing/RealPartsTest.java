package org.fabricmanager.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** A missing real part skips the test with its reason, or fails it when {@code FM_REQUIRE_REAL_PARTS=1} (as in CI). */
class RealPartsTest {
    @Test
    void aMissingPartSkipsOrFailsByTheSwitchAndSaysWhy() {
        Throwable t = catchThrowable(() -> RealParts.require(false, "no frobnicator (Debian: frob)"));
        assertThat(t).as("FM_REQUIRE_REAL_PARTS=%s", System.getenv(RealParts.SWITCH))
                .isInstanceOf(RealParts.required() ? AssertionFailedError.class : TestAbortedException.class)
                .hasMessageContaining("no frobnicator (Debian: frob)");
        assertThat(catchThrowable(() -> RealParts.requireNone("no frobnicator")))
                .isInstanceOf(t.getClass());
    }

    @Test
    void aPresentPartGoesOn() {
        assertThatCode(() -> {
            RealParts.require(true, "unused");
            RealParts.requireNone(null);
        }).doesNotThrowAnyException();
    }
}
