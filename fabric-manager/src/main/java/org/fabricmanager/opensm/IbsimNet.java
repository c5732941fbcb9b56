package org.fabricmanager.opensm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.TopologyException;

/**
 * ibsim's net format (ibsim-utils): one record per device, {@code Switch N "id"} or
 * {@code Hca 1 "id"}, then {@code [port] "peer-id"[peer port]} per connected port, records
 * separated by a blank line. The first record holds the SM port, so the file starts with an end
 * node (OpenSM runs on an HCA). Ids are the device names with the GUID appended, so they are
 * unique and free of quotes. ibsim assigns its own GUIDs: capture {@code ibnetdiscover} under
 * {@code libumad2sim} to get the fabric as OpenSM sees it.
 */
public final class IbsimNet {
    private IbsimNet() {
    }

    /** Writes {@code fabric} in ibsim's net format. */
    public static void write(Fabric fabric, Writer out) throws IOException {
        Map<Long, String> ids = new HashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            ids.put(s.guid(), id(s.name(), s.guid()));
        }
        for (EndNode n : fabric.nodes()) {
            ids.put(n.guid(), id(n.name(), n.guid()));
        }
        Map<Long, Map<Integer, String>> byPort = new HashMap<>();
        for (Link l : fabric.links()) {
            byPort.computeIfAbsent(l.a(), k -> new TreeMap<>()).put(l.aPort(),
                    "[" + l.aPort() + "]\t\"" + ids.get(l.b()) + "\"[" + l.bPort() + "]");
            byPort.computeIfAbsent(l.b(), k -> new TreeMap<>()).put(l.bPort(),
                    "[" + l.bPort() + "]\t\"" + ids.get(l.a()) + "\"[" + l.aPort() + "]");
        }
        out.write("# ibsim net file written by fabric-manager: " + fabric + "\n\n");
        List<EndNode> nodes = new ArrayList<>(fabric.nodes());
        nodes.sort((a, b) -> Integer.compare(a.index(), b.index()));
        EndNode sm = smNode(fabric);
        record(out, "Hca", 1, ids.get(sm.guid()), byPort.get(sm.guid()));
        for (FabricSwitch s : fabric.switches()) {
            record(out, "Switch", s.ports(), ids.get(s.guid()), byPort.get(s.guid()));
        }
        for (EndNode n : nodes) {
            if (n != sm) {
                record(out, "Hca", 1, ids.get(n.guid()), byPort.get(n.guid()));
            }
        }
        out.flush();
    }

    /**
     * The end node whose port OpenSM runs on: the first record of the net file, the linked end node of the lowest
     * index.
     *
     * @throws TopologyException when no end node is linked to a switch
     */
    public static EndNode smNode(Fabric fabric) {
        Set<Long> linked = new HashSet<>();
        for (Link l : fabric.links()) {
            linked.add(l.a());
            linked.add(l.b());
        }
        return fabric.nodes().stream().filter(n -> linked.contains(n.guid()))
                .min((a, b) -> Integer.compare(a.index(), b.index())).orElseThrow(
                        () -> new TopologyException("no end node is linked to a switch: ibsim needs one for the SM"));
    }

    /** {@link #write(Fabric, Writer)} to a file. */
    public static void write(Fabric fabric, Path file) {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(fabric, w);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }

    private static void record(Writer out, String type, int ports, String id, Map<Integer, String> lines)
            throws IOException {
        out.write(type + "\t" + ports + " \"" + id + "\"\n");
        if (lines != null) {
            for (String line : lines.values()) {
                out.write(line + "\n");
            }
        }
        out.write("\n");
    }

    /** Longest name part of an id: ibsim keeps ids of up to 64 characters. */
    private static final int NAME_CHARS = 40;

    /** The ibsim id of a device: its name (quotes and spaces replaced, cut to 40 characters) and GUID, unique by the GUID. */
    public static String id(String name, long guid) {
        String clean = name.replaceAll("[\"\\s#]", "_");
        return clean.substring(0, Math.min(clean.length(), NAME_CHARS)) + "_" + Guids.format(guid).replace("0x", "");
    }
}
