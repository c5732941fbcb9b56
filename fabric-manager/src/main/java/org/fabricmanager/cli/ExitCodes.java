package org.fabricmanager.cli;

/** Exit codes shared by every subcommand; scripts and the tests depend on them. */
public final class ExitCodes {
    /** Success, or a fabric that is intact or degraded as expected. */
    public static final int OK = 0;
    /** An unexpected internal failure (a bug): the message and, with --verbose, the stack trace. */
    public static final int INTERNAL = 1;
    /** Bad arguments or bad input (with a one-line message). */
    public static final int BAD_INPUT = 2;
    /** The input was read fine but does not match what was expected (e.g. not the expected PGFT). */
    public static final int MISMATCH = 3;

    private ExitCodes() {
    }
}
