package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fabricmanager.daemon.DaemonSimulationTest.SPEC;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.store.StoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two daemons never share a state directory: the second refuses to start until the first stopped. */
class StateDirectoryLockTest {
    @TempDir
    Path state;

    @Test
    void secondDaemonOnOneStateDirectoryIsRefusedUntilTheFirstStops() throws Exception {
        DaemonConfig c = DaemonSimulationTest.config(state, SPEC).withSouthboundBind("127.0.0.1");
        FabricManagerDaemon first = FabricManagerDaemon.start(c, StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        try {
            assertThatThrownBy(() -> FabricManagerDaemon.start(c, StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine())))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("is in use by another fabric-manager daemon")
                    .hasMessageContaining(state.toString());
        } finally {
            first.close();
        }
        FabricManagerDaemon again = FabricManagerDaemon.start(c, StartOptions.of(List.of()).registry(new SimpleMeterRegistry()).engine(new HopTestEngine()));
        try {
            assertThat(again.southboundAddress()).isNotNull();
        } finally {
            again.close();
        }
    }
}
