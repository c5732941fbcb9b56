package org.fabricmanager.testing;

import org.junit.jupiter.api.Assumptions;

/**
 * The one way a test says it needs a real part of the machine (OpenSM, ibsim, the OpenSM plug-in, Chromium, promtool,
 * network namespaces, dpkg's tools...): when the part is missing the test is skipped with the reason, as a JUnit
 * assumption, except under {@value #SWITCH}{@code =1}, where it fails with that reason. {@code .ci/run} sets the
 * switch when it runs as root and its installs succeeded, so that CI cannot be green with a real-part test skipped
 * (CONTRIBUTING.md, "Build and test"). Surefire's and failsafe's test JVMs inherit it from Maven's environment.
 */
public final class RealParts {
    /** The environment variable that turns a missing real part from a skip into a failure. */
    public static final String SWITCH = "FM_REQUIRE_REAL_PARTS";

    private RealParts() {
    }

    /**
     * Returns when {@code present}; otherwise skips the test with {@code missing} (what is missing and how to get it),
     * or fails with it under the switch.
     */
    public static void require(boolean present, String missing) {
        check(present, missing, System.getenv(SWITCH));
    }

    /** As {@link #require(boolean, String)} for a check that says why the part is missing, {@code null} when present. */
    public static void require(String missing) {
        require(missing == null, missing);
    }

    /** Whether a missing real part fails the test here (the switch is set). */
    public static boolean required() {
        return isOn(System.getenv(SWITCH));
    }

    /** The decision, with the switch's value given: returns, skips, or fails. */
    static void check(boolean present, String missing, String switchValue) {
        if (present) {
            return;
        }
        if (isOn(switchValue)) {
            throw new AssertionError(missing + " (" + SWITCH + "=" + switchValue
                    + ": a real part a test needs must be there, not skipped)");
        }
        Assumptions.abort(missing);
    }

    private static boolean isOn(String switchValue) {
        return switchValue != null && !switchValue.isBlank() && !"0".equals(switchValue.strip());
    }
}
