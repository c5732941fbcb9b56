package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.release.BuildInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The running release in the daemon's start-up milestone, {@code GET /api/v1/status} and {@code fabric_build_info}. */
class BuildInfoReportTest {
    @TempDir
    Path state;

    private static String get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void theDaemonReportsTheReleaseItRuns() throws Exception {
        BuildInfo build = BuildInfo.current();
        DaemonConfig config = DaemonConfig.defaults().withDetector(false).withSouthboundBind("127.0.0.1").withPorts(0, 0).withStateDirectory(state);
        try (FabricManagerDaemon daemon = FabricManagerDaemon.start(config, List.of())) {
            ObjectMapper json = new ObjectMapper();
            JsonNode status = json.readTree(get(daemon.restUrl() + "/api/v1/status"));
            assertThat(status.at("/build/version").asText()).isEqualTo(build.version());
            assertThat(status.at("/build/commit").asText()).isEqualTo(build.commitLabel());
            assertThat(status.at("/build/commitTime").asText()).isEqualTo(build.commitTime());

            assertThat(get(daemon.restUrl() + "/metrics")).contains("# TYPE fabric_build_info gauge")
                    .contains("fabric_build_info{commit=\"" + build.commitLabel() + "\",version=\"" + build.version() + "\"} 1");

            JsonNode events = json.readTree(get(daemon.restUrl() + "/api/v1/events?since=0"));
            assertThat(events.get(0).path("kind").asText()).isEqualTo("STARTED");
            assertThat(events.get(0).path("message").asText()).startsWith(build.describe() + " started: agents on 127.0.0.1:");
        }
    }
}
