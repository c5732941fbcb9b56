package org.fabricmanager.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The body of {@code POST /api/v1/drain}: a switch, a cable, force; everything else refused naming what is wrong. */
class DrainRequestTest {
    private static DrainRequest parse(String json) {
        return DrainRequest.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static void refused(String json, String why) {
        assertThatThrownBy(() -> parse(json)).as(json).isInstanceOfSatisfying(DrainException.class, e -> {
            assertThat(e.kind()).isEqualTo(DrainException.Kind.BAD_REQUEST);
            assertThat(e.getMessage()).contains(why);
        });
    }

    @Test
    void aSwitchACableAndForce() {
        assertThat(parse("{\"guid\":\"0x1000000300000005\"}")).isEqualTo(new DrainRequest(0x1000000300000005L, 0, false));
        DrainRequest cable = parse("{\"guid\":\"0x1000000100000000\",\"port\":9,\"force\":true}");
        assertThat(cable).isEqualTo(new DrainRequest(0x1000000100000000L, 9, true));
        assertThat(cable.isSwitch()).isFalse();
        assertThat(parse("{\"guid\":\"0X1F\",\"port\":null}").isSwitch()).isTrue();
    }

    @Test
    void malformedRequestsAreRefusedNamingTheField() {
        refused("{\"guid\":", "not JSON");
        refused("[]", "must be a JSON object");
        refused("{\"port\":3}", "must be a JSON object");
        refused("{\"guid\":42}", "'guid' must be a string");
        refused("{\"guid\":\"0xzz\"}", "bad GUID");
        refused("{\"guid\":\"0x1\",\"port\":0}", "'port' must be an integer");
        refused("{\"guid\":\"0x1\",\"port\":255}", "port must be in [1, 254]");
        refused("{\"guid\":\"0x1\",\"port\":\"9\"}", "'port' must be an integer");
        refused("{\"guid\":\"0x1\",\"force\":\"yes\"}", "'force' must be true or false");
        refused("{\"guid\":\"0x1\",\"switches\":[]}", "unknown field 'switches'");
    }
}
