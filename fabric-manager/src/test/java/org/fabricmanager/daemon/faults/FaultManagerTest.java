package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.push.PushRound;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.southbound.PortRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FaultManagerTest {
    private static final int THRESHOLD = 3;
    private static final int WINDOW_MS = 10_000;
    private static final int QUARANTINE_MS = 2_000;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final SwitchRegistry registry = new SwitchRegistry();
    private final MilestoneLog milestones = new MilestoneLog();
    private final DaemonMetrics metrics = new DaemonMetrics(new SimpleMeterRegistry());
    private final RecordingFaultActions recorded = new RecordingFaultActions();
    private final List<String> actions = recorded.actions;
    private final DaemonConfig.Faults settings = new DaemonConfig.Faults(50, THRESHOLD, WINDOW_MS, QUARANTINE_MS,
            DaemonConfig.defaults().faults().detector().withEnabled(false));
    private final FaultManager faults = new FaultManager(settings, 1,
            FaultFixtures.onLoop(loop, registry, milestones, metrics, recorded), null);

    @AfterEach
    void close() {
        faults.close();
        metrics.close();
    }

    private ManagedSwitch connected(long guid) {
        FakeSession s = FakeSession.of(guid, "s" + guid, 4, 1);
        ManagedSwitch ms = registry.register(s, s.hello(), 0);
        registry.admit(ms);
        ms.ports().update(PortRecord.toSwitch(2, 99, 1, "peer"));
        return ms;
    }

    @Test
    void aPortThatFlapsTooOftenIsKeptDownUntilItStaysUpForTheQuarantineTime() {
        ManagedSwitch ms = connected(5);
        for (int i = 0; i < THRESHOLD; i++) {
            assertThat(faults.portTransition(ms, 2, false)).isTrue();
            assertThat(faults.portTransition(ms, 2, true)).isTrue();
        }
        assertThat(faults.portTransition(ms, 2, false)).as("one down too many: quarantined, the down counts").isTrue();
        assertThat(milestones.since(0)).extracting(Milestone::kind).containsExactly(Milestone.Kind.LINK_QUARANTINED);
        assertThat(faults.portTransition(ms, 2, true)).as("masked while quarantined").isFalse();
        SwitchPorts seen = faults.masked(ms.ports());
        assertThat(seen).isNotSameAs(ms.ports());
        assertThat(seen.port(2).isUp()).as("routing sees it down").isFalse();
        assertThat(ms.ports().port(2).isUp()).as("the report itself is kept").isTrue();
        loop.advance(QUARANTINE_MS - 1);
        assertThat(actions).isEmpty();
        // another down restarts the hysteresis: the release timer of the earlier up must not lift it
        assertThat(faults.portTransition(ms, 2, false)).isFalse();
        loop.advance(10 * QUARANTINE_MS);
        assertThat(actions).isEmpty();
        assertThat(faults.portTransition(ms, 2, true)).isFalse();
        loop.advance(QUARANTINE_MS);
        assertThat(actions).containsExactly("changed");
        assertThat(milestones.since(0)).extracting(Milestone::kind).endsWith(Milestone.Kind.LINK_RELEASED);
        assertThat(faults.masked(ms.ports())).as("no copy once released").isSameAs(ms.ports());
        assertThat(faults.reactions().pendingEvents()).as("the release is a fault event").isEqualTo(1);
    }

    @Test
    void downsSpreadOverMoreThanTheWindowAreNotFlapping() {
        ManagedSwitch ms = connected(6);
        for (int i = 0; i < 3 * THRESHOLD; i++) {
            assertThat(faults.portTransition(ms, 2, false)).isTrue();
            assertThat(faults.portTransition(ms, 2, true)).isTrue();
            loop.advance(WINDOW_MS / THRESHOLD + 1);
        }
        assertThat(milestones.since(0)).isEmpty();
    }

    @Test
    void burstsOfEventsAreOneReactionWithItsOwnFigures() {
        ReactionTracker r = faults.reactions();
        r.event("port-status: s1 port 3 down");
        r.event("port-status: s7 port 1 down");
        r.computed(12.5);
        PushRound round = new PushRound(2, 0, 1_000_000, 10, 900, 3, 3, 0, 0, 0);
        r.pushStarted(null, round);
        assertThat(r.isOpen()).isTrue();
        assertThat(r.pendingEvents()).isEqualTo(2);
        r.converged(new PushRound(2, 0, 5_000_000, 12, 1_000, 3, 3, 0, 0, 0), 2);
        assertThat(r.isOpen()).isFalse();
        assertThat(r.completed()).isEqualTo(1);
        Milestone m = milestones.since(0).get(0);
        assertThat(m.kind()).isEqualTo(Milestone.Kind.REACTION);
        assertThat(m.details()).containsEntry("triggerCount", 2).containsEntry("computations", 1)
                .containsEntry("tableVersion", 2L); // the pushes' figures: ReactionFiguresTest

        // events that need no new tables close without figures, and do not leak into the next reaction
        r.event("ring: switch 0x9 rejoined");
        r.noTablesNeeded();
        assertThat(r.isOpen()).isFalse();
        r.event("port-status: s2 port 1 down");
        r.converged(null, 3);
        Milestone second = milestones.since(m.seq()).get(0);
        assertThat(second.details()).containsEntry("triggerCount", 1)
                .containsEntry("triggers", List.of("port-status: s2 port 1 down"));
        assertThat(r.completed()).isEqualTo(2);
    }

    @Test
    void aVerdictOnASwitchWhoseSessionIsGoneOpensNoReactionAndTheNextFaultHasItsOwnFigures() {
        ReactionTracker r = faults.reactions();
        faults.verdicts().memberFailed(0x77, 5, 1); // powered off: its session closed before the ring spoke
        assertThat(r.isOpen()).as("nothing left to react to").isFalse();
        assertThat(faults.failedSwitches()).containsKey(0x77L);
        loop.advance(7_734); // the case: the next, unrelated fault 7.7 s later converges in 75 ms
        r.event("port-status: s2 port 1 down");
        loop.advance(75);
        r.converged(new PushRound(5, 0, 1, 3, 300, 2, 2, 0, 0, 0), 5);
        Milestone m = milestones.since(0).stream().filter(x -> x.kind() == Milestone.Kind.REACTION).findFirst()
                .orElseThrow();
        assertThat(m.details()).containsEntry("triggerCount", 1)
                .containsEntry("triggers", List.of("port-status: s2 port 1 down"));
        assertThat((Double) m.details().get("faultToConvergedMs")).as("from its own fault, not 7.8 s earlier")
                .isEqualTo(75.0);
        assertThat(metrics.registry().get(DaemonMetrics.FAULTS_CONVERGED).timer()
                .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).as("the Prometheus histogram too").isEqualTo(75.0);

        // a verdict while a reaction is open joins it as a trigger
        r.event("switch s9 disconnected");
        faults.verdicts().memberFailed(0x99, 6, 1);
        assertThat(r.pendingEvents()).isEqualTo(2);
    }

    @Test
    void anOperatorRerouteIsItsOwnKindAndNeverAFaultFigure() {
        ReactionTracker r = faults.reactions();
        r.operator("operator: forced re-route");
        r.converged(new PushRound(2, 0, 1, 0, 0, 0, 0, 0, 0, 0), 2);
        assertThat(milestones.since(0)).extracting(Milestone::kind).containsExactly(Milestone.Kind.REROUTE);
        assertThat(milestones.since(0).get(0).details()).containsKey("requestToConvergedMs")
                .doesNotContainKey("faultToConvergedMs");
        assertThat(metrics.registry().get(DaemonMetrics.FAULTS_CONVERGED).timer().count()).isZero();
        assertThat(metrics.registry().get(DaemonMetrics.REROUTES_CONVERGED).timer().count()).isEqualTo(1);

        // a fault during an operator's re-route: the reaction is the fault's, timed from the fault
        r.operator("operator: forced re-route");
        r.event("port-status: s3 port 2 down");
        r.converged(null, 3);
        assertThat(milestones.since(0)).extracting(Milestone::kind).containsExactly(Milestone.Kind.REROUTE,
                Milestone.Kind.REACTION);
        assertThat(milestones.since(0).get(1).details()).containsEntry("triggers", List.of("port-status: s3 port 2 down"));
        assertThat(metrics.registry().get(DaemonMetrics.FAULTS_CONVERGED).timer().count()).isEqualTo(1);
    }
}
