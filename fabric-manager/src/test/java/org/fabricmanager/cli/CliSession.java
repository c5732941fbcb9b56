package org.fabricmanager.cli;

/**
 * Command lines run in-process one after another, keeping what the last one printed, for tests that
 * run a command and then assert on its exit code, stdout and stderr separately.
 */
final class CliSession {
    private CliRun last = new CliRun(-1, "", "");

    /** Runs one command line; returns its exit code. */
    int run(String... args) {
        last = CliRun.of(args);
        return last.exitCode();
    }

    /** What the last command printed on stdout. */
    String out() {
        return last.out();
    }

    /** What the last command printed on stderr. */
    String err() {
        return last.err();
    }
}
