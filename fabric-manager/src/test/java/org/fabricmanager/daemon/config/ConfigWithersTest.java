package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/** Each {@code with...} of {@link DaemonConfig} changes its own section and keeps the others, the OpenSM one included. */
class ConfigWithersTest {
    @Test
    void everyWitherKeepsTheOpenSmSection() {
        DaemonConfig base = DaemonConfig.defaults().withOpenSm(OpenSm.of("/run/fm/opensm.sock", "0660",
                List.of("opensm"), 4096));
        List<UnaryOperator<DaemonConfig>> withers = List.of(c -> c.withPorts(1, 2), c -> c.withDetector(false),
                c -> c.withSouthboundBind("127.0.0.2"), c -> c.withEngine("dmodc"), c -> c.withStateDirectory(Path.of("s")),
                c -> c.withExpectedPgft(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)")), c -> c.withExpectedHdft(null),
                c -> c.withDiscovery(100, 1000), c -> c.withPush(1000, 2), c -> c.withMaxInFlight(4),
                c -> c.withSecurity(c.security()), c -> c.withFaults(c.faults()), c -> c.withAdminToken("t0ken-t0ken-t0ken"),
                c -> c.withHa(c.ha()));
        for (int i = 0; i < withers.size(); i++) {
            assertThat(withers.get(i).apply(base).opensm()).as("wither #%d of %s", i, withers.size())
                    .isEqualTo(base.opensm());
        }
    }
}
