/**
 * The {@code bin/fabric-manager} command line: subcommand dispatch, argument parsing and the
 * commands themselves. Commands write results to stdout and summaries and errors to stderr.
 */
package org.fabricmanager.cli;
