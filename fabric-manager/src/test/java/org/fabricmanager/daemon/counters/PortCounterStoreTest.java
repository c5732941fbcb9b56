package org.fabricmanager.daemon.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Random;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.junit.jupiter.api.Test;

/** The store's totals only increase, count each report's increase once, and start again with a restarted agent. */
class PortCounterStoreTest {

    private static PortCounters ports(long... perPortRxErrors) {
        long[] values = new long[perPortRxErrors.length * PortCounters.FIELDS];
        for (int p = 0; p < perPortRxErrors.length; p++) {
            values[p * PortCounters.FIELDS + PortCounter.RX_PACKETS.ordinal()] = perPortRxErrors[p] * 1000;
            values[p * PortCounters.FIELDS + PortCounter.RX_ERRORS.ordinal()] = perPortRxErrors[p];
            values[p * PortCounters.FIELDS + PortCounter.TX_ERRORS.ordinal()] = PortCounters.UNAVAILABLE;
        }
        return new PortCounters(1, values);
    }

    @Test
    void totalsAreTheSumOfEachSwitchsIncreasesAcrossRestarts() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PortCounterStore store = new PortCounterStore(meters);
        store.put(1, 100, ports(5, 0), 0);
        store.put(2, 100, ports(1, 1), 0);
        store.put(1, 100, ports(7, 1), 10);   // +3
        store.put(2, 101, ports(0, 2), 20);   // restarted: its whole count, +2
        assertThat(store.total(PortCounter.RX_ERRORS)).isEqualTo(5 + 2 + 3 + 2);
        assertThat(store.total(PortCounter.TX_ERRORS)).as("unavailable counts nothing").isZero();
        assertThat(store.total(PortCounter.RX_PACKETS)).isEqualTo(12_000);
        assertThat(meters.get("fabric.port.errors").tag("direction", "rx").functionCounter().count()).isEqualTo(12);
        assertThat(meters.get("fabric.switch.port.errors").tag("switch", "0x0000000000000001").counter().count())
                .isEqualTo(8);
        assertThat(meters.get("fabric.switch.port.errors").tag("switch", "0x0000000000000002").counter().count())
                .isEqualTo(4);
        assertThat(store.get(2).incarnation()).isEqualTo(101);
        assertThat(store.get(2).counters().get(2, PortCounter.RX_ERRORS)).isEqualTo(2);
    }

    @Test
    void randomReportsNeverMakeATotalGoDown() {
        long seed = 77L;
        Random random = new Random(seed);
        PortCounterStore store = new PortCounterStore(new SimpleMeterRegistry());
        long[] counts = new long[8];
        long[] incarnation = new long[8];
        long previousTotal = 0;
        for (int i = 0; i < 2_000; i++) {
            int sw = random.nextInt(8);
            if (random.nextInt(20) == 0) {
                incarnation[sw]++;
                counts[sw] = 0;
            }
            counts[sw] += random.nextInt(3);
            store.put(sw, incarnation[sw], ports(counts[sw]), i);
            long total = store.total(PortCounter.RX_ERRORS);
            assertThat(total).as("seed %d, report %d", seed, i).isGreaterThanOrEqualTo(previousTotal);
            previousTotal = total;
        }
        assertThat(store.size()).isEqualTo(8);
    }

    @Test
    void reportsOfMoreSwitchesThanTheBoundAreDropped() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PortCounterStore store = new PortCounterStore(meters);
        for (int g = 0; g < PortCounterStore.MAX_SWITCHES + 10; g++) {
            store.put(g, 1, ports(1), 0);
        }
        assertThat(store.size()).isEqualTo(PortCounterStore.MAX_SWITCHES);
        assertThat(meters.get("fabric.port.reports.dropped").counter().count()).isEqualTo(10);
        store.put(0, 1, ports(2), 1);
        assertThat(store.get(0).counters().get(1, PortCounter.RX_ERRORS)).as("a known switch still reports").isEqualTo(2);
    }
}
