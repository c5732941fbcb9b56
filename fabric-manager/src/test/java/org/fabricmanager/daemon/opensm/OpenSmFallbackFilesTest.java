package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GUID files the daemon keeps for OpenSM's fallback engines: the top level and the end nodes' port GUIDs of the
 * fabric, each file replaced by a rename and only when its text changes, and failures that never reach the caller.
 */
class OpenSmFallbackFilesTest {
    private static final String SPEC = "PGFT(3;4,4,4;1,4,4;1,1,1)";
    /** Port GUIDs differ from node GUIDs, as on real CAs: the files must hold the ports'. */
    private static final long PORT_BIT = 0x0002_0000_0000_0000L;
    private static final FileTime LONG_AGO = FileTime.fromMillis(0);

    @TempDir
    Path dir;

    private static Map<Long, Long> portGuids(Fabric fabric) {
        Map<Long, Long> ports = new HashMap<>();
        for (EndNode n : fabric.nodes()) {
            ports.put(n.guid(), n.guid() | PORT_BIT);
        }
        return ports;
    }

    private static List<String> formatted(Stream<Long> guids) {
        return guids.map(Guids::format).sorted().toList();
    }

    private static Object inode(Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    }

    @Test
    void listsTheTopLevelAsRootsAndEveryEndNodesPortGuidAsComputeNodes() throws Exception {
        Fabric fabric = TestFabrics.canonical(SPEC);
        OpenSmFallbackFiles files = new OpenSmFallbackFiles(dir);

        assertThat(files.write(fabric, portGuids(fabric))).isTrue();

        List<Long> top = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            top.add(TestFabrics.sw(3, i));
        }
        assertThat(Files.readAllLines(dir.resolve(OpenSmFallbackFiles.ROOTS))).as(SPEC + ": its 16 level-3 switches")
                .containsExactlyElementsOf(formatted(top.stream()));
        assertThat(Files.readAllLines(dir.resolve(OpenSmFallbackFiles.COMPUTE_NODES))).as(SPEC + ": its 64 nodes' ports")
                .hasSize(64).containsExactlyElementsOf(formatted(fabric.nodes().stream().map(n -> n.guid() | PORT_BIT)));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(OpenSmFallbackFiles.ROOTS))))
                .as("readable by an OpenSM that does not run as root").isEqualTo("rw-r--r--");
    }

    @Test
    void followsTheFabricTheDaemonRecognisedAndLeavesOutNodesWithoutAPortGuid() throws Exception {
        Fabric intact = TestFabrics.canonical(SPEC);
        long gone = TestFabrics.sw(3, 5);
        Fabric degraded = intact.withoutSwitches(List.of(gone));
        Map<Long, Long> ports = portGuids(degraded);
        long unknown = TestFabrics.node(7);
        ports.remove(unknown);

        new OpenSmFallbackFiles(dir).write(degraded, ports);

        assertThat(Files.readAllLines(dir.resolve(OpenSmFallbackFiles.ROOTS))).as("a top switch removed")
                .hasSize(15).doesNotContain(Guids.format(gone));
        assertThat(Files.readAllLines(dir.resolve(OpenSmFallbackFiles.COMPUTE_NODES))).hasSize(63)
                .doesNotContain(Guids.format(unknown | PORT_BIT));
    }

    @Test
    void replacesAChangedFileWholeByRenamingANewOneOverIt() throws Exception {
        Fabric fabric = TestFabrics.canonical(SPEC);
        OpenSmFallbackFiles files = new OpenSmFallbackFiles(dir);
        Map<Long, Long> ports = portGuids(fabric);
        files.write(fabric, ports);
        Object rootsBefore = inode(files.roots());
        Object nodesBefore = inode(files.computeNodes());

        // a CA replaced: its node keeps its destination, its port GUID is new
        long replaced = TestFabrics.node(3);
        ports.put(replaced, 0x0000_0000_dead_beefL);
        assertThat(files.write(fabric, ports)).isTrue();

        assertThat(inode(files.computeNodes())).as("a new file renamed over the old: OpenSM never reads half of one")
                .isNotEqualTo(nodesBefore);
        assertThat(Files.readString(files.computeNodes(), StandardCharsets.US_ASCII)).contains("0x00000000deadbeef\n")
                .doesNotContain(Guids.format(replaced | PORT_BIT));
        assertThat(inode(files.roots())).as("the roots did not change: their file stays").isEqualTo(rootsBefore);
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("no temporary file left")
                    .containsExactlyInAnyOrder(OpenSmFallbackFiles.ROOTS, OpenSmFallbackFiles.COMPUTE_NODES);
        }
    }

    @Test
    void writesNothingWhenTheTextIsUnchangedNotEvenAfterARestart() throws Exception {
        Fabric fabric = TestFabrics.canonical(SPEC);
        new OpenSmFallbackFiles(dir).write(fabric, portGuids(fabric));
        for (Path f : List.of(dir.resolve(OpenSmFallbackFiles.ROOTS), dir.resolve(OpenSmFallbackFiles.COMPUTE_NODES))) {
            Files.setLastModifiedTime(f, LONG_AGO);
        }
        Object roots = inode(dir.resolve(OpenSmFallbackFiles.ROOTS));

        OpenSmFallbackFiles running = new OpenSmFallbackFiles(dir);
        assertThat(running.write(fabric, portGuids(fabric))).as("a restarted daemon finds the same text on disk").isFalse();
        assertThat(running.write(fabric, portGuids(fabric))).as("the next subnet, unchanged").isFalse();

        assertThat(Files.getLastModifiedTime(running.roots())).isEqualTo(LONG_AGO);
        assertThat(Files.getLastModifiedTime(running.computeNodes())).isEqualTo(LONG_AGO);
        assertThat(inode(running.roots())).isEqualTo(roots);
    }

    @Test
    void writesAgainAFileThatWasRemoved() throws Exception {
        Fabric fabric = TestFabrics.canonical(SPEC);
        OpenSmFallbackFiles files = new OpenSmFallbackFiles(dir);
        files.write(fabric, portGuids(fabric));
        Files.delete(files.roots());

        assertThat(files.write(fabric, portGuids(fabric))).isTrue();
        assertThat(Files.readAllLines(files.roots())).hasSize(16);
    }

    @Test
    void aFailureToWriteIsReportedAsNothingWrittenNotThrown() throws Exception {
        Fabric fabric = TestFabrics.canonical(SPEC);
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");
        OpenSmFallbackFiles files = new OpenSmFallbackFiles(notADirectory);

        assertThat(files.write(fabric, portGuids(fabric))).isFalse();
        assertThat(files.write(fabric, portGuids(fabric))).as("again: logged once, still nothing thrown").isFalse();
        assertThat(Files.exists(files.roots())).isFalse();
    }

    @Test
    void aFabricWithoutEndNodesLeavesTheFilesAsTheyAre() throws Exception {
        Fabric fabric = TestFabrics.canonical(SPEC);
        OpenSmFallbackFiles files = new OpenSmFallbackFiles(dir);
        files.write(fabric, portGuids(fabric));
        String before = Files.readString(files.computeNodes());

        assertThat(files.write(fabric, Map.of())).isFalse();
        assertThat(Files.readString(files.computeNodes())).isEqualTo(before);
    }

    @Test
    void liveBesideTheSocket() {
        OpenSmFallbackFiles files = OpenSmFallbackFiles.beside(
                UnixDomainSocketAddress.of(dir.resolve("run/opensm.sock")));
        assertThat(files.roots()).isEqualTo(dir.resolve("run").resolve(OpenSmFallbackFiles.ROOTS));
        assertThat(files.computeNodes()).isEqualTo(dir.resolve("run").resolve(OpenSmFallbackFiles.COMPUTE_NODES));
    }
}
