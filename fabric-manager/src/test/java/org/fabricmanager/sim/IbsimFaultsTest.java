package org.fabricmanager.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.rest.RestError;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * The demo's faults under OpenSM become ibsim console commands ({@code Unlink "id"[p]}, {@code Link "id"[p] "peer"[q]},
 * {@code Unlink "id"}), with power and cables modelled as the agents' simulator does, and what has no meaning there or
 * would cut OpenSM off is refused with a 4xx and nothing typed. On PGFT(2;4,4;1,4;1,1): leaves s1-0..3 (nodes on ports
 * 1..4, spines on 5..8), spines s2-0..3 (leaves on 1..4); OpenSM runs on node n0 under leaf s1-0.
 */
class IbsimFaultsTest {
    private static final Fabric FABRIC = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));

    private final List<String> typed = new ArrayList<>();
    /** The daemon's GUIDs: ibsim's own, unlike the generated ones. */
    private final Map<Long, FabricSwitch> byDaemonGuid = new HashMap<>();
    private final IbsimErrorRates errors = new IbsimErrorRates(typed::add);
    private final IbsimFaults faults = faults();

    private IbsimFaults faults() {
        Map<Long, String> names = new HashMap<>();
        long next = 0x200000;
        for (FabricSwitch s : FABRIC.switches()) {
            byDaemonGuid.put(next, s);
            names.put(next++, IbsimNet.id(s.name(), s.guid()));
        }
        return new IbsimFaults(FABRIC, names, typed::add, errors);
    }

    private long daemonGuid(int level, int idx) {
        long generated = PgftGenerator.switchGuid(level, idx);
        return byDaemonGuid.entrySet().stream().filter(e -> e.getValue().guid() == generated).findFirst().orElseThrow()
                .getKey();
    }

    private static String id(int level, int idx) {
        FabricSwitch s = FABRIC.switchByGuid(PgftGenerator.switchGuid(level, idx)).orElseThrow();
        return IbsimNet.id(s.name(), s.guid());
    }

    /** The leaf and port at the other end of port {@code port} of switch (level, idx). */
    private static String peer(int level, int idx, int port) {
        long guid = PgftGenerator.switchGuid(level, idx);
        Link l = FABRIC.links().stream().filter(k -> k.touches(guid, port)).findFirst().orElseThrow();
        long other = l.a() == guid ? l.b() : l.a();
        FabricSwitch s = FABRIC.switchByGuid(other).orElseThrow();
        return "\"" + IbsimNet.id(s.name(), s.guid()) + "\"[" + (l.a() == guid ? l.bPort() : l.aPort()) + "]";
    }

    @Test
    void aCableGoesDownWithUnlinkAndComesBackWithLinkToItsPeer() {
        long leaf = daemonGuid(1, 1);
        faults.linkDown(leaf, 5);
        faults.linkUp(leaf, 5);
        assertThat(typed).containsExactly("Unlink \"" + id(1, 1) + "\"[5]",
                "Link \"" + id(1, 1) + "\"[5] " + peer(1, 1, 5));
        assertThat(peer(1, 1, 5)).as("an uplink").startsWith("\"s2-");
    }

    @Test
    void aSwitchLosesPowerWithUnlinkAndGetsBackOnlyTheCablesThatWereUp() {
        long spine = daemonGuid(2, 2);
        long otherSpine = daemonGuid(2, 3);
        faults.linkDown(spine, 2); // cut on its own before the power goes
        faults.kill(spine, FabricSimulator.KillMode.POWER);
        faults.linkDown(spine, 3); // a cable of a dead switch: nothing to type, but it stays down at revival
        faults.revive(spine);
        assertThat(typed).containsExactly("Unlink \"" + id(2, 2) + "\"[2]", "Unlink \"" + id(2, 2) + "\"",
                "Link \"" + id(2, 2) + "\"[1] " + peer(2, 2, 1), "Link \"" + id(2, 2) + "\"[4] " + peer(2, 2, 4));

        // a cable between two dead switches comes back with the second of them, not before
        typed.clear();
        long leaf = daemonGuid(1, 3);
        faults.kill(otherSpine, FabricSimulator.KillMode.POWER);
        faults.kill(leaf, FabricSimulator.KillMode.POWER);
        faults.revive(otherSpine);
        assertThat(typed).hasSize(5).doesNotContain("Link \"" + id(2, 3) + "\"[4] " + peer(2, 3, 4));
        typed.clear();
        faults.revive(leaf);
        assertThat(typed).contains("Link \"" + id(1, 3) + "\"[8] " + peer(1, 3, 8))
                .as("the leaf's nodes and all four spines").hasSize(8);
    }

    @Test
    void refusesWhatHasNoMeaningOrWouldCutOpenSmOffAndTypesNothing() {
        long smLeaf = daemonGuid(1, 0);
        long leaf = daemonGuid(1, 1);
        assertThatThrownBy(() -> faults.kill(leaf, FabricSimulator.KillMode.AGENT))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("mode=agent has no meaning under OpenSM");
        assertThatThrownBy(() -> faults.kill(smLeaf, FabricSimulator.KillMode.POWER))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("OpenSM's own port");
        assertThatThrownBy(() -> faults.linkDown(smLeaf, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("OpenSM's own port");
        assertThatThrownBy(() -> faults.linkUp(leaf, 5)).isInstanceOf(IllegalStateException.class).hasMessageContaining("not down");
        assertThatThrownBy(() -> faults.revive(leaf)).isInstanceOf(IllegalStateException.class).hasMessageContaining("not killed");
        assertThatThrownBy(() -> faults.linkDown(leaf, 9)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no cable at");
        assertThatThrownBy(() -> faults.requireSwitch(PgftGenerator.switchGuid(1, 1)))
                .as("the generated GUID is not the daemon's").isInstanceOf(IllegalArgumentException.class);
        assertThat(typed).isEmpty();
        faults.linkDown(smLeaf, 5);
        assertThatThrownBy(() -> faults.linkDown(smLeaf, 5)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already down");
        faults.kill(leaf, FabricSimulator.KillMode.POWER);
        assertThatThrownBy(() -> faults.kill(leaf, FabricSimulator.KillMode.POWER)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already killed");
        assertThat(typed).hasSize(2);
    }

    @Test
    void theEndpointsAnswerTheRefusalsWithTheirStatus() {
        SimEndpoints endpoints = new SimEndpoints();
        endpoints.attach(faults);
        String leaf = Guids.format(daemonGuid(1, 1));
        assertThat(status(endpoints, "/api/v1/sim/switches/" + leaf + "/kill", Map.of("mode", List.of("agent"))))
                .isEqualTo(HttpResponseStatus.BAD_REQUEST);
        assertThat(status(endpoints, "/api/v1/sim/switches/" + Guids.format(daemonGuid(1, 0)) + "/kill",
                Map.of("mode", List.of("power")))).isEqualTo(HttpResponseStatus.CONFLICT);
        assertThat(status(endpoints, "/api/v1/sim/switches/0x77/revive", Map.of())).isEqualTo(HttpResponseStatus.NOT_FOUND);
        assertThat(status(endpoints, "/api/v1/sim/links/up", Map.of("guid", List.of(leaf), "port", List.of("5"))))
                .isEqualTo(HttpResponseStatus.CONFLICT);
        String body = new String(endpoints.post("/api/v1/sim/links/down".split("/"), Map.of("guid", List.of(leaf),
                "port", List.of("5")), "/api/v1/sim/links/down").join(), StandardCharsets.UTF_8);
        assertThat(body).contains("\"state\":\"down\"");
        assertThat(typed).containsExactly("Unlink \"" + id(1, 1) + "\"[5]");
    }

    @Test
    void aPortsSymbolErrorsRiseEachSecondBelowWhereOpenSmClearsThemAndStopAtZero() {
        long leaf = daemonGuid(1, 1);
        String at = "PerformanceSet \"" + id(1, 1) + "\"[5] PortCounters.SymbolErrorCounter=";
        faults.linkErrors(leaf, 5, 20_000);
        assertThat(typed).as("nothing before the first second").isEmpty();
        errors.tick();
        errors.tick();
        errors.tick();
        assertThat(typed).as("the third second would pass three quarters of 16 bits: it starts again")
                .containsExactly(at + 20_000, at + 40_000, at + 20_000);
        assertThat(IbsimErrorRates.LIMIT).isEqualTo(49_152);
        typed.clear();
        faults.linkErrors(leaf, 5, 0);
        errors.tick();
        assertThat(typed).as("stopped").isEmpty();
        assertThat(errors.rates()).isEmpty();
        assertThatThrownBy(() -> faults.linkErrors(leaf, 9, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no cable at");

        SimEndpoints endpoints = new SimEndpoints();
        endpoints.attach(faults);
        assertThat(status(endpoints, "/api/v1/sim/links/errors", Map.of("guid", List.of(Guids.format(leaf)),
                "port", List.of("5"), "perSecond", List.of("49152")))).isEqualTo(HttpResponseStatus.BAD_REQUEST);
        assertThat(status(endpoints, "/api/v1/sim/links/errors", Map.of("guid", List.of(Guids.format(leaf)),
                "port", List.of("5"), "perSecond", List.of("7")))).isEqualTo(HttpResponseStatus.OK);
        assertThat(errors.rates()).containsExactly(Map.entry(id(1, 1) + "[5]", 7L));
    }

    private static HttpResponseStatus status(SimEndpoints endpoints, String path, Map<String, List<String>> params) {
        try {
            endpoints.post(path.split("/"), params, path);
            return HttpResponseStatus.OK;
        } catch (RestError e) {
            return e.status();
        }
    }

    @Test
    void aNameThatIsNoSwitchOfTheFabricIsRefusedAtOnce() {
        Map<Long, String> names = new HashMap<>();
        names.put(0x200000L, "s9-9_unknown");
        assertThatThrownBy(() -> new IbsimFaults(FABRIC, names, typed::add, errors))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("s9-9_unknown");
    }
}
