package org.fabricmanager.daemon.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Set;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdmissionPolicyTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"); // 8 switches

    @TempDir
    Path state;

    @Test
    void expectedAdmitsTheCanonicalSwitchesAndHoldsOthers() {
        AdmissionPolicy p = new AdmissionPolicy(AdmissionPolicy.Mode.EXPECTED, Set.of(), SPEC, new AdmittedSwitchStore(state));
        assertThat(p.judge(PgftGenerator.switchGuid(1, 3), 0, true)).isNull();
        assertThat(p.judge(PgftGenerator.switchGuid(2, 3), 5, false)).isNull();
        assertThat(p.judge(PgftGenerator.switchGuid(2, 4), 5, true)).as("beyond the expected count of level 2")
                .contains("outside the expected");
        assertThat(p.judge(PgftGenerator.switchGuid(3, 0), 5, true)).as("no level 3").isNotNull();
        assertThat(p.judge(0x77, 1, true)).as("canonical GUIDs seen: no trust on first discovery").isNotNull();
    }

    @Test
    void aFabricWithItsOwnGuidsIsTrustedOnFirstDiscoveryUpToTheExpectedCount() {
        AdmittedSwitchStore store = new AdmittedSwitchStore(state);
        AdmissionPolicy p = new AdmissionPolicy(AdmissionPolicy.Mode.EXPECTED, Set.of(), SPEC, store);
        for (int i = 0; i < 8; i++) {
            assertThat(p.judge(0x5000 + i, i, true)).isNull();
            p.admitted(0x5000 + i);
        }
        assertThat(p.judge(0x6000, 8, true)).as("the shape is full").contains("all are there");
        assertThat(p.judge(0x6001, 3, false)).as("after the first discovery, new GUIDs wait").isNotNull();
        assertThat(store.load()).as("written at remember(), not at each admission").isEmpty();
        p.remember();
        AdmissionPolicy restarted = new AdmissionPolicy(AdmissionPolicy.Mode.EXPECTED, Set.of(), SPEC, store);
        assertThat(restarted.judge(0x5003, 8, false)).as("known across restarts").isNull();
        assertThat(store.load()).hasSize(8);
    }

    @Test
    void listAndAnyModes() {
        AdmissionPolicy list = new AdmissionPolicy(AdmissionPolicy.Mode.LIST, Set.of(0x10L), null, new AdmittedSwitchStore(state));
        assertThat(list.judge(0x10, 0, true)).isNull();
        assertThat(list.judge(0x11, 0, true)).contains("admitList");
        list.admitted(0x11);
        assertThat(list.judge(0x11, 0, false)).isNull();
        AdmissionPolicy any = new AdmissionPolicy(AdmissionPolicy.Mode.ANY, Set.of(), null,
                new AdmittedSwitchStore(state.resolve("x")));
        assertThat(any.judge(0x99, 1000, false)).isNull();
        assertThatThrownBy(() -> AdmissionPolicy.Mode.of("some", null)).hasMessageContaining("expected, list or any");
        assertThat(AdmissionPolicy.Mode.of(null, SPEC)).isEqualTo(AdmissionPolicy.Mode.EXPECTED);
        assertThat(AdmissionPolicy.Mode.of(null, null)).isEqualTo(AdmissionPolicy.Mode.ANY);
    }
}
