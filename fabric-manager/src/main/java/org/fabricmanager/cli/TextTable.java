package org.fabricmanager.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table for terminals: a header row and data rows, each column as wide as its widest
 * cell, columns separated by two spaces, numbers right-aligned.
 */
final class TextTable {
    private final String[] header;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** Column names; a name starting with '>' is right-aligned (the '>' is not printed). */
    TextTable(String... columns) {
        header = new String[columns.length];
        rightAligned = new boolean[columns.length];
        for (int i = 0; i < columns.length; i++) {
            rightAligned[i] = columns[i].startsWith(">");
            header[i] = rightAligned[i] ? columns[i].substring(1) : columns[i];
        }
    }

    /** Adds a row; {@code null} cells print as "-". */
    TextTable row(Object... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException("row of " + cells.length + " cells for " + header.length + " columns");
        }
        String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            text[i] = cells[i] == null ? "-" : cells[i].toString();
        }
        rows.add(text);
        return this;
    }

    int size() {
        return rows.size();
    }

    void print(PrintStream out) {
        print(out, "");
    }

    /** Prints the table with every line starting with {@code indent} (tables under a heading). */
    void print(PrintStream out, String indent) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] r : rows) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        line(out, indent, header, width);
        for (String[] r : rows) {
            line(out, indent, r, width);
        }
    }

    private void line(PrintStream out, String indent, String[] cells, int[] width) {
        StringBuilder b = new StringBuilder(indent);
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append("  ");
            }
            String pad = " ".repeat(width[i] - cells[i].length());
            b.append(rightAligned[i] ? pad + cells[i] : i == cells.length - 1 ? cells[i] : cells[i] + pad);
        }
        out.println(b);
    }
}
