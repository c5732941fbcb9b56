package org.fabricmanager.daemon.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hours of noisy but healthy port counters on the whole daemon, on a virtual clock, with the policy {@code isolate}:
 * no link is isolated, though the noise was there (errors and drops everywhere, bursts that made links suspect, idle
 * ports with a few errors); and the same run with one uplink erring for real isolates that link and no other.
 */
class CounterNoiseRunTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)");
    static final long SEED = 67;
    static final double HOURS = 6;

    @TempDir
    Path state;

    @Test
    void hoursOfNoisyButHealthyCountersIsolateNothing() {
        CounterNoiseRun.Outcome o;
        try (CounterNoiseRun run = new CounterNoiseRun(new CounterNoiseRun.Plan(SPEC, SEED, HOURS), state)) {
            o = run.run();
            assertThat(run.isolatedNow()).as("links isolated at the end, seed %d", SEED).isZero();
        }
        System.out.printf("%.1f h of fabric time, %d switches, %d reports, %d errors and drops, %d bursts, %d on idle "
                        + "ports, %d LINK_SUSPECT, %d isolations%n", o.hours(), o.switches(), o.reads(), o.errors(),
                o.bursts(), o.idleErrors(), o.suspect(), o.isolations().size());
        assertThat(o.isolations()).as("false isolations, seed %d", SEED).isEmpty();
        assertThat(o.hours()).isGreaterThanOrEqualTo(HOURS);
        assertThat(o.reads()).as("every switch read every 10 s").isGreaterThanOrEqualTo((long) (HOURS * 360)
                * o.switches());
        assertThat(o.errors()).as("errors injected").isGreaterThan(o.reads());
        assertThat(o.bursts()).as("bursts injected").isGreaterThan(10);
        assertThat(o.idleErrors()).as("errors on idle ports").isPositive();
        assertThat(o.suspect()).as("links the bursts made suspect: the noise reached the policy").isPositive();
    }

    @Test
    void theSameRunWithAnUplinkErringForRealIsolatesThatLinkOnly() {
        CounterNoiseRun.Outcome o;
        PortRef planted;
        try (CounterNoiseRun run = new CounterNoiseRun(new CounterNoiseRun.Plan(SPEC, SEED, 1), state)) {
            planted = run.plantErringUplink();
            o = run.run();
            assertThat(run.isolatedNow()).isEqualTo(1);
        }
        assertThat(o.isolations()).hasSize(1);
        assertThat(o.isolations().get(0)).contains(Guids.format(planted.guid()) + ":" + planted.port())
                .contains("rxErrors");
    }
}
