package org.fabricmanager.daemon.counters;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.util.Arrays;
import org.fabricmanager.daemon.api.PortCountersView;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.rest.RestJson;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /api/v1/switches/{guid}/ports} as JSON: counts near 2^64 are exact unsigned numbers, totals are exact
 * (never negative, never wrapped), and a value flagged implausible says why and is left out of the totals.
 */
class PortCounterViewsTest {
    private static final long GUID = 0x1000000100000000L;
    private static final BigInteger NEAR_TOP = BigInteger.TWO.pow(64).subtract(BigInteger.TWO);

    private final PortCounterStore store = new PortCounterStore(new SimpleMeterRegistry());
    private final PortCounterViews views = new PortCounterViews(new SwitchRegistry(), store, () -> 25_000);

    /** Eight ports whose every counter is {@code value}. */
    private static PortCounters eightPorts(long value) {
        long[] values = new long[8 * PortCounters.FIELDS];
        Arrays.fill(values, value);
        return new PortCounters(1, values);
    }

    private JsonNode json() throws Exception {
        PortCountersView view = views.view(GUID);
        return new ObjectMapper().readTree(RestJson.bytes(view));
    }

    @Test
    void countsNearTwoToThe64OnEightPortsSumExactly() throws Exception {
        store.put(GUID, 1, eightPorts(-2), PortCounterStoreTest.at(0)); // a first report: nothing to judge it by
        JsonNode json = json();
        for (PortCounter c : PortCounter.ALL) {
            assertThat(json.path("totals").path(c.jsonName()).bigIntegerValue()).as(c.jsonName())
                    .isEqualTo(NEAR_TOP.multiply(BigInteger.valueOf(8)));
        }
        assertThat(json.path("totals").path("rxBytes").toString()).isEqualTo("147573952589676412912");
        assertThat(json.path("ports")).hasSize(8).allSatisfy(p -> {
            assertThat(p.path("rxBytes").isIntegralNumber()).as("a JSON integer, not null: %s", p).isTrue();
            assertThat(p.path("rxBytes").toString()).isEqualTo("18446744073709551614");
            assertThat(p.has("implausible")).isFalse();
        });
    }

    @Test
    void twoToThe63OnEightPortsSumsExactly() throws Exception {
        store.put(GUID, 1, eightPorts(Long.MIN_VALUE), PortCounterStoreTest.at(0));
        assertThat(json().path("totals").path("txDrops").bigIntegerValue())
                .isEqualTo(BigInteger.TWO.pow(66));
        assertThat(json().path("ports").get(0).path("txDrops").toString()).isEqualTo("9223372036854775808");
    }

    @Test
    void aValueNoPortCanCountIsShownFlaggedWithItsReasonAndLeftOutOfTheTotals() throws Exception {
        store.put(GUID, 1, eightPorts(1_000), PortCounterStoreTest.at(0));
        long[] next = eightPorts(2_000).values();
        next[(3 - 1) * PortCounters.FIELDS + PortCounter.RX_BYTES.ordinal()] = -2; // port 3: 2^64 - 2 bytes in 10 s
        next[(5 - 1) * PortCounters.FIELDS + PortCounter.TX_ERRORS.ordinal()] = PortCounters.UNAVAILABLE;
        store.put(GUID, 1, new PortCounters(1, next), PortCounterStoreTest.at(10));
        JsonNode json = json();
        JsonNode port3 = json.path("ports").get(2);
        assertThat(port3.path("rxBytes").toString()).isEqualTo("18446744073709551614");
        assertThat(port3.path("implausible").path("rxBytes").asText())
                .contains("rose by 18446744073709550614 in 10.0 s").contains("left out of the totals");
        assertThat(port3.path("implausible").size()).isEqualTo(1);
        assertThat(json.path("ports").get(0).has("implausible")).isFalse();
        assertThat(json.path("ports").get(4).path("txErrors").isNull()).as("not measured").isTrue();
        assertThat(json.path("totals").path("rxBytes").longValue()).as("seven ports of 2,000").isEqualTo(14_000);
        assertThat(json.path("totals").path("txErrors").longValue()).isEqualTo(14_000);
        assertThat(json.path("totals").path("txBytes").longValue()).isEqualTo(16_000);
    }
}
