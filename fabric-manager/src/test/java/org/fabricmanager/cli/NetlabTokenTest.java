package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A netlab's daemon takes an admin token, so that whatif, drain and rebalance can be tried on real packets. */
class NetlabTokenTest {
    @Test
    void theLabsDaemonTakesTheTokenOfTheFileOnlyItsOwnerMayRead(@TempDir Path dir) throws Exception {
        DaemonConfig config = NetlabUpCommand.config(dir, PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"), 0, null);
        Path token = DemoToken.file(dir);
        assertThat(token).isEqualTo(dir.resolve("admin-token"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token))).isEqualTo("rw-------");
        assertThat(Files.readString(token)).matches("[0-9a-f]{48}\n");
        assertThat(config.rest().adminToken()).isEqualTo(Files.readString(token).strip());
    }
}
