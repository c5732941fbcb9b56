package org.fabricmanager.routing.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.junit.jupiter.api.Test;

/** The factory knows dmodc (the default) and dmodk by name. */
class DmodcEnginesRegistrationTest {

    @Test
    void createsDmodcAndDmodkByName() {
        assertThat(RoutingEngines.names()).contains("dmodc", "dmodk");
        assertThat(RoutingEngines.DEFAULT).isEqualTo("dmodc");
        for (String name : new String[] {"dmodc", "dmodk"}) {
            try (RoutingEngine engine = RoutingEngines.create(name, 2)) {
                assertThat(engine.name()).isEqualTo(name);
            }
        }
    }

    @Test
    void rejectsUnknownNamesListingTheKnownOnes() {
        assertThatThrownBy(() -> RoutingEngines.create("ftree", 1)).isInstanceOf(RoutingException.class)
                .hasMessageStartingWith("unknown routing engine 'ftree' (known: dmodc, dmodk");
    }
}
