package org.fabricmanager.routing;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * Reader and writer of {@code vc-text/1} (see {@code docs/formats.md}), the virtual-channel rules
 * that go beside an {@code lft-text/1} file: {@code F.vc} next to {@code F}. One line per switch in
 * the order of the tables (ascending GUID): the GUID, the class of ports 1..P as one letter each
 * ({@code o} other, {@code n} node, {@code l} leaf, {@code r} row, {@code c} column; {@code -} for a
 * switch without ports), then the switch's transitions as {@code from>to=vc}. The header comment
 * gives the channel count. Kept apart from the LFT file so that {@code lft-text/1} readers stay
 * valid for engines with and without rules.
 */
public final class VcText {
    /** The header comment's first word. */
    public static final String FORMAT = "vc-text/1";
    /** What {@link #besides} appends to an LFT file's name. */
    public static final String SUFFIX = ".vc";
    private static final String LETTERS = "onlrc";

    private VcText() {
    }

    /** The rules file that goes with the LFT file {@code lftFile}. */
    public static Path besides(Path lftFile) {
        return lftFile.resolveSibling(lftFile.getFileName() + SUFFIX);
    }

    /** Writes {@code rules} for the switches of {@code tables}, in the LFT file's (ascending GUID) order. */
    public static void write(ForwardingTables tables, VcRules rules, String engine, Writer out) throws IOException {
        BufferedWriter w = out instanceof BufferedWriter b ? b : new BufferedWriter(out, 1 << 16);
        w.write("# " + FORMAT + " engine=" + engine + " switches=" + tables.switchCount() + " vcs="
                + rules.vcCount() + "\n");
        Integer[] order = new Integer[tables.switchCount()];
        for (int s = 0; s < order.length; s++) {
            order[s] = s;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(tables.switchGuid(x), tables.switchGuid(y)));
        StringBuilder line = new StringBuilder(128);
        for (int s : order) {
            line.setLength(0);
            line.append(Guids.format(tables.switchGuid(s))).append(' ');
            int ports = rules.ports(s);
            if (ports == 0) {
                line.append('-');
            }
            for (int p = 1; p <= ports; p++) {
                line.append(LETTERS.charAt(rules.portClass(s, p).ordinal()));
            }
            for (VcTransition t : rules.transitions(s)) {
                line.append(' ').append(t.from().name().toLowerCase()).append('>')
                        .append(t.to().name().toLowerCase()).append('=').append(t.vc());
            }
            line.append('\n');
            w.append(line);
        }
        w.flush();
    }

    /** Writes the rules of {@code tables} to {@code file}, replacing it. */
    public static void write(ForwardingTables tables, VcRules rules, String engine, Path file) {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(tables, rules, engine, w);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code tables} to {@code lftFile} and, when they carry rules, the rules to
     * {@link #besides}{@code (lftFile)}; a stale rules file from an earlier run is removed so that
     * readers never pair tables with rules of another routing.
     *
     * @return the rules file written, or {@code null}
     */
    public static Path writeWithTables(ForwardingTables tables, String engine, Path lftFile) {
        return writeWithTables(tables, engine, lftFile, false);
    }

    /** As {@link #writeWithTables(ForwardingTables, String, Path)}, the tables as {@code lft-bin} when {@code binary}. */
    public static Path writeWithTables(ForwardingTables tables, String engine, Path lftFile, boolean binary) {
        if (binary) {
            LftBinary.write(tables, engine, lftFile);
        } else {
            LftText.write(tables, engine, lftFile);
        }
        Path vc = besides(lftFile);
        if (tables.vcRules().isPresent()) {
            write(tables, tables.vcRules().get(), engine, vc);
            return vc;
        }
        try {
            Files.deleteIfExists(vc);
        } catch (IOException e) {
            throw new UncheckedIOException(vc + ": cannot remove the stale rules file: " + e.getMessage(), e);
        }
        return null;
    }

    /**
     * Reads {@code lftFile} ({@code lft-text} or {@code lft-bin}) and, when {@link #besides} it exists, its rules with
     * it.
     */
    public static ForwardingTables readWithTables(Path lftFile) {
        ForwardingTables tables = LftBinary.readEither(lftFile);
        Path vc = besides(lftFile);
        if (!Files.exists(vc)) {
            return tables;
        }
        try (Reader r = Files.newBufferedReader(vc, StandardCharsets.UTF_8)) {
            return tables.withVcRules(read(r, vc.toString(), tables));
        } catch (IOException e) {
            throw new TopologyException(vc + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * Reads rules for the switches of {@code tables}; every switch must have exactly one line.
     *
     * @throws TopologyException naming {@code source} and the line
     */
    public static VcRules read(Reader in, String source, ForwardingTables tables) throws IOException {
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        Map<Long, Integer> ids = new HashMap<>();
        for (int s = 0; s < tables.switchCount(); s++) {
            ids.put(tables.switchGuid(s), s);
        }
        int vcCount = -1;
        byte[][] classes = new byte[tables.switchCount()][];
        List<List<VcTransition>> transitions = new ArrayList<>();
        for (int s = 0; s < tables.switchCount(); s++) {
            transitions.add(List.of());
        }
        String line;
        int lineNo = 0;
        while ((line = r.readLine()) != null) {
            lineNo++;
            String t = line.strip();
            if (t.startsWith("# " + FORMAT) && vcCount < 0) {
                vcCount = headerVcs(t, source, lineNo);
                continue;
            }
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            if (vcCount < 0) {
                throw new TopologyException(source + ":" + lineNo + ": no '# " + FORMAT + " ... vcs=N' header before the first switch");
            }
            String[] fields = t.split("\\s+");
            if (fields.length < 2) {
                throw new TopologyException(source + ":" + lineNo + ": a switch line needs a GUID and its port classes");
            }
            long guid;
            try {
                guid = Guids.parse(fields[0]);
            } catch (TopologyException e) {
                throw new TopologyException(source + ":" + lineNo + ": " + e.getMessage());
            }
            Integer s = ids.get(guid);
            if (s == null) {
                throw new TopologyException(source + ":" + lineNo + ": switch " + fields[0] + " is not in the tables");
            }
            if (classes[s] != null) {
                throw new TopologyException(source + ":" + lineNo + ": switch " + fields[0] + " is repeated");
            }
            String letters = fields[1].equals("-") ? "" : fields[1];
            byte[] c = new byte[letters.length() + 1];
            for (int p = 1; p <= letters.length(); p++) {
                int k = LETTERS.indexOf(letters.charAt(p - 1));
                if (k < 0) {
                    throw new TopologyException(source + ":" + lineNo + ": port " + p + " of switch " + fields[0]
                            + " has class '" + letters.charAt(p - 1) + "', not one of " + LETTERS);
                }
                c[p] = (byte) k;
            }
            classes[s] = c;
            List<VcTransition> rules = new ArrayList<>();
            for (int i = 2; i < fields.length; i++) {
                rules.add(transition(fields[i], vcCount, source, lineNo));
            }
            transitions.set(s, rules);
        }
        int[] ports = new int[classes.length];
        for (int s = 0; s < classes.length; s++) {
            if (classes[s] == null) {
                throw new TopologyException(source + ": switch " + Guids.format(tables.switchGuid(s))
                        + " of the tables has no line");
            }
            ports[s] = classes[s].length - 1;
        }
        VcRules.Builder b;
        try {
            b = VcRules.builder(ports, Math.max(vcCount, 1));
        } catch (IllegalArgumentException e) {
            throw new TopologyException(source + ": " + e.getMessage());
        }
        PortClass[] all = PortClass.values();
        for (int s = 0; s < classes.length; s++) {
            for (int p = 1; p < classes[s].length; p++) {
                b.portClass(s, p, all[classes[s][p]]);
            }
            b.transitions(s, transitions.get(s));
        }
        return b.build();
    }

    private static int headerVcs(String header, String source, int lineNo) {
        for (String f : header.split("\\s+")) {
            if (f.startsWith("vcs=")) {
                try {
                    int n = Integer.parseInt(f.substring(4));
                    if (n >= 1 && n <= 15) {
                        return n;
                    }
                } catch (NumberFormatException e) {
                    // reported below with the header
                }
                throw new TopologyException(source + ":" + lineNo + ": header field '" + f + "' is not vcs=N with N in [1, 15]");
            }
        }
        throw new TopologyException(source + ":" + lineNo + ": the header has no vcs=N field");
    }

    private static VcTransition transition(String field, int vcCount, String source, int lineNo) {
        int gt = field.indexOf('>');
        int eq = field.indexOf('=');
        if (gt <= 0 || eq <= gt + 1 || eq == field.length() - 1) {
            throw new TopologyException(source + ":" + lineNo + ": '" + field + "' is not a transition from>to=vc");
        }
        try {
            PortClass from = PortClass.valueOf(field.substring(0, gt).toUpperCase());
            PortClass to = PortClass.valueOf(field.substring(gt + 1, eq).toUpperCase());
            int vc = Integer.parseInt(field.substring(eq + 1));
            if (vc >= vcCount) {
                throw new TopologyException(source + ":" + lineNo + ": transition '" + field + "' uses channel " + vc
                        + ", the header gives " + vcCount);
            }
            return new VcTransition(from, to, vc);
        } catch (IllegalArgumentException e) {
            throw new TopologyException(source + ":" + lineNo + ": '" + field + "' is not a transition from>to=vc ("
                    + e.getMessage() + ")");
        }
    }
}
