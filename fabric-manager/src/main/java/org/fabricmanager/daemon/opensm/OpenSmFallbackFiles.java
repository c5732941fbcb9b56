package org.fabricmanager.daemon.opensm;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.opensm.OpenSmGuidFiles;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GUID files of OpenSM's fallback engines, kept by the daemon in the directory of {@code opensm.socket}: the root
 * GUID file {@value #ROOTS} (the fabric's top level) and the compute-node file {@value #COMPUTE_NODES} (every end
 * node's port GUID), from the fabric of each subnet answered with tables. opensm.conf's {@code root_guid_file} and
 * {@code cn_guid_file} name them, so that while the daemon is away OpenSM's {@code ftree} (or {@code updn}) routes a
 * degraded fat tree instead of refusing it and leaving it to {@code minhop}. A file is replaced whole, by renaming a
 * temporary file over it (OpenSM never reads half a file), and only when its text changes. A failure to write is
 * logged, never thrown: OpenSM's routing pass must not wait on it. Not thread-safe: the provider answers one subnet
 * at a time.
 */
public final class OpenSmFallbackFiles {
    /** The root GUID file's name, beside the socket. */
    public static final String ROOTS = "opensm-root-guids";
    /** The compute-node GUID file's name, beside the socket. */
    public static final String COMPUTE_NODES = "opensm-cn-guids";
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmFallbackFiles.class);
    /** GUIDs are no secret, and an OpenSM that does not run as root must read them. */
    private static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-r--r--");

    private final Path roots;
    private final Path computeNodes;
    /** Each file's text as last written or found; null until known. */
    private String rootsHeld;
    private String nodesHeld;
    /** The last failure logged, so that a lasting one is logged once, not at every pass. */
    private String failure;

    /** The files in {@code dir}. */
    public OpenSmFallbackFiles(Path dir) {
        this.roots = dir.resolve(ROOTS);
        this.computeNodes = dir.resolve(COMPUTE_NODES);
    }

    /** The files beside the Unix socket at {@code address}. */
    static OpenSmFallbackFiles beside(SocketAddress address) {
        return new OpenSmFallbackFiles(((UnixDomainSocketAddress) address).getPath().toAbsolutePath().getParent());
    }

    /** The root GUID file. */
    public Path roots() {
        return roots;
    }

    /** The compute-node GUID file. */
    public Path computeNodes() {
        return computeNodes;
    }

    /**
     * Brings both files up to {@code fabric}: its top level as roots, and the port GUID ({@code portGuids}, by
     * destination GUID) of each of its end nodes that has one as compute nodes.
     *
     * @return whether a file was replaced
     */
    public boolean write(Fabric fabric, Map<Long, Long> portGuids) {
        FabricIndex index = fabric.index();
        List<Long> top = OpenSmGuidFiles.topLevel(index);
        List<Long> ports = new ArrayList<>(index.nodeCount());
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            if (index.pathBits(pos) != 0) {
                continue; // an end port's extra LIDs (LMC > 0): the port is listed once, at its base LID
            }
            Long port = portGuids.get(index.nodeGuid(pos));
            if (port != null) {
                ports.add(port);
            }
        }
        if (top.isEmpty() || ports.isEmpty()) {
            failed("the fabric has no leaf switch or no end node with a port GUID: the files are left as they are");
            return false;
        }
        String rootText = OpenSmGuidFiles.lines(top);
        String nodeText = OpenSmGuidFiles.lines(ports);
        try {
            rootsHeld = held(roots, rootsHeld);
            nodesHeld = held(computeNodes, nodesHeld);
            boolean rootsChanged = !rootText.equals(rootsHeld);
            boolean nodesChanged = !nodeText.equals(nodesHeld);
            if (rootsChanged) {
                replace(roots, rootText);
                rootsHeld = rootText;
            }
            if (nodesChanged) {
                replace(computeNodes, nodeText);
                nodesHeld = nodeText;
            }
            failure = null;
            if (rootsChanged || nodesChanged) {
                LOG.info("OpenSM's fallback GUID files: {} top-level switches in {}, {} end-node ports in {}",
                        top.size(), roots, nodeText.lines().count(), computeNodes);
            }
            return rootsChanged || nodesChanged;
        } catch (IOException | RuntimeException e) {
            failed("cannot write " + roots + " and " + computeNodes + ": " + e);
            return false;
        }
    }

    /**
     * What {@code file} holds: {@code known} while the file is there, else its text on disk (a restarted daemon need
     * not rewrite it), null when there is none.
     */
    private static String held(Path file, String known) throws IOException {
        if (known != null && Files.exists(file)) {
            return known;
        }
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static void replace(Path file, String text) throws IOException {
        Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.writeString(temporary, text, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(temporary, MODE);
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private void failed(String why) {
        if (!why.equals(failure)) {
            LOG.warn("OpenSM's fallback GUID files: {}", why);
            failure = why;
        }
    }
}
