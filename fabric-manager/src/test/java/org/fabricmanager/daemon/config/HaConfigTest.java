package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ha section: off by default; when on, this node must be one of well-formed, distinct peers. */
class HaConfigTest {
    @Test
    void haIsOffByDefault() {
        Ha ha = DaemonConfig.defaults().ha();
        assertThat(ha.enabled()).isFalse();
        assertThat(ha.peers()).isEmpty();
        assertThat(ha.electionTimeoutMs()).isEqualTo(500);
        assertThat(ha.snapshotEvery()).isEqualTo(64);
        assertThat(ha.pauseLimitMs()).isEqualTo(60_000);
    }

    @Test
    void aGroupOfThreeParses() {
        DaemonConfig c = ConfigLoader.parse("""
                ha:
                  enabled: true
                  nodeId: n2
                  peers: ["n1=mgmt1:7690", "n2=10.0.0.2:7690", "n3=mgmt3:7691"]
                  electionTimeoutMs: 700
                  pauseLimitMs: 20000
                """, "ha.yaml");
        assertThat(c.ha().pauseLimitMs()).isEqualTo(20_000);
        assertThat(c.ha().enabled()).isTrue();
        assertThat(c.ha().peerAddresses()).containsExactly(Map.entry("n1", "mgmt1:7690"), Map.entry("n2", "10.0.0.2:7690"),
                Map.entry("n3", "mgmt3:7691"));
    }

    @Test
    void badGroupsAreRefusedWithTheOption() {
        assertThatThrownBy(() -> ConfigLoader.parse("""
                ha:
                  enabled: true
                  nodeId: n4
                  peers: ["n1=a:1", "n2=b:2", "n3=c:3"]
                """, "ha.yaml")).hasMessageContaining("ha.nodeId 'n4' is not among ha.peers");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                ha:
                  enabled: true
                  peers: ["n1=a:1"]
                """, "ha.yaml")).hasMessageContaining("ha.nodeId must be set");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                ha:
                  peers: ["n1=a:1", "n1=b:2"]
                """, "ha.yaml")).hasMessageContaining("names 'n1' twice");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                ha:
                  peers: ["n1=a"]
                """, "ha.yaml")).hasMessageContaining("'n1=a' is not ID=HOST:PORT");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                ha:
                  pauseLimitMs: 1000
                """, "ha.yaml")).hasMessageContaining("ha.pauseLimitMs");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                ha:
                  peers: ["n1=a:70000"]
                """, "ha.yaml")).hasMessageContaining("is not ID=HOST:PORT");
        assertThatThrownBy(() -> ConfigLoader.parse("""
                ha:
                  electionTimeoutMs: 10
                """, "ha.yaml")).hasMessageContaining("ha.electionTimeoutMs");
    }
}
