package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The opensm.conf lines the release ships ({@code conf/opensm.conf.example}) are the ones docs/opensm.md shows, and
 * they fit together with the daemon and its unit: OpenSM's fallback reads the GUID files the daemon writes beside the
 * socket they name, in the directory the systemd unit creates and keeps.
 */
class OpenSmConfExampleTest {
    static final Path EXAMPLE = Path.of("..", "conf", "opensm.conf.example");
    static final Path GUIDE = Path.of("..", "docs", "opensm.md");
    static final Path UNIT = Path.of("..", "conf", "fabric-manager.service");
    private static final Pattern SOCKET = Pattern.compile("\\bfm\\.socket=(\\S+)");

    /** The example's option lines (no comments, no blank lines), in order. */
    private static List<String> optionLines() throws IOException {
        return Files.readAllLines(EXAMPLE).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    }

    private static Map<String, String> options() throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        for (String line : optionLines()) {
            int space = line.indexOf(' ');
            options.put(line.substring(0, space), line.substring(space + 1));
        }
        return options;
    }

    @Test
    void theExampleHoldsExactlyTheLinesTheGuideShows() throws IOException {
        String guide = Files.readString(GUIDE);
        int heading = guide.indexOf("`/etc/opensm/opensm.conf`");
        assertThat(heading).as("docs/opensm.md shows opensm.conf").isNotNegative();
        int start = guide.indexOf("```\n", heading) + 4;
        List<String> shown = guide.substring(start, guide.indexOf("```", start)).lines().toList();

        assertThat(optionLines()).isEqualTo(shown);
    }

    @Test
    void opensmsFallbackReadsTheGuidFilesTheDaemonWritesBesideItsSocket() throws IOException {
        Map<String, String> options = options();
        Matcher socket = SOCKET.matcher(options.get("event_plugin_options"));
        assertThat(socket.find()).as("fm.socket in " + options).isTrue();
        OpenSmFallbackFiles files = OpenSmFallbackFiles.beside(UnixDomainSocketAddress.of(socket.group(1)));

        assertThat(options).containsEntry("routing_engine", "fabric-manager,ftree,minhop")
                .containsEntry("root_guid_file", files.roots().toString())
                .containsEntry("cn_guid_file", files.computeNodes().toString())
                .containsEntry("force_log_flush", "TRUE");
    }

    @Test
    void theUnitCreatesTheSocketsDirectoryAndKeepsItWhileTheDaemonIsStopped() throws IOException {
        Matcher socket = SOCKET.matcher(options().get("event_plugin_options"));
        assertThat(socket.find()).isTrue();
        String unit = Files.readString(UNIT);
        Matcher runtime = Pattern.compile("(?m)^RuntimeDirectory=(\\S+)$").matcher(unit);
        assertThat(runtime.find()).as("RuntimeDirectory= in " + UNIT).isTrue();

        assertThat(Path.of("/run", runtime.group(1))).isEqualTo(Path.of(socket.group(1)).getParent());
        assertThat(unit).as("the GUID files outlive a stop").containsPattern("(?m)^RuntimeDirectoryPreserve=yes$");
    }
}
