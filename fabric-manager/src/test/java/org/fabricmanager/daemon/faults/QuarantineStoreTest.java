package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.southbound.PortRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flap quarantine kept in the state directory (replicated by hot-standby managers): a manager started on
 * it (a standby taking over) keeps the quarantined ports out of the fabric and releases them only after the
 * quarantine time it saw them up itself.
 */
class QuarantineStoreTest {
    private static final int THRESHOLD = 2;
    private static final int QUARANTINE_MS = 2_000;

    @TempDir
    Path state;
    private final DaemonConfig.Faults settings = new DaemonConfig.Faults(50, THRESHOLD, 10_000, QUARANTINE_MS,
            DaemonConfig.defaults().faults().detector().withEnabled(false));
    private final List<Manager> managers = new ArrayList<>();

    /** One manager's fault handling over the state directory, with its own registry, clock and actions. */
    private final class Manager {
        final ManualControlLoop loop = new ManualControlLoop();
        final SwitchRegistry registry = new SwitchRegistry();
        final DaemonMetrics metrics = new DaemonMetrics(new SimpleMeterRegistry());
        final RecordingFaultActions recorded = new RecordingFaultActions();
        final List<String> actions = recorded.actions;
        final FaultManager faults;

        Manager() {
            faults = new FaultManager(settings, 1, FaultFixtures.onLoop(loop, registry, new MilestoneLog(), metrics, recorded),
                    new QuarantineStore(state, StateFiles.LOCAL));
            managers.add(this);
        }

        ManagedSwitch connected(long guid) {
            FakeSession s = FakeSession.of(guid, "s" + guid, 4, 1);
            ManagedSwitch ms = registry.register(s, s.hello(), 0);
            registry.admit(ms);
            ms.ports().update(PortRecord.toSwitch(2, 99, 1, "peer"));
            return ms;
        }
    }

    @AfterEach
    void close() {
        for (Manager m : managers) {
            m.faults.close();
            m.metrics.close();
        }
    }

    private static void flapUntilQuarantined(Manager m, ManagedSwitch ms, int port) {
        for (int i = 0; i <= THRESHOLD; i++) {
            m.faults.portTransition(ms, port, false);
            m.faults.portTransition(ms, port, true);
        }
        assertThat(m.faults.flaps().isQuarantined(ms.guid(), port)).isTrue();
    }

    @Test
    void aPortQuarantinedByOneManagerStaysDownUnderTheNextUntilItWasUpForTheQuarantineTime() {
        Manager first = new Manager();
        ManagedSwitch ms = first.connected(5);
        flapUntilQuarantined(first, ms, 2);
        QuarantineStore store = new QuarantineStore(state, StateFiles.LOCAL);
        assertThat(store.load()).singleElement().satisfies(e -> {
            assertThat(e.guid()).isEqualTo(5);
            assertThat(e.port()).isEqualTo(2);
            assertThat(e.flaps()).isEqualTo(THRESHOLD + 1);
        });

        Manager next = new Manager(); // the standby taking over: the same state directory, nothing else
        ManagedSwitch again = next.connected(5); // its agent reports the port up, as it is
        assertThat(next.faults.flaps().quarantined()).singleElement().satisfies(q -> {
            assertThat(q.port()).isEqualTo(2);
            assertThat(q.flaps()).isEqualTo(THRESHOLD + 1);
            assertThat(q.sinceMillis()).isEqualTo(first.faults.flaps().quarantined().get(0).sinceMillis());
        });
        assertThat(next.faults.masked(again.ports()).port(2).isUp()).as("routing sees it down").isFalse();
        next.loop.advance(QUARANTINE_MS - 1);
        assertThat(next.actions).isEmpty();
        next.loop.advance(1);
        assertThat(next.actions).as("released after the quarantine time up under this manager").containsExactly("changed");
        assertThat(next.faults.masked(again.ports())).isSameAs(again.ports());
        assertThat(store.load()).as("the release is stored too").isEmpty();
    }

    @Test
    void aRestoredPortThatGoesDownAgainStaysQuarantined() {
        Manager first = new Manager();
        flapUntilQuarantined(first, first.connected(7), 3);
        Manager next = new Manager();
        ManagedSwitch ms = next.connected(7);
        ms.ports().update(PortRecord.toSwitch(3, 98, 1, "peer"));
        next.loop.advance(QUARANTINE_MS / 2);
        assertThat(next.faults.portTransition(ms, 3, false)).as("masked").isFalse();
        next.loop.advance(10 * QUARANTINE_MS);
        assertThat(next.actions).as("a down stops the stable-up clock").isEmpty();
        assertThat(next.faults.flaps().isQuarantined(7, 3)).isTrue();
        assertThat(new QuarantineStore(state, StateFiles.LOCAL).load()).hasSize(1);
    }

    @Test
    void aDamagedQuarantineFileIsNamed() throws Exception {
        QuarantineStore store = new QuarantineStore(state, StateFiles.LOCAL);
        store.save(List.of(new QuarantineStore.Entry(0x10L, 4, 3, 1_700_000_000_000L)));
        assertThat(store.load()).containsExactly(new QuarantineStore.Entry(0x10L, 4, 3, 1_700_000_000_000L));
        Files.writeString(store.file(), Files.readString(store.file()).replace(" 4 3 ", " 4 5 "));
        assertThatThrownBy(store::load).isInstanceOf(StoreException.class).hasMessageContaining(QuarantineStore.FILE)
                .hasMessageContaining("checksum");
    }
}
