package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

class SimulationCommandsTest {
    /** Port changes reach an agent on its event loop: wait for one (5 s at most). */
    private static void eventually(String what, java.util.function.BooleanSupplier condition) {
        Await.until(what, java.time.Duration.ofSeconds(5), condition);
    }

    @Test
    void commandsInjectFaultsAndBadLinesAreAnsweredWithoutStoppingAnything() {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
        long leaf = PgftGenerator.switchGuid(1, 0);
        long spine = PgftGenerator.switchGuid(2, 1);
        try (FabricSimulator sim = new FabricSimulator(fabric, AgentSettings.defaults(new InetSocketAddress("127.0.0.1", 9)),
                null, 1, null, 1)) {
            String leafText = Guids.format(leaf);
            assertThat(SimulationCommands.apply("link down " + leafText + " 5", sim)).isEqualTo("ok: link " + leafText + "/5 down");
            eventually("port 5 down", () -> sim.agent(leaf).ports().get(4).equals(PortRecord.down(5)));
            assertThat(SimulationCommands.apply("link up " + leafText + " 5", sim)).startsWith("ok:");
            eventually("port 5 up", () -> sim.agent(leaf).ports().get(4).isUp());
            assertThat(SimulationCommands.apply("kill " + Guids.format(spine) + " power", sim)).startsWith("ok: killed");
            eventually("the port to the killed spine down", () -> sim.agent(leaf).ports().stream().filter(p -> !p.isUp()).count() == 1);
            assertThat(SimulationCommands.apply("revive " + Guids.format(spine), sim)).startsWith("ok: revived");
            assertThat(SimulationCommands.apply("   ", sim)).isNull();
            assertThat(SimulationCommands.apply("# a comment", sim)).isNull();
            assertThat(SimulationCommands.apply("kill " + leafText, sim)).startsWith("error:").contains("kill GUID power|agent");
            assertThat(SimulationCommands.apply("kill " + leafText + " hard", sim)).contains("mode must be power or agent");
            assertThat(SimulationCommands.apply("link sideways " + leafText + " 5", sim)).startsWith("error:");
            assertThat(SimulationCommands.apply("link down 0x99 5", sim)).startsWith("error:").contains("0x0000000000000099");
            assertThat(SimulationCommands.apply("link down " + leafText + " x", sim)).startsWith("error:");
            assertThat(SimulationCommands.apply("link errors " + leafText + " 5 2000", sim))
                    .isEqualTo("ok: link " + leafText + "/5 errs 2000 a second");
            assertThat(SimulationCommands.apply("link errors " + leafText + " 99 2000", sim)).startsWith("error:")
                    .contains("port 99");
            assertThat(SimulationCommands.apply("link errors " + leafText + " 5 -1", sim)).startsWith("error:");
            assertThat(SimulationCommands.apply("reboot", sim))
                    .isEqualTo("error: unknown command 'reboot' (kill, revive, link down, link up, link errors, mute)");
            assertThat(SimulationCommands.apply("mute " + leafText, sim)).as("no detector members here")
                    .startsWith("error:").contains("no failure-detector members");
            assertThat(SimulationCommands.apply("x".repeat(300), sim)).contains("longer than 256");
        }
    }
}
