package org.fabricmanager.routing.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.junit.jupiter.api.Test;

/** The factory knows dmodc-home (the default), dmodc and dmodk by name, and answers for each engine what it says of itself. */
class DmodcEnginesRegistrationTest {

    @Test
    void createsDmodcAndDmodkByName() {
        assertThat(RoutingEngines.names()).contains("dmodc-home", "dmodc", "dmodk");
        assertThat(RoutingEngines.DEFAULT).isEqualTo("dmodc-home");
        for (String name : new String[] {"dmodc-home", "dmodc", "dmodk"}) {
            try (RoutingEngine engine = RoutingEngines.create(name, 2)) {
                assertThat(engine.name()).isEqualTo(name);
            }
        }
    }

    @Test
    void engineSaysWhichExpectedShapesItIsMadeFor() {
        for (String name : new String[] {"dmodc", "dmodk", "dmodc-home", "dmodc-plain"}) {
            assertThat(RoutingEngines.ask(name, RoutingEngine::shapes)).as(name).isEqualTo(FabricShapes.PGFT);
        }
        assertThat(RoutingEngines.ask("updn", RoutingEngine::shapes)).isEqualTo(FabricShapes.ANY);
        // what the daemon suggests for an expected 2-D fat tree: dmodc-home is not for the daemon
        assertThat(RoutingEngines.forDaemon(FabricShapes.HDFT)).containsExactly("vtftr");
        assertThat(FabricShapes.PGFT.hdft()).isFalse();
        assertThat(FabricShapes.HDFT.pgft()).isFalse();
        assertThat(FabricShapes.ANY.pgft() && FabricShapes.ANY.hdft()).isTrue();
    }

    @Test
    void rejectsUnknownNamesListingTheKnownOnes() {
        assertThatThrownBy(() -> RoutingEngines.create("ftree", 1)).isInstanceOf(RoutingException.class)
                .hasMessageStartingWith("unknown routing engine 'ftree' (known: dmodc, dmodk");
    }
}
