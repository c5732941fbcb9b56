package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.PortRecord;
import org.junit.jupiter.api.Test;

/** The simulated switch's counters: they only increase within a run, start again at 0 with a run, count up ports only. */
class SimulatedCountersTest {
    private static final int PORTS = 32;

    @Test
    void countersOnlyIncreaseWithinARunAndRestartWithTheNextOne() {
        long seed = 1139L;
        Random random = new Random(seed);
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        AtomicLong incarnation = new AtomicLong(1);
        List<PortRecord> ports = new ArrayList<>();
        for (int p = 1; p <= PORTS; p++) {
            ports.add(p % 5 == 0 ? PortRecord.down(p) : PortRecord.toSwitch(p, 0x2000L + p, 1, "peer"));
        }
        SimulatedCounters counters = new SimulatedCounters(0x1000000100000000L, PORTS, incarnation::get,
                () -> List.copyOf(ports), clock::get);
        long[] before = counters.read(1, PORTS).values();
        assertThat(before).containsOnly(0L);
        for (int step = 0; step < 200; step++) {
            clock.addAndGet(random.nextInt(5_000) * 1_000_000L);
            if (random.nextInt(10) == 0) {
                int p = 1 + random.nextInt(PORTS);
                ports.set(p - 1, ports.get(p - 1).isUp() ? PortRecord.down(p) : PortRecord.toNode(p, 0x3000L + p, "n"));
            }
            long[] now = counters.read(1, PORTS).values();
            for (int i = 0; i < now.length; i++) {
                assertThat(now[i]).as("seed %d, step %d, value %d", seed, step, i).isGreaterThanOrEqualTo(before[i]);
            }
            before = now;
        }
        assertThat(before[PortCounters.FIELDS * 0 + PortCounter.RX_PACKETS.ordinal()]).as("port 1 carried traffic")
                .isPositive();
        incarnation.incrementAndGet();
        clock.addAndGet(1_000_000_000L);
        assertThat(counters.read(1, PORTS).values()).as("a new run starts at 0").containsOnly(0L);
    }

    @Test
    void aDownPortCountsNothingAndARangeIsThatOfTheWholeSwitch() {
        AtomicLong clock = new AtomicLong();
        List<PortRecord> ports = List.of(PortRecord.toNode(1, 0x3001L, "n1"), PortRecord.down(2),
                PortRecord.toSwitch(3, 0x2003L, 4, "s"));
        SimulatedCounters counters = new SimulatedCounters(7, 3, () -> 1, () -> ports, clock::get);
        counters.read(1, 3);
        clock.addAndGet(2_000_000_000L);
        PortCounters all = counters.read(1, 3);
        assertThat(all.get(1, PortCounter.RX_PACKETS)).isEqualTo(2_000L * 2);
        assertThat(all.get(1, PortCounter.TX_BYTES)).isEqualTo(2_000L * 2 * 256);
        assertThat(all.get(2, PortCounter.RX_PACKETS)).isZero();
        assertThat(all.get(3, PortCounter.TX_PACKETS)).isEqualTo(2_000L * 4);
        PortCounters two = counters.read(2, 3);
        assertThat(two.firstPort()).isEqualTo(2);
        assertThat(two.get(3, PortCounter.TX_PACKETS)).isEqualTo(all.get(3, PortCounter.TX_PACKETS));
    }

    @Test
    void aboutOnePortInSixteenCountsErrors() {
        int troubled = 0;
        int total = 0;
        for (long guid = 0x1000000000000000L; guid < 0x1000000000000000L + 64; guid++) {
            SimulatedCounters c = new SimulatedCounters(guid, 64, () -> 1, List::of, () -> 0);
            for (int p = 1; p <= 64; p++) {
                troubled += c.troubled(p) ? 1 : 0;
                total++;
            }
        }
        assertThat(troubled).isBetween(total / 32, total / 8);
    }
}
