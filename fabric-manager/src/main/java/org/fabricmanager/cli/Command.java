package org.fabricmanager.cli;

import java.util.Set;

/**
 * One subcommand of {@code bin/fabric-manager}. A command declares the options it accepts so that
 * a misspelt option is reported instead of silently ignored, and returns its exit code.
 */
public interface Command {

    /** The word on the command line, e.g. {@code topology}. */
    String name();

    /** One line for the top-level usage listing. */
    String summary();

    /** The full usage text printed by {@code --help}. */
    String usage();

    /** Options taking a value, without the leading dashes. */
    Set<String> valueOptions();

    /** Options that are plain flags, without the leading dashes ({@code help} and {@code verbose} are always allowed). */
    Set<String> flagOptions();

    /**
     * Runs the command.
     *
     * @return the process exit code ({@link ExitCodes})
     * @throws UsageException for bad arguments or bad input files (exit code 2, one line on stderr)
     */
    int run(Arguments args, Console console) throws Exception;
}
