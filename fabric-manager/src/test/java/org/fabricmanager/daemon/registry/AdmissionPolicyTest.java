package org.fabricmanager.daemon.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Set;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.daemon.store.PendingSwitchStore;
import org.fabricmanager.daemon.store.StateFiles;
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
    void aSwitchHeldByOneManagerWaitsForAnAdminUnderTheNextEvenDuringItsFirstDiscovery() {
        AdmittedSwitchStore admitted = new AdmittedSwitchStore(state, StateFiles.LOCAL);
        PendingSwitchStore pending = new PendingSwitchStore(state, StateFiles.LOCAL);
        AdmissionPolicy first = new AdmissionPolicy(AdmissionPolicy.Mode.EXPECTED, Set.of(), SPEC, admitted, pending);
        for (int i = 0; i < 8; i++) {
            first.admitted(0x5000 + i);
        }
        first.remember();
        String reason = first.judge(0x6000, 8, false);
        assertThat(reason).contains("outside the expected");
        first.held(0x6000, reason);
        assertThat(pending.load()).as("written at once").containsEntry(0x6000L, reason);

        // the next manager (a standby taking over) in its first discovery, before the shape is full: a new GUID
        // would be trusted, the held one is not
        AdmissionPolicy next = new AdmissionPolicy(AdmissionPolicy.Mode.EXPECTED, Set.of(), SPEC, admitted, pending);
        assertThat(next.judge(0x6001, 3, true)).as("an unknown GUID on first discovery").isNull();
        assertThat(next.judge(0x6000, 3, true)).startsWith(AdmissionPolicy.HELD).endsWith(reason);
        next.held(0x6000, next.judge(0x6000, 3, true));
        assertThat(pending.load()).as("the first reason is kept").containsExactly(java.util.Map.entry(0x6000L, reason));

        next.admitted(0x6000); // an admin admits it
        next.remember();
        assertThat(pending.load()).isEmpty();
        assertThat(admitted.load()).contains(0x6000L);
        assertThat(new AdmissionPolicy(AdmissionPolicy.Mode.EXPECTED, Set.of(), SPEC, admitted, pending)
                .judge(0x6000, 8, false)).isNull();
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
