/**
 * The {@code bin/fabric-manager} command line: the commands themselves, each in its own class, and {@code CliTree},
 * which maps them onto picocli (subcommands, typed options, usage errors, the completion script). Commands write
 * results to stdout and summaries and errors to stderr.
 */
package org.fabricmanager.cli;
