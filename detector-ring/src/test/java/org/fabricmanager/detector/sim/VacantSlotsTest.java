package org.fabricmanager.detector.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Test;

/**
 * Ring slots whose process is not there yet (the daemon plans the ring over every switch it expects): members
 * started with those slots dead raise no suspicion and no event about them, the ring closes over them, and a
 * process that comes later joins its slot in the running ring, is announced once to everyone, and is watched like
 * any member.
 */
class VacantSlotsTest {
    private static final long MS = 1_000_000L;
    private static final long ETA = 10 * MS;
    private static final long DELTA = 100 * MS;
    private static final long TAU = 100_000L;
    private static final int N = 64;
    /** Two consecutive slots (the ring closes over both) and one alone. */
    private static final int[] VACANT = {3, 4, 40};
    private static final long SEED = 17;

    private final List<List<DetectorEvent>> events = new ArrayList<>();
    private final Simulation sim;

    VacantSlotsTest() {
        for (int i = 0; i < N; i++) {
            events.add(new ArrayList<>());
        }
        RingParameters p = RingParameters.of(Duration.ofNanos(ETA), Duration.ofNanos(DELTA), Overlay.BMG);
        sim = new Simulation(SimulationConfig.of(N, p, TAU, SEED), new SimpleMeterRegistry(),
                (m, e, t) -> events.get(m).add(e));
    }

    @Test
    void vacantSlotsAreNeverSuspectedAndALateProcessJoinsItsSlotAndIsWatched() {
        // nothing is ever sent to a vacant slot: the daemon gives it a placeholder address no datagram may go to
        boolean[] unfilled = new boolean[N];
        for (int v : VACANT) {
            unfilled[v] = true;
        }
        List<String> sentToVacant = new ArrayList<>();
        sim.dropIf((from, to, message, nanos) -> {
            if (unfilled[to]) {
                sentToVacant.add(from + " -> " + to + ": " + message.getClass().getSimpleName());
            }
            return false;
        });
        sim.startAllBut(VACANT, ETA);
        // far beyond δ and 2δ: a slot's observer that did not know it dead would have declared it by now
        sim.runUntil(30 * DELTA);
        boolean[] vacant = new boolean[N];
        for (int v : VACANT) {
            vacant[v] = true;
        }
        assertThat(FailureExperiment.agreed(sim, vacant, VACANT))
                .as("seed %d: every member runs with D = the vacant slots, neighbours closed over them", SEED).isTrue();
        assertThat(events).as("no verdict, no event about a slot nobody ever heard").allMatch(List::isEmpty);

        assertThat(sentToVacant).as("seed %d: messages to vacant slots", SEED).isEmpty();
        // the process of slot 3 arrives: it joins the running ring above the incarnation its slot is dead at
        unfilled[3] = false;
        // as the daemon's JOIN window tells it: the slots still vacant (its successor, 4, among them)
        sim.restart(3, sim.now(), new int[] {4, 40});
        sim.runUntil(sim.now() + 10 * DELTA);
        int[] stillVacant = {4, 40};
        boolean[] nowVacant = vacant.clone();
        nowVacant[3] = false;
        assertThat(FailureExperiment.agreed(sim, nowVacant, stillVacant))
                .as("seed %d: slot 3 is a running member and everyone agrees", SEED).isTrue();
        assertThat(sim.member(3).incarnation()).isEqualTo(1);
        for (int i = 0; i < N; i++) {
            if (!nowVacant[i] && i != 3) {
                assertThat(events.get(i)).as("member %d hears of the join once, and of nothing else", i)
                        .containsExactly(new DetectorEvent.MemberRejoined(3, 1));
                events.get(i).clear();
            }
        }

        // and it is watched: a crash of the late process is found and broadcast like any other
        sim.crash(3, sim.now());
        sim.runUntil(sim.now() + 10 * DELTA);
        for (int i = 0; i < N; i++) {
            if (!nowVacant[i] && i != 3) {
                assertThat(events.get(i)).as("member %d learns the late process died", i)
                        .containsExactly(new DetectorEvent.MemberFailed(3, 1));
            }
        }
        assertThat(FailureExperiment.agreed(sim, vacant, VACANT)).as("seed %d", SEED).isTrue();
        assertThat(sentToVacant).as("seed %d: messages to the slots that stayed vacant", SEED).isEmpty();
    }
}
