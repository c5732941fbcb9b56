package org.fabricmanager.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The body of {@code POST /api/v1/drain}: a switch, a cable, force; everything else refused naming what is wrong,
 * strictly: a field named twice, a GUID with anything beside {@code 0x} and its hex digits, bytes after the object.
 */
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
        assertThat(parse("{\"guid\":\"0x1F\",\"port\":null}").isSwitch()).isTrue();
        assertThat(parse("{\"guid\":\"0xFFFFFFFFFFFFFFFF\"}").guid()).isEqualTo(-1L);
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

    @Test
    void aFieldNamedTwiceIsRefusedWhicheverComesLast() {
        refused("{\"guid\":\"0x1000000100000000\",\"guid\":\"0x1000000300000005\"}",
                "the body names a field twice: Duplicate field 'guid'");
        refused("{\"guid\":\"0x1\",\"port\":3,\"port\":4}", "Duplicate field 'port'");
        refused("{\"guid\":\"0x1\",\"force\":false,\"force\":true}", "Duplicate field 'force'");
    }

    @Test
    void aGuidIsZeroXAndOneToSixteenHexDigitsAndNothingElse() {
        refused("{\"guid\":\"0x1000000100000000\\u0000\"}", "bad GUID '0x1000000100000000\\u0000'");
        for (String guid : new String[] {" 0x1", "0x1 ", "0x1\\n", "\\t0x1", "0X1F", "1000000100000000", "0x",
                "0x10000001000000000", "+0x1", "0x-1", "0x1_0", "0x\uff11", "x1", "0x1h", "42", ""}) {
            refused("{\"guid\":\"" + guid + "\"}", "expected 0x followed by 1 to 16 hex digits");
        }
    }

    @Test
    void nothingMayFollowTheObject() {
        refused("{\"guid\":\"0x1\"} {\"guid\":\"0x2\"}", "not JSON");
        refused("{\"guid\":\"0x1\"}x", "not JSON");
        assertThat(parse(" {\"guid\":\"0x1\"}\n").guid()).as("white space around it is fine").isEqualTo(1);
    }
}
