package org.fabricmanager.opensm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Ranking;
import org.fabricmanager.topology.TopologyException;

/**
 * The GUID files OpenSM's fat-tree engines ask for: the root GUID file ({@code -a}, {@code root_guid_file}: the
 * fabric's top level, the switches ranked highest above the leaves, which {@code ftree} and {@code updn} route from)
 * and the compute-node file ({@code -u}, {@code cn_guid_file}: the port GUIDs of every end node linked to a switch,
 * which {@code ftree} needs to tell leaves from the rest on a degraded fabric). Without them {@code ftree} refuses a
 * degraded fat tree and falls back to {@code minhop}, and {@code updn} picks roots of its own. {@link #write} makes
 * them from what {@code ibnetdiscover} saw of a simulated fabric (ibsim's GUIDs) for {@code compare}; the daemon keeps
 * its own for OpenSM's fallback with the same {@link #topLevel} and {@link #lines}.
 *
 * @param roots        the root GUID file
 * @param computeNodes the compute-node port GUID file
 * @param rootCount    top-level switches listed
 * @param nodeCount    end-node ports listed
 */
public record OpenSmGuidFiles(Path roots, Path computeNodes, int rootCount, int nodeCount) {
    /** A switch's port line naming an end node and its port GUID: {@code [3] "H-00..18"[1](100019)}. */
    private static final Pattern NODE_PORT = Pattern.compile("\"H-([0-9a-fA-F]{1,16})\"\\[\\d+\\]\\(([0-9a-fA-F]{1,16})\\)");

    /**
     * Writes both files into {@code dir} from {@code discovered} (ibnetdiscover's output) and {@code index}, the
     * fabric read from it.
     *
     * @throws TopologyException when the fabric has no leaf or the output names no end-node port GUID
     */
    public static OpenSmGuidFiles write(Path discovered, FabricIndex index, Path dir) throws IOException {
        List<Long> roots = topLevel(index);
        if (roots.isEmpty()) {
            throw new TopologyException("no leaf switch: no top level to give OpenSM as roots");
        }
        List<Long> ports = new ArrayList<>();
        Matcher m = NODE_PORT.matcher(Files.readString(discovered, StandardCharsets.ISO_8859_1));
        while (m.find()) {
            ports.add(Long.parseUnsignedLong(m.group(2), 16));
        }
        if (ports.isEmpty()) {
            throw new TopologyException(discovered + ": no end-node port GUID found");
        }
        Path rootFile = dir.resolve("root-guids.txt");
        Path nodeFile = dir.resolve("compute-node-guids.txt");
        String nodeLines = lines(ports);
        Files.writeString(rootFile, lines(roots), StandardCharsets.US_ASCII);
        Files.writeString(nodeFile, nodeLines, StandardCharsets.US_ASCII);
        return new OpenSmGuidFiles(rootFile, nodeFile, roots.size(), (int) nodeLines.lines().count());
    }

    /**
     * The fabric's top level, the roots OpenSM's fat-tree engines are given: the switches of the highest rank above
     * the leaves ({@link Ranking#fromLeaves}), in switch id order; none when the fabric has no leaf.
     */
    public static List<Long> topLevel(FabricIndex index) {
        List<Long> roots = new ArrayList<>();
        if (index.leafCount() == 0) {
            return roots;
        }
        int[] rank = Ranking.fromLeaves(index);
        int top = 0;
        for (int r : rank) {
            if (r != Ranking.UNREACHED) {
                top = Math.max(top, r);
            }
        }
        for (int s = 0; s < index.switchCount(); s++) {
            if (rank[s] == top) {
                roots.add(index.switchGuid(s));
            }
        }
        return roots;
    }

    /** A GUID file's text as OpenSM reads it: one {@code 0x}-prefixed, 16-digit GUID per line, sorted, each once. */
    public static String lines(Collection<Long> guids) {
        TreeSet<String> sorted = new TreeSet<>();
        for (long g : guids) {
            sorted.add(Guids.format(g));
        }
        StringBuilder out = new StringBuilder(sorted.size() * 19);
        for (String g : sorted) {
            out.append(g).append('\n');
        }
        return out.toString();
    }

    /** OpenSM's options that pass both files. */
    public List<String> options() {
        return List.of("-a", roots.toString(), "-u", computeNodes.toString());
    }
}
