package org.fabricmanager.daemon.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Random;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.junit.jupiter.api.Test;

/**
 * The store's totals only increase, count each report's increase once, take a decrease as a reset, and leave out
 * the increases no port can count.
 */
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

    /** A poll asked at {@code seconds} and answered a millisecond later. */
    static PortCounterStore.Poll at(long seconds) {
        return new PortCounterStore.Poll(seconds * 1_000_000_000L, seconds * 1_000_000_000L + 1_000_000,
                seconds * 1000);
    }

    @Test
    void totalsAreTheSumOfEachSwitchsIncreasesAndADecreaseIsAReset() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PortCounterStore store = new PortCounterStore(meters);
        store.put(1, 100, ports(5, 0), at(0));    // first reports: taken whole, 5 and 2
        store.put(2, 100, ports(1, 1), at(0));
        store.put(1, 100, ports(7, 1), at(10));   // +3
        store.put(2, 101, ports(0, 2), at(20));   // restarted: port 1 went down (+0 from 0), port 2 counted on (+1)
        assertThat(store.total(PortCounter.RX_ERRORS)).isEqualTo(BigInteger.valueOf(5 + 2 + 3 + 1));
        assertThat(store.total(PortCounter.TX_ERRORS)).as("unavailable counts nothing").isZero();
        assertThat(store.total(PortCounter.RX_PACKETS)).isEqualTo(BigInteger.valueOf(11_000));
        assertThat(meters.get("fabric.port.errors").tag("direction", "rx").functionCounter().count()).isEqualTo(11);
        assertThat(meters.get("fabric.switch.port.errors").tag("switch", "0x0000000000000001").counter().count())
                .isEqualTo(8);
        assertThat(meters.get("fabric.switch.port.errors").tag("switch", "0x0000000000000002").counter().count())
                .isEqualTo(3);
        assertThat(store.get(2).incarnation()).isEqualTo(101);
        assertThat(store.get(2).counters().get(2, PortCounter.RX_ERRORS)).isEqualTo(2);
        assertThat(meters.get("fabric.port.implausible").counter().count()).isZero();
    }

    @Test
    void randomReportsNeverMakeATotalGoDown() {
        long seed = 77L;
        Random random = new Random(seed);
        PortCounterStore store = new PortCounterStore(new SimpleMeterRegistry());
        long[] counts = new long[8];
        long[] incarnation = new long[8];
        BigInteger previousTotal = BigInteger.ZERO;
        for (int i = 0; i < 2_000; i++) {
            int sw = random.nextInt(8);
            if (random.nextInt(20) == 0) {
                incarnation[sw]++;
                counts[sw] = 0;
            }
            // now and then a hostile count: near 2^64, or 2^63
            counts[sw] = random.nextInt(50) == 0 ? -2 - random.nextInt(3) : random.nextInt(50) == 0 ? Long.MIN_VALUE
                    : counts[sw] + random.nextInt(3);
            store.put(sw, incarnation[sw], ports(counts[sw]), at(i));
            BigInteger total = store.total(PortCounter.RX_ERRORS);
            assertThat(total).as("seed %d, report %d", seed, i).isGreaterThanOrEqualTo(previousTotal);
            previousTotal = total;
        }
        assertThat(store.size()).isEqualTo(8);
    }

    @Test
    void anIncreaseNoPortCanCountIsFlaggedLeftOutAndStaysFlaggedUntilTheCounterResets() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PortCounterStore store = new PortCounterStore(meters);
        long nearTop = -2; // 2^64 - 2
        store.put(7, 1, ports(0, 0), at(0));
        store.put(7, 1, ports(nearTop, Long.MIN_VALUE), at(10)); // 2^64 - 2 and 2^63 in 10 s
        PortCounterStore.Report r = store.get(7);
        assertThat(r.implausible(1, PortCounter.RX_ERRORS)).isNotNull();
        assertThat(r.implausible(1, PortCounter.RX_ERRORS).reason()).contains("rose by 18446744073709551614 in 10.0 s");
        assertThat(r.implausible(2, PortCounter.RX_ERRORS).increase()).isEqualTo(Long.MIN_VALUE);
        assertThat(r.implausible(1, PortCounter.RX_PACKETS)).as("2^64 - 2000 packets in 10 s").isNotNull();
        assertThat(r.implausible(1, PortCounter.TX_ERRORS)).as("not measured").isNull();
        assertThat(store.total(PortCounter.RX_ERRORS)).as("nothing added").isZero();
        assertThat(meters.get("fabric.switch.port.errors").tag("switch", "0x0000000000000007").counter().count())
                .isZero();
        assertThat(meters.get("fabric.port.implausible").counter().count())
                .as("rx errors of both, rx packets of port 1").isEqualTo(3);

        store.put(7, 1, ports(nearTop, Long.MIN_VALUE + 3), at(20)); // plausible rises of 0 and 3 on bogus values
        r = store.get(7);
        assertThat(r.implausible(1, PortCounter.RX_ERRORS)).as("still holds the jump").isNotNull();
        assertThat(r.implausible(2, PortCounter.RX_ERRORS)).isNotNull();
        assertThat(store.total(PortCounter.RX_ERRORS)).as("the rise after the jump counts").isEqualTo(3);
        assertThat(meters.get("fabric.port.implausible").counter().count()).as("carried, not counted again")
                .isEqualTo(3);

        store.put(7, 1, ports(4, Long.MIN_VALUE + 3), at(30)); // port 1 reset to 4
        r = store.get(7);
        assertThat(r.implausible(1, PortCounter.RX_ERRORS)).as("a reset clears the flag").isNull();
        assertThat(r.implausible(2, PortCounter.RX_ERRORS)).isNotNull();
        assertThat(store.total(PortCounter.RX_ERRORS)).isEqualTo(3 + 4);
        assertThat(meters.get("fabric.port.errors").tag("direction", "rx").functionCounter().count()).isEqualTo(7);
    }

    @Test
    void anIncreaseAPortCanCountIsSummedHoweverLarge() {
        PortCounterStore store = new PortCounterStore(new SimpleMeterRegistry());
        long[] values = new long[PortCounters.FIELDS];
        store.put(3, 1, new PortCounters(1, values), at(0));
        // 10 s at 1.6 Tb/s: 2 TB, and one packet per 64 bytes of it
        values[PortCounter.RX_BYTES.ordinal()] = 2_000_000_000_000L;
        values[PortCounter.RX_PACKETS.ordinal()] = 2_000_000_000_000L / 64;
        store.put(3, 1, new PortCounters(1, values), at(10));
        assertThat(store.get(3).implausible()).isEmpty();
        assertThat(store.total(PortCounter.RX_BYTES)).isEqualTo(BigInteger.valueOf(2_000_000_000_000L));
        // the same rise over a tenth of the time (the poll asked at 10 s answered at 11 s): no port counts that fast
        values[PortCounter.RX_BYTES.ordinal()] *= 10;
        store.put(3, 1, new PortCounters(1, values),
                new PortCounterStore.Poll(10_500_000_000L, 11_000_000_000L, 11_000));
        assertThat(store.get(3).implausible(1, PortCounter.RX_BYTES)).isNotNull();
        assertThat(store.total(PortCounter.RX_BYTES)).isEqualTo(BigInteger.valueOf(2_000_000_000_000L));
    }

    /** Two ports: every counter of port 1 at 3, every counter of port 2 at {@code second}. */
    private static PortCounters twoPorts(long second) {
        long[] values = new long[2 * PortCounters.FIELDS];
        Arrays.fill(values, 0, PortCounters.FIELDS, 3);
        Arrays.fill(values, PortCounters.FIELDS, values.length, second);
        return new PortCounters(1, values);
    }

    @Test
    void aPortMeasuredForTheFirstTimeIsTakenWholeButOneThatWasMeasuredIsJudgedWhenItComesBack() {
        PortCounterStore store = new PortCounterStore(new SimpleMeterRegistry());
        long bigSinceReset = 1L << 50; // what OpenSM's performance manager's first reading of a busy port may carry
        store.put(5, 1, twoPorts(PortCounters.UNAVAILABLE), at(0)); // port 2 not read yet
        store.put(5, 1, twoPorts(bigSinceReset), at(10));
        assertThat(store.get(5).implausible()).as("a first measurement has nothing to be judged by").isEmpty();
        assertThat(store.total(PortCounter.RX_ERRORS)).isEqualTo(BigInteger.valueOf(3 + bigSinceReset));
        store.put(5, 1, twoPorts(PortCounters.UNAVAILABLE), at(20)); // gone (an interface removed)...
        store.put(5, 1, twoPorts(bigSinceReset), at(30)); // ...and back with 2^50 ten seconds later
        assertThat(store.get(5).implausible(2, PortCounter.RX_ERRORS)).as("measured before: judged from 0")
                .isNotNull();
        assertThat(store.total(PortCounter.RX_ERRORS)).isEqualTo(BigInteger.valueOf(3 + bigSinceReset));
    }

    @Test
    void firstReportsNearTwoToThe64AddUpExactly() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PortCounterStore store = new PortCounterStore(meters);
        long[] nearTop = new long[8];
        Arrays.fill(nearTop, -2);
        for (int sw = 0; sw < 3; sw++) {
            store.put(sw, 1, ports(nearTop), at(0));
        }
        BigInteger expected = BigInteger.TWO.pow(64).subtract(BigInteger.TWO).multiply(BigInteger.valueOf(24));
        assertThat(store.total(PortCounter.RX_ERRORS)).isEqualTo(expected);
        assertThat(meters.get("fabric.port.errors").tag("direction", "rx").functionCounter().count())
                .isEqualTo(expected.doubleValue()).isPositive();
    }

    @Test
    void reportsOfMoreSwitchesThanTheBoundAreDropped() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PortCounterStore store = new PortCounterStore(meters);
        for (int g = 0; g < PortCounterStore.MAX_SWITCHES + 10; g++) {
            store.put(g, 1, ports(1), at(0));
        }
        assertThat(store.size()).isEqualTo(PortCounterStore.MAX_SWITCHES);
        assertThat(meters.get("fabric.port.reports.dropped").counter().count()).isEqualTo(10);
        store.put(0, 1, ports(2), at(1));
        assertThat(store.get(0).counters().get(1, PortCounter.RX_ERRORS)).as("a known switch still reports").isEqualTo(2);
    }
}
