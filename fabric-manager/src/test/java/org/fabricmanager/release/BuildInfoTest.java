package org.fabricmanager.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class BuildInfoTest {

    private static Properties props(String version, String commit, String dirty, String time) {
        Properties p = new Properties();
        if (version != null) {
            p.setProperty("version", version);
        }
        if (commit != null) {
            p.setProperty("commit", commit);
        }
        if (dirty != null) {
            p.setProperty("dirty", dirty);
        }
        if (time != null) {
            p.setProperty("commitTime", time);
        }
        return p;
    }

    @Test
    void theBuildWritesTheProjectVersionIntoTheClasspath() {
        BuildInfo current = BuildInfo.current();
        assertThat(current.version()).as("written by the build from the Maven project version")
                .isNotEqualTo(BuildInfo.UNKNOWN).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(current.commit()).matches(BuildInfo.UNKNOWN + "|[0-9a-f]{12}");
        assertThat(BuildInfo.class.getResource(BuildInfo.RESOURCE)).isNotNull();
    }

    @Test
    void describesTheReleaseOnOneLine() {
        BuildInfo info = BuildInfo.of(props("1.2.0", "61ead8a4f138", "false", "2026-11-21T16:50:14+00:00"));
        assertThat(info.describe()).isEqualTo("fabric-manager 1.2.0 (commit 61ead8a4f138, 2026-11-21T16:50:14+00:00)");
        BuildInfo dirty = BuildInfo.of(props("1.2.0-SNAPSHOT", "61ead8a4f138", "TRUE", ""));
        assertThat(dirty.commitLabel()).isEqualTo("61ead8a4f138-dirty");
        assertThat(dirty.describe()).isEqualTo("fabric-manager 1.2.0-SNAPSHOT (commit 61ead8a4f138-dirty)");
    }

    @Test
    void aBuildWithoutGitHasAnUnknownCommitAndIsNeverDirty() {
        // what the build writes from a source tarball: empty values
        BuildInfo info = BuildInfo.of(props("1.2.0", "", "true", ""));
        assertThat(info.commit()).isEqualTo(BuildInfo.UNKNOWN);
        assertThat(info.dirty()).isFalse();
        assertThat(info.commitTime()).isEqualTo(BuildInfo.UNKNOWN);
        assertThat(info.describe()).isEqualTo("fabric-manager 1.2.0 (commit unknown)");
    }

    @Test
    void valuesThatAreNotOfTheExpectedShapeReadAsUnknown() {
        BuildInfo missing = BuildInfo.of(new Properties());
        assertThat(missing).isEqualTo(new BuildInfo(BuildInfo.UNKNOWN, BuildInfo.UNKNOWN, false, BuildInfo.UNKNOWN));
        // an unexpanded placeholder, text that would break a log line or a Prometheus label, absurd lengths
        assertThat(BuildInfo.of(props("${project.version}", "${bi.commit}", "yes", "${bi.time}")))
                .isEqualTo(missing);
        assertThat(BuildInfo.of(props("1.0 beta", "61EAD8A4F138", "true", "yesterday\nnoon")).version())
                .isEqualTo(BuildInfo.UNKNOWN);
        assertThat(BuildInfo.of(props("1.0\"}", "61ead8a4f138\"", null, null)).commit()).isEqualTo(BuildInfo.UNKNOWN);
        assertThat(BuildInfo.of(props("1".repeat(65), "a".repeat(41), null, "2".repeat(41))))
                .isEqualTo(missing);
        assertThat(BuildInfo.of(props(" 1.0.0 ", " 61ead8a ", " true ", null)))
                .isEqualTo(new BuildInfo("1.0.0", "61ead8a", true, BuildInfo.UNKNOWN));
    }
}
