package org.fabricmanager.agent.linux;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * outside 1..254 is an error naming the file and the line. A file may hold a whole fabric (each agent takes the
 * lines of its own GUID), or only one switch's lines.
 */
public final class Cabling {
    /** Largest file read. */
    static final long MAX_BYTES = 64L << 20;

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

    /** Reads {@code file}. */
    public static Cabling read(Path file) throws IOException {
        if (Files.size(file) > MAX_BYTES) {
            throw new IOException(file + ": larger than " + MAX_BYTES + " bytes");
        }
        return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
    }

    /** Parses the lines of a cabling file; {@code source} names it in errors. */
    public static Cabling parse(String source, List<String> lines) throws IOException {
        Map<Long, Map<Integer, PortRecord>> all = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String[] f = (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
            if (f.length == 1 && f[0].isEmpty()) {
                continue;
            }
            String where = source + ":" + (i + 1);
            try {
                long guid = Guids.parse(f[0]);
                int port = portNumber(f.length > 1 ? f[1] : "", where);
                PortRecord r;
                if (f.length >= 5 && f.length <= 6 && f[2].equals("switch")) {
                    r = PortRecord.toSwitch(port, Guids.parse(f[3]), portNumber(f[4], where), f.length == 6 ? f[5] : "");
                } else if (f.length >= 4 && f.length <= 5 && f[2].equals("node")) {
                    r = PortRecord.toNode(port, Guids.parse(f[3]), f.length == 5 ? f[4] : "");
                } else {
                    throw new IOException(where + ": expected 'GUID PORT switch PEER-GUID PEER-PORT [NAME]' or"
                            + " 'GUID PORT node NODE-GUID [NAME]'");
                }
                if (all.computeIfAbsent(guid, g -> new HashMap<>()).putIfAbsent(port, r) != null) {
                    throw new IOException(where + ": port " + port + " of " + Guids.format(guid) + " is cabled twice");
                }
            } catch (TopologyException e) {
                throw new IOException(where + ": " + e.getMessage(), e);
            }
        }
        return new Cabling(all);
    }

    private static int portNumber(String text, String where) throws IOException {
        try {
            int p = Integer.parseInt(text);
            if (p >= 1 && p <= 254) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IOException(where + ": port '" + text + "' is not a number in [1, 254]");
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
