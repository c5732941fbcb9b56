package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.release.BuildInfo;
import org.junit.jupiter.api.Test;

/** {@code fabric-manager --version}, and where the usage mentions it. */
class VersionCommandTest {

    @Test
    void versionPrintsTheReleaseThenTheJavaRuntime() {
        CliRun run = CliRun.of("--version");
        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out().lines()).hasSize(2);
        assertThat(run.out().lines().findFirst()).hasValue(BuildInfo.current().describe());
        assertThat(run.out()).containsPattern("(?m)^fabric-manager \\d+\\.\\d+\\.\\d+\\S* \\(commit ")
                .contains("Java " + System.getProperty("java.version"));
    }

    @Test
    void versionTakesNoArgument() {
        CliRun run = CliRun.of("--version", "--verbose");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("fabric-manager: --version takes no argument, got '--verbose'\n");
    }

    @Test
    void usageListsVersion() {
        assertThat(CliRun.of("--help").out()).contains("fabric-manager --version");
    }
}
