package org.fabricmanager.agent.linux;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.TopologyException;

/**
 * Who is cabled to each switch port, from a static cabling file (a lab's, or an installation's cabling plan): a
 * Linux switch learns its ports' state from the kernel but not its neighbours, so the agent reports the
 * neighbour this file names for a port whose link is up. One line per switch port, fields separated by blanks,
 * {@code #} to the end of a line is a comment:
 *
 * <pre>
 * SWITCH-GUID PORT switch PEER-GUID PEER-PORT [PEER-NAME]
 * SWITCH-GUID PORT node   NODE-GUID [NODE-NAME]
 * </pre>
 *
 * GUIDs are {@code 0x} and 16 lower-case hex digits; a port listed twice, a malformed line or a switch port
 * outside 1..254 is an error naming the file, the line and the field, never the line's text. A file may hold a whole
 * fabric (each agent takes the lines of its own GUID), or only one switch's lines.
 */
public final class Cabling {
    /**
     * Largest file read: 8 MiB. A whole fabric's file of 10,240 nodes ({@code PGFT(3;16,16,40;1,16,16;1,1,1)}, 51,201
     * lines) is 2.9 MB and one of 16,384 nodes 4.6 MB; a larger fabric gives each switch a file of its own lines.
     */
    public static final int MAX_BYTES = 8 << 20;

    private final Map<Long, Map<Integer, PortRecord>> bySwitch;

    private Cabling(Map<Long, Map<Integer, PortRecord>> bySwitch) {
        this.bySwitch = bySwitch;
    }

    /** The up record of port {@code port} of {@code guid} with its cabled neighbour, or an up port without one. */
    public PortRecord up(long guid, int port) {
        PortRecord r = bySwitch.getOrDefault(guid, Map.of()).get(port);
        return r == null ? PortRecord.upWithoutPeer(port) : r;
    }

    /** How many ports of {@code guid} the file cables. */
    public int cabledPorts(long guid) {
        return bySwitch.getOrDefault(guid, Map.of()).size();
    }

    /**
     * Reads {@code file}: a regular file of at most {@link #MAX_BYTES}, in UTF-8. Errors name the file and the line,
     * and never show what the file holds: the path comes from a configuration, and a file that is no cabling file
     * (a secret one) must not be printed through them.
     */
    public static Cabling read(Path file) throws IOException {
        return parse(file.toString(), textLines(file.toString(), RegularFile.read(file, MAX_BYTES)));
    }

    /** The lines of {@code bytes}, each strictly UTF-8 ({@code \n} or {@code \r\n} ends a line). */
    static List<String> textLines(String source, byte[] bytes) throws IOException {
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        List<String> lines = new ArrayList<>();
        int start = 0;
        while (start < bytes.length) {
            int end = start;
            while (end < bytes.length && bytes[end] != '\n') {
                end++;
            }
            int stop = end > start && bytes[end - 1] == '\r' ? end - 1 : end;
            try {
                lines.add(utf8.decode(ByteBuffer.wrap(bytes, start, stop - start)).toString());
            } catch (CharacterCodingException e) {
                throw new IOException(source + ":" + (lines.size() + 1) + ": not UTF-8 text", e);
            }
            start = end + 1;
        }
        return lines;
    }

    /**
     * Parses the lines of a cabling file; {@code source} names it in errors, which give the line number and the field
     * but not the text.
     */
    public static Cabling parse(String source, List<String> lines) throws IOException {
        Map<Long, Map<Integer, PortRecord>> all = new HashMap<>();
        Map<Long, Map<Integer, Integer>> lineOf = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String where = source + ":" + (i + 1);
            String line = lines.get(i);
            for (int c = 0; c < line.length(); c++) {
                if (Character.isISOControl(line.charAt(c)) && line.charAt(c) != '\t') {
                    throw new IOException(where + ": a control character; a cabling file is text");
                }
            }
            int hash = line.indexOf('#');
            String[] f = (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
            if (f.length == 1 && f[0].isEmpty()) {
                continue;
            }
            long guid = guid(f[0], "SWITCH-GUID (field 1)", where);
            int port = portNumber(f.length > 1 ? f[1] : "", "PORT (field 2)", where);
            PortRecord r;
            if (f.length >= 5 && f.length <= 6 && f[2].equals("switch")) {
                r = PortRecord.toSwitch(port, guid(f[3], "PEER-GUID (field 4)", where),
                        portNumber(f[4], "PEER-PORT (field 5)", where), f.length == 6 ? f[5] : "");
            } else if (f.length >= 4 && f.length <= 5 && f[2].equals("node")) {
                r = PortRecord.toNode(port, guid(f[3], "NODE-GUID (field 4)", where), f.length == 5 ? f[4] : "");
            } else {
                throw new IOException(where + ": expected 'GUID PORT switch PEER-GUID PEER-PORT [NAME]' or"
                        + " 'GUID PORT node NODE-GUID [NAME]'");
            }
            Integer first = lineOf.computeIfAbsent(guid, g -> new HashMap<>()).putIfAbsent(port, i + 1);
            if (first != null) {
                throw new IOException(where + ": cables the same switch port as line " + first);
            }
            all.computeIfAbsent(guid, g -> new HashMap<>()).put(port, r);
        }
        return new Cabling(all);
    }

    private static long guid(String text, String field, String where) throws IOException {
        try {
            return Guids.parse(text);
        } catch (TopologyException e) {
            throw new IOException(where + ": " + field + " is not a GUID (0x and 16 lower-case hex digits)", e);
        }
    }

    private static int portNumber(String text, String field, String where) throws IOException {
        try {
            int p = Integer.parseInt(text);
            if (p >= 1 && p <= 254) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IOException(where + ": " + field + " is not a number in [1, 254]");
    }

    /** The cabling file of {@code fabric}: both ends of every switch-to-switch cable, the switch end of a node's. */
    public static List<String> lines(Fabric fabric) {
        Map<Long, String> names = new HashMap<>();
        fabric.switches().forEach(s -> names.put(s.guid(), s.name()));
        fabric.nodes().forEach(n -> names.put(n.guid(), n.name()));
        List<String> out = new ArrayList<>();
        out.add("# SWITCH-GUID PORT switch PEER-GUID PEER-PORT [PEER-NAME] | SWITCH-GUID PORT node NODE-GUID [NODE-NAME]");
        for (Link l : fabric.links()) {
            addEnd(fabric, names, out, l.a(), l.aPort(), l.b(), l.bPort());
            addEnd(fabric, names, out, l.b(), l.bPort(), l.a(), l.aPort());
        }
        return out;
    }

    private static void addEnd(Fabric fabric, Map<Long, String> names, List<String> out, long here, int port, long there,
                               int therePort) {
        if (!fabric.isSwitch(here)) {
            return;
        }
        String name = names.getOrDefault(there, "").replaceAll("\\s+", "_");
        out.add(Guids.format(here) + " " + port + (fabric.isSwitch(there)
                ? " switch " + Guids.format(there) + " " + therePort : " node " + Guids.format(there)) + " " + name);
    }
}
