package org.fabricmanager.cli;

import java.io.PrintStream;

/**
 * Where a command writes: {@code out} for its result (a file format, a table, JSON) and {@code err}
 * for summaries, progress and errors, so that the result can be piped.
 */
public record Console(PrintStream out, PrintStream err) {
}
