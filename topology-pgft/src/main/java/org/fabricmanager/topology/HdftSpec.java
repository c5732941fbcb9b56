package org.fabricmanager.topology;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A 2-D fat-tree shape {@code HDFT(XxY;k;r;c)}: {@code X x Y} leaf switches on a grid ({@code X}
 * columns, {@code Y} rows), {@code k} end nodes per leaf, {@code r} row switches per row (each
 * linked to every leaf of its row) and {@code c} column switches per column (each linked to every
 * leaf of its column). Leaf {@code (x, y)} is in column {@code x} and row {@code y}. Every radix is
 * checked to fit an InfiniBand LFT (254 ports), which keeps every count within an {@code int}.
 *
 * @param columns        X, leaves per row (and ports of a row switch)
 * @param rows           Y, leaves per column (and ports of a column switch)
 * @param nodesPerLeaf   k
 * @param rowSwitches    r, row switches per row
 * @param columnSwitches c, column switches per column
 */
public record HdftSpec(int columns, int rows, int nodesPerLeaf, int rowSwitches, int columnSwitches) {

    private static final Pattern SHAPE = Pattern.compile("\\s*HDFT\\s*\\((.*)\\)\\s*");
    private static final String EXPECTED = "expected HDFT(XxY;k;r;c), e.g. HDFT(16x16;8;1;1)";

    /** @throws TopologyException for a count below 1 or a radix over 254 */
    public HdftSpec {
        positive("X (columns)", columns);
        positive("Y (rows)", rows);
        positive("k (nodes per leaf)", nodesPerLeaf);
        positive("r (row switches per row)", rowSwitches);
        positive("c (column switches per column)", columnSwitches);
        String shape = "HDFT(" + columns + "x" + rows + ";" + nodesPerLeaf + ";" + rowSwitches + ";" + columnSwitches
                + ")";
        long leafRadix = (long) nodesPerLeaf + rowSwitches + columnSwitches;
        if (leafRadix > PgftSpec.MAX_RADIX) {
            throw new TopologyException("HDFT: " + shape + ": leaf switches need k+r+c = " + leafRadix
                    + " ports, more than " + PgftSpec.MAX_RADIX);
        }
        if (columns > PgftSpec.MAX_RADIX) {
            throw new TopologyException("HDFT: " + shape + ": row switches need X = " + columns + " ports, more than "
                    + PgftSpec.MAX_RADIX);
        }
        if (rows > PgftSpec.MAX_RADIX) {
            throw new TopologyException("HDFT: " + shape + ": column switches need Y = " + rows + " ports, more than "
                    + PgftSpec.MAX_RADIX);
        }
        // with every radix at most 254 the counts stay far below 2^31 (at most 254 x 254 x 252 nodes)
    }

    private static void positive(String name, int v) {
        if (v < 1) {
            throw new TopologyException("HDFT: " + name + " must be at least 1, got " + v);
        }
    }

    /**
     * Parses {@code HDFT(XxY;k;r;c)}; spaces are optional and the {@code x} may be upper case.
     *
     * @throws TopologyException with a message saying what is wrong with {@code text}
     */
    public static HdftSpec parse(String text) {
        if (text == null || text.isBlank()) {
            throw new TopologyException("HDFT: empty specification: " + EXPECTED);
        }
        Matcher matcher = SHAPE.matcher(text);
        if (!matcher.matches()) {
            throw new TopologyException("HDFT: malformed '" + text + "': " + EXPECTED);
        }
        String[] parts = matcher.group(1).split(";", -1);
        if (parts.length != 4) {
            throw new TopologyException("HDFT: malformed '" + text + "': " + parts.length
                    + " ';'-separated parts, " + EXPECTED);
        }
        String[] grid = parts[0].split("[xX]", -1);
        if (grid.length != 2) {
            throw new TopologyException("HDFT: malformed '" + text + "': the grid '" + parts[0].trim()
                    + "' must be XxY, e.g. 16x16");
        }
        int x = number(text, "X", grid[0]);
        int y = number(text, "Y", grid[1]);
        int k = number(text, "k", parts[1]);
        int r = number(text, "r", parts[2]);
        int c = number(text, "c", parts[3]);
        return new HdftSpec(x, y, k, r, c);
    }

    private static int number(String text, String what, String value) {
        String v = value.trim();
        if (v.isEmpty() || !v.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw new TopologyException("HDFT: malformed '" + text + "': " + what + " '" + v
                    + "' is not a non-negative integer (" + EXPECTED + ")");
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new TopologyException("HDFT: " + what + " '" + v + "' in '" + text + "' is too large");
        }
    }

    /** X x Y. */
    public int leafCount() {
        return columns * rows;
    }

    /** X x Y x k. */
    public int nodeCount() {
        return leafCount() * nodesPerLeaf;
    }

    /** Y x r. */
    public int rowSwitchCount() {
        return rows * rowSwitches;
    }

    /** X x c. */
    public int columnSwitchCount() {
        return columns * columnSwitches;
    }

    /** Leaves, row switches and column switches. */
    public int totalSwitchCount() {
        return leafCount() + rowSwitchCount() + columnSwitchCount();
    }

    /** Node links plus X x Y x (r + c) switch links. */
    public int totalLinkCount() {
        return nodeCount() + leafCount() * (rowSwitches + columnSwitches);
    }

    /** Ports of a leaf: k + r + c. */
    public int leafRadix() {
        return nodesPerLeaf + rowSwitches + columnSwitches;
    }

    /** The leaf number of {@code (x, y)}: {@code y*X + x}. */
    public int leafIndex(int x, int y) {
        return y * columns + x;
    }

    /** Destination index of node {@code i} of leaf {@code (x, y)}: {@code (y*X + x)*k + i}. */
    public int nodeIndex(int x, int y, int i) {
        return leafIndex(x, y) * nodesPerLeaf + i;
    }

    @Override
    public String toString() {
        return "HDFT(" + columns + "x" + rows + ";" + nodesPerLeaf + ";" + rowSwitches + ";" + columnSwitches + ")";
    }
}
