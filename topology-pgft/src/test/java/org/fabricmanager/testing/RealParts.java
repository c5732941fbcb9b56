package org.fabricmanager.testing;

import org.junit.jupiter.api.Assumptions;
import org.opentest4j.AssertionFailedError;

/**
 * The one gate of tests that need a real part of the machine (OpenSM, ibsim, the OpenSM plug-in, Chromium, promtool,
 * network namespaces, loop devices, dpkg tools, a native TLS library...): where the part is missing, the test skips
 * with the reason, unless the environment variable {@value #SWITCH} is {@code 1}, in which case it fails with that
 * reason. {@code .ci/run} sets it when it runs as root and has every such part installed, so a CI run cannot pass by
 * skipping the scenarios that need them (CONTRIBUTING.md, "Build and test"). A new real-part test gets this by
 * gating on these methods instead of JUnit's assumptions.
 */
public final class RealParts {
    /** The environment variable that turns a missing real part from a skip into a failure. */
    public static final String SWITCH = "FM_REQUIRE_REAL_PARTS";

    private RealParts() {
    }

    /** Whether a missing real part fails the test ({@value #SWITCH}=1) rather than skipping it. */
    public static boolean required() {
        return "1".equals(System.getenv(SWITCH));
    }

    /** Goes on when {@code present}; else skips the test, or fails it under {@value #SWITCH}=1, saying {@code why}. */
    public static void require(boolean present, String why) {
        if (!present) {
            missing(why);
        }
    }

    /** Goes on when {@code whyNot} is {@code null} (the part is there); else as {@link #missing}. */
    public static void requireNone(String whyNot) {
        if (whyNot != null) {
            missing(whyNot);
        }
    }

    /** Skips the test, or fails it under {@value #SWITCH}=1: a real part is missing, for the reason {@code why}. */
    public static void missing(String why) {
        if (required()) {
            throw new AssertionFailedError("a real part is missing and " + SWITCH + "=1 requires it: " + why);
        }
        Assumptions.abort(why);
    }
}
