package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.daemon.api.Milestone;
import org.junit.jupiter.api.Test;

class OpenSmEventsTest {
    private record Recorded(Milestone.Kind kind, String message, Map<String, Object> details) {
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final List<Recorded> recorded = new ArrayList<>();
    private final OpenSmEvents events = new OpenSmEvents(registry,
            (kind, message, details) -> recorded.add(new Recorded(kind, message, details)), clock::get);

    private double count(String type) {
        return registry.get("fabric.opensm.events").tag("type", type).counter().count();
    }

    @Test
    void trapsSweepsBlocksAndSubnetUpBecomeMilestonesAndCounts() {
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_TRAP, 3, 128));
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_HEAVY_SWEEP_START, 3, 0));
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_HEAVY_SWEEP_DONE, 3, 0));
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_LFT_CHANGE, 4, 250L << 32 | 1_234));
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_SUBNET_UP, 4, 0));
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_SUBNET_UP, 0, 0));
        events.accept(new OpenSmWire.Event(99, 4, 0));

        assertThat(recorded).extracting(Recorded::kind).containsOnly(Milestone.Kind.OPENSM_EVENT);
        assertThat(recorded).extracting(Recorded::message).containsExactly("OpenSM: trap 128 received",
                "OpenSM: heavy sweep done", "OpenSM: 1234 LFT blocks set on the switches in 250 ms",
                "OpenSM: subnet up with this daemon's tables of subnet 4",
                "OpenSM: subnet up (its last routing was not this daemon's)");
        assertThat(recorded.get(0).details()).containsEntry("event", "TRAP").containsEntry("trap", 128L)
                .containsEntry("subnet", 3L);
        assertThat(recorded.get(2).details()).containsEntry("blocks", 1_234L).containsEntry("uploadMs", 250L);
        assertThat(count("trap")).isEqualTo(1);
        assertThat(count("heavy_sweep_start")).isEqualTo(1);
        assertThat(count("subnet_up")).isEqualTo(2);
        assertThat(count("other")).as("an unknown id adds no tag of its own").isEqualTo(1);
        assertThat(registry.get("fabric.opensm.lft.blocks").counter().count()).isEqualTo(1_234);
    }

    @Test
    void aStormOfTrapsIsCountedButRecordedAtTheRateLimit() {
        for (int i = 0; i < 1_000; i++) {
            events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_TRAP, 0, 128));
        }
        assertThat(count("trap")).isEqualTo(1_000);
        assertThat(recorded).hasSize(OpenSmEvents.BURST);
        assertThat(registry.get("fabric.opensm.events.unrecorded").counter().count()).isEqualTo(1_000 - OpenSmEvents.BURST);

        clock.addAndGet(OpenSmEvents.REFILL_MS);
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_TRAP, 0, 129));
        assertThat(recorded).hasSize(OpenSmEvents.BURST + 1);
        assertThat(recorded.get(OpenSmEvents.BURST).message())
                .isEqualTo("OpenSM: trap 129 received (980 OpenSM events before it not recorded: rate limit)");
        assertThat(recorded.get(OpenSmEvents.BURST).details()).containsEntry("unrecordedBefore", 980L);
        events.accept(new OpenSmWire.Event(OpenSmWire.EVENT_TRAP, 0, 130));
        assertThat(recorded).as("one per refill period once the burst is spent").hasSize(OpenSmEvents.BURST + 1);
    }
}
