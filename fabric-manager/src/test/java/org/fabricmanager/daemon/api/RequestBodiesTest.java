package org.fabricmanager.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The strict reading the admin bodies share: the what-if body refuses what the drain body refuses (a field named
 * twice, a GUID with anything beside {@code 0x} and its digits), and error messages show control characters.
 */
class RequestBodiesTest {
    private static void whatIfRefused(String json, String why) {
        assertThatThrownBy(() -> WhatIfRequest.parse(json.getBytes(StandardCharsets.UTF_8))).as(json)
                .isInstanceOfSatisfying(WhatIfException.class, e -> {
                    assertThat(e.kind()).isEqualTo(WhatIfException.Kind.BAD_REQUEST);
                    assertThat(e.getMessage()).contains(why);
                });
    }

    @Test
    void aWhatIfBodyIsReadAsStrictlyAsADrainBody() {
        assertThat(WhatIfRequest.parse("{\"switches\":[\"0x1F\"],\"links\":[{\"guid\":\"0x2\",\"port\":3}]}"
                .getBytes(StandardCharsets.UTF_8)).switches()).containsExactly(0x1fL);
        whatIfRefused("{\"switches\":[\"0x1\"],\"switches\":[\"0x2\"]}", "Duplicate field 'switches'");
        whatIfRefused("{\"links\":[{\"guid\":\"0x2\",\"port\":3,\"port\":4}]}", "Duplicate field 'port'");
        whatIfRefused("{\"switches\":[\"0x1\\u0000\"]}", "'switches': bad GUID '0x1\\u0000'");
        whatIfRefused("{\"links\":[{\"guid\":\" 0x2\",\"port\":3}]}", "'links': bad GUID ' 0x2'");
        whatIfRefused("{\"switches\":[\"0x1\"]}]", "not JSON");
    }

    @Test
    void guidsTakeZeroXAndOneToSixteenHexDigitsOfEitherCase() {
        assertThat(RequestBodies.guid("0x0002C90300a1B2c3", IllegalArgumentException::new))
                .isEqualTo(0x0002c90300a1b2c3L);
        assertThat(RequestBodies.guid("0x0", IllegalArgumentException::new)).isZero();
        assertThatThrownBy(() -> RequestBodies.guid("0x1\r\nX: y", IllegalArgumentException::new))
                .hasMessage("bad GUID '0x1\\u000d\\u000aX: y': expected 0x followed by 1 to 16 hex digits");
        assertThatThrownBy(() -> RequestBodies.guid(null, IllegalArgumentException::new))
                .hasMessageContaining("'null'");
    }

    @Test
    void longValuesAreCutInMessages() {
        assertThat(RequestBodies.abbreviated("g".repeat(1_000))).hasSize(67).endsWith("...");
    }
}
