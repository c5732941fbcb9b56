package org.fabricmanager.daemon.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.Test;

class LinkHealthModelTest {
    private static final long S = 1_000_000_000L;
    private static final PortRef A = new PortRef(0x10, 3);
    private static final PortRef B = new PortRef(0x20, 1);
    private static final Link LINK = new Link(A.guid(), A.port(), B.guid(), B.port());

    private final LinkHealthSection config = LinkHealthSection.defaults();
    private final LinkHealthModel model = new LinkHealthModel(config);
    /** Each end's running counters. */
    private final long[] a = new long[PortCounters.FIELDS];
    private final long[] b = new long[PortCounters.FIELDS];
    private long now = 100 * S;

    /** Both ends carry {@code pps} packets a second each way for 10 s; end A counts {@code rxErrors} more. */
    private LinkJudgement tenSeconds(long pps, long rxErrors) {
        now += 10 * S;
        for (long[] end : new long[][]{a, b}) {
            end[PortCounter.RX_PACKETS.ordinal()] += pps * 10;
            end[PortCounter.TX_PACKETS.ordinal()] += pps * 10;
        }
        a[PortCounter.RX_ERRORS.ordinal()] += rxErrors;
        model.record(A, now, a, 0);
        model.record(B, now, b, 0);
        return model.judge(LINK, now);
    }

    @Test
    void anIdlePortWithAFewErrorsStaysHealthy() {
        tenSeconds(0, 0);
        for (int i = 0; i < 20; i++) {
            LinkJudgement j = tenSeconds(2, i % 3 == 0 ? 1 : 0);
            assertThat(j.level()).as("window %d: %s", i, j.figures().describe()).isEqualTo(LinkLevel.HEALTHY);
        }
        assertThat(model.last(LINK).figures().loaded()).isFalse();
    }

    @Test
    void errorsUnderLoadMakeALinkSuspectThenBadThenHealthyOnceTheyStop() {
        tenSeconds(4_000, 0);
        assertThat(tenSeconds(4_000, 2).level()).isEqualTo(LinkLevel.HEALTHY); // 2 in 240,000 packets: 8 ppm
        LinkJudgement first = tenSeconds(4_000, 400);
        assertThat(first.raw()).isEqualTo(LinkLevel.BAD);
        assertThat(first.level()).as("one bad window is suspect only").isEqualTo(LinkLevel.SUSPECT);
        LinkJudgement second = tenSeconds(4_000, 400);
        assertThat(second.level()).isEqualTo(LinkLevel.BAD);
        assertThat(second.figures().counter()).isEqualTo("rxErrors");
        assertThat(second.figures().at()).isEqualTo(A);
        assertThat(second.figures().loaded()).isTrue();
        assertThat(second.figures().ppm()).isGreaterThan(config.badPpm().rxErrors());
        int clean = 0;
        LinkJudgement j;
        do {
            j = tenSeconds(4_000, 0);
            clean++;
        } while (j.level() != LinkLevel.HEALTHY && clean < 50);
        // the window (60 s) must first forget the errors, then healthyAfter clean windows in a row
        assertThat(clean).isEqualTo(6 + config.healthyAfter() - 1);
    }

    @Test
    void theSameErrorsIdleAndUnderLoadAreJudgedApart() {
        tenSeconds(0, 0);
        LinkJudgement idle = tenSeconds(10, 3);
        assertThat(idle.figures().loaded()).isFalse();
        assertThat(idle.raw()).isEqualTo(LinkLevel.HEALTHY); // 3 against the load rate's 10,000 packets: 300 ppm
        LinkHealthModel other = new LinkHealthModel(config);
        other.record(A, S, new long[PortCounters.FIELDS], 0);
        long[] v = new long[PortCounters.FIELDS];
        v[PortCounter.RX_PACKETS.ordinal()] = 1_000; // 100 a second, below the load rate
        v[PortCounter.RX_ERRORS.ordinal()] = 300;
        other.record(A, 11 * S, v, 0);
        assertThat(other.judge(LINK, 11 * S).raw()).isEqualTo(LinkLevel.BAD); // 300 in 10,000: 30,000 ppm
    }

    @Test
    void flappingWindowsNeverMakeALinkBad() {
        LinkHealthModel m = new LinkHealthModel(config.withTimings(10_000, 0, 60_000));
        long[] v = new long[PortCounters.FIELDS];
        m.record(A, S, v, 0);
        int bad = 0;
        for (int i = 1; i <= 12; i++) {
            v[PortCounter.RX_PACKETS.ordinal()] += 40_000;
            v[PortCounter.RX_ERRORS.ordinal()] += i % 2 == 0 ? 300 : 0; // bad, clean, bad...: never two in a row
            m.record(A, (1 + 10L * i) * S, v, 0);
            LinkJudgement j = m.judge(LINK, (1 + 10L * i) * S);
            bad += j.raw() == LinkLevel.BAD ? 1 : 0;
            assertThat(j.level()).as("window %d", i).isEqualTo(i % 2 == 0 ? LinkLevel.SUSPECT
                    : i == 1 ? LinkLevel.HEALTHY : LinkLevel.SUSPECT);
        }
        assertThat(bad).as("the windows that were bad alone").isEqualTo(6);
    }

    @Test
    void aCounterThatGoesDownWrapsOrSaturatesGivesNoRate() {
        // a reset: the error counter goes from 1,000,000 to 500 (an agent restarted); nothing is counted
        LinkHealthModel m = new LinkHealthModel(config);
        long[] v = new long[PortCounters.FIELDS];
        v[PortCounter.RX_PACKETS.ordinal()] = 0;
        v[PortCounter.RX_ERRORS.ordinal()] = 1_000_000;
        m.record(A, S, v, 0);
        long[] reset = v.clone();
        reset[PortCounter.RX_ERRORS.ordinal()] = 500;
        reset[PortCounter.RX_PACKETS.ordinal()] = 50_000;
        m.record(A, 11 * S, reset, 0);
        assertThat(m.judge(LINK, 11 * S).figures().errors()).as("a reset").isZero();
        // a 64-bit wrap: near 2^64, then small: the same as a reset
        long[] high = reset.clone();
        high[PortCounter.RX_ERRORS.ordinal()] = -10L;
        m.record(A, 21 * S, high, 0);
        long[] wrapped = high.clone();
        wrapped[PortCounter.RX_ERRORS.ordinal()] = 200;
        m.record(A, 31 * S, wrapped, 0);
        // all ones at 32 bits (OpenSM's saturated counter), then at 64 (not measured), then a value again
        long t = 32;
        for (long sentinel : new long[]{0xFFFF_FFFFL, PortCounters.UNAVAILABLE, 0xFFFFL, 0xFFL, 240}) {
            long[] s = wrapped.clone();
            s[PortCounter.RX_ERRORS.ordinal()] = sentinel;
            m.record(A, (sentinel == 240 ? 41 : t++) * S, s, 0);
        }
        LinkJudgement j = m.judge(LINK, 41 * S);
        assertThat(j.figures().errors()).as(j.figures().describe()).isZero();
        assertThat(j.raw()).isEqualTo(LinkLevel.HEALTHY);
    }

    @Test
    void aRiseNoPortCouldCountIsNoRate() {
        LinkHealthModel m = new LinkHealthModel(config);
        long[] v = new long[PortCounters.FIELDS];
        m.record(A, S, v, 0);
        v[PortCounter.RX_ERRORS.ordinal()] = 1L << 62;
        v[PortCounter.RX_PACKETS.ordinal()] = 100_000;
        m.record(A, 11 * S, v, 0);
        assertThat(m.judge(LINK, 11 * S).figures().errors()).isZero();
        v[PortCounter.RX_ERRORS.ordinal()] += 5_000;
        m.record(A, 21 * S, v, 0);
        assertThat(m.judge(LINK, 21 * S).figures().errors()).as("counted again from the jump's value").isEqualTo(5_000);
    }

    @Test
    void eitherEndsErrorsCountAndForgettingDropsTheLink() {
        tenSeconds(4_000, 0);
        now += 10 * S;
        b[PortCounter.TX_DROPS.ordinal()] += 10_000;
        b[PortCounter.TX_PACKETS.ordinal()] += 40_000;
        model.record(B, now, b, 0);
        LinkJudgement j = model.judge(new Link(B.guid(), B.port(), A.guid(), A.port()), now);
        assertThat(j.figures().counter()).isEqualTo("txDrops");
        assertThat(j.figures().at()).isEqualTo(B);
        assertThat(model.last(LINK)).isSameAs(j);
        model.forget(LINK);
        assertThat(model.last(LINK)).isNull();
        assertThat(model.size()).isZero();
    }
}
