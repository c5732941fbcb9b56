package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a reload applies and what it leaves for a restart. */
class ConfigReloadTest {
    @Test
    void appliesTheRunTimeKnobsAndListsTheRestWithoutApplyingIt() throws Exception {
        DaemonConfig running = ConfigLoader.parse("""
                rest:
                  adminToken: "old-token-0123456789"
                faults:
                  flapThreshold: 3
                routing:
                  settleMs: 50
                """, "fm.yaml");
        DaemonConfig read = ConfigLoader.parse("""
                rest:
                  adminToken: "new-token-0123456789"
                faults:
                  flapThreshold: 7
                  quarantineMs: 240000
                routing:
                  settleMs: 80
                  engine: hop
                discovery:
                  settleMs: 9000
                """, "fm.yaml");
        ConfigReload r = ConfigReload.plan(running, read);
        assertThat(r.changed()).anySatisfy(c -> assertThat(c).isEqualTo("faults.flapThreshold: 3 -> 7"))
                .anySatisfy(c -> assertThat(c).isEqualTo("routing.settleMs: 50 -> 80"))
                .anySatisfy(c -> assertThat(c).startsWith("faults.quarantineMs: "))
                .anySatisfy(c -> assertThat(c).isEqualTo("rest.adminToken: set -> another"));
        assertThat(String.join(" ", r.changed())).doesNotContain("token-0123456789");
        assertThat(r.needRestart()).containsExactly("routing (engine, threads)", "discovery");
        DaemonConfig e = r.effective();
        assertThat(e.faults().flapThreshold()).isEqualTo(7);
        assertThat(e.faults().quarantineMs()).isEqualTo(240000);
        assertThat(e.routing().settleMs()).isEqualTo(80);
        assertThat(e.rest().adminToken()).isEqualTo("new-token-0123456789");
        assertThat(e.routing().engine()).isEqualTo(running.routing().engine());
        assertThat(e.discovery()).isEqualTo(running.discovery());
    }

    @Test
    void theSameFileChangesNothing() throws Exception {
        DaemonConfig c = ConfigLoader.parse("faults:\n  flapThreshold: 3\n", "fm.yaml");
        ConfigReload r = ConfigReload.plan(c, ConfigLoader.parse("faults:\n  flapThreshold: 3\n", "fm.yaml"));
        assertThat(r.changed()).isEmpty();
        assertThat(r.needRestart()).isEmpty();
        assertThat(r.effective()).isEqualTo(c);
    }
}
