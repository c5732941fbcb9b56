package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The daemon's second opinion on a ring verdict (Lifeguard): a switch whose session answers an echo sent after the
 * verdict is not routed around; one that stays silent until the deadline, or whose session closes, is; a member
 * that rejoins the ring meanwhile refutes the verdict by itself. The echo's deadline is the session's; here the test
 * answers or expires the probe, and the waits run on the loop's virtual clock.
 */
class SecondOpinionTest {
    static final String SPEC = "PGFT(2;4,4;1,4;1,1)"; // 8 switches
    static final int SECOND_OPINION_MS = 250;

    final ManualControlLoop loop = new ManualControlLoop();
    final SwitchRegistry registry = new SwitchRegistry();
    final DaemonMetrics metrics = new DaemonMetrics(new SimpleMeterRegistry());
    final MilestoneLog milestones = new MilestoneLog();
    final Map<Long, FakeSession> sessions = new HashMap<>();
    final RecordingFaultActions recorded = new RecordingFaultActions();
    Fabric fabric;
    FaultManager faults;

    void plan(int secondOpinionMs) throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        DaemonConfig.Faults settings = new DaemonConfig.Faults(50, 3, 10_000, 2_000,
                new DaemonConfig.Detector(true, 100, 500, "bmg", "127.0.0.1", port, 7684, 30_000, secondOpinionMs));
        faults = new FaultManager(settings, 1, FaultFixtures.onLoop(loop, registry, milestones, metrics, recorded), null);
        faults.tablesConverged(); // as after the daemon's first convergence: planRing plans at once
        fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        int i = 0;
        for (FabricSwitch s : fabric.switches()) {
            FakeSession session = FakeSession.of(s.guid(), "s" + i, 8, 1, Protocol.FEATURE_DETECTOR_WINDOW);
            sessions.put(s.guid(), session);
            ManagedSwitch ms = registry.register(session, session.hello(), 0);
            registry.admit(ms);
            ms.detectorEndpoint(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 9, 0, (byte) i++}), 7684));
        }
        faults.planRing(fabric);
        sessions.values().forEach(s -> s.detectorFrames.clear());
    }

    @AfterEach
    void close() {
        if (faults != null) {
            faults.close();
        }
        metrics.close();
    }

    int indexOf(long guid) {
        for (int i = 0; i < faults.ring().size(); i++) {
            if (faults.ring().guid(i) == guid) {
                return i;
            }
        }
        throw new AssertionError("no member " + guid);
    }

    double verdicts(String outcome) {
        return metrics.registry().get(SecondOpinion.VERDICTS).tag("outcome", outcome).counter().count();
    }

    @Test
    void aVerdictOnASwitchThatAnswersItsEchoIsRefutedAndNothingIsRoutedAround() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(3).guid();
        FakeSession session = sessions.get(guid);

        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        assertThat(session.probes).as("one echo, with the configured deadline").singleElement()
                .extracting(FakeSession.Probe::timeoutMs).isEqualTo((long) SECOND_OPINION_MS);
        assertThat(faults.failedSwitches()).as("nothing decided before the answer").isEmpty();

        assertThat(recorded.actions).as("the routing without it is prepared during the wait")
                .containsExactly("prepare " + Guids.format(guid));
        session.probes.get(0).answer();
        loop.runPending();
        assertThat(faults.failedSwitches()).isEmpty();
        assertThat(recorded.dropped()).as("its session is kept").isEmpty();
        assertThat(recorded.actions).as("and dropped when the verdict is refuted")
                .containsExactly("prepare " + Guids.format(guid), "refuted " + Guids.format(guid));
        assertThat(faults.reactions().isOpen()).as("no fault reaction, no re-route").isFalse();
        assertThat(milestones.since(0)).extracting(Milestone::kind).doesNotContain(Milestone.Kind.SWITCH_FAILED);
        assertThat(verdicts("refuted")).isEqualTo(1.0);
        assertThat(verdicts("confirmed")).isZero();
        assertThat(session.detectorFrames).as("its member is told to rejoin, in the same epoch").singleElement()
                .isInstanceOfSatisfying(Message.DetectorWindow.class, w -> {
                    assertThat(w.startMode()).isEqualTo(Message.StartMode.JOIN);
                    assertThat(w.epoch()).isEqualTo(faults.ring().epoch());
                });
    }

    @Test
    void aVerdictOnASwitchThatStaysSilentIsActedOnWhenTheEchoGoesUnanswered() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(5).guid();

        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        sessions.get(guid).probes.get(0).expire(); // a stopped agent: TCP open, nothing answers
        loop.runPending();
        assertThat(faults.failedSwitches()).containsOnlyKeys(guid);
        assertThat(recorded.dropped()).containsExactly("s5");
        assertThat(recorded.actions).as("prepared during the wait, then the session dropped: the prepared routing is "
                + "the one installed").containsExactly("prepare " + Guids.format(guid), "drop s5");
        assertThat(faults.reactions().isOpen()).isTrue();
        assertThat(milestones.since(0)).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_FAILED).singleElement()
                .extracting(Milestone::message).asString().contains("declared dead by the ring")
                .contains("did not answer an echo within " + SECOND_OPINION_MS + " ms");
        assertThat(milestones.since(0)).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_FAILED).singleElement()
                .extracting(Milestone::details).satisfies(d -> assertThat(d)
                        .containsEntry("routedAround", true).containsEntry("echoWaitMs", SECOND_OPINION_MS)
                        .containsEntry("echoBeforeVerdict", false)
                        .containsEntry("incarnation", 0L));
        assertThat(verdicts("confirmed")).isEqualTo(1.0);
        assertThat(verdicts("refuted")).isZero();
    }

    @Test
    void noRoutingIsPreparedWhileTheRingHasJustAccusedALiveSwitch() throws Exception {
        plan(SECOND_OPINION_MS);
        long live = fabric.switches().get(3).guid();
        faults.verdicts().memberFailed(live, indexOf(live), 0);
        sessions.get(live).probes.get(0).answer();
        loop.runPending();
        recorded.actions.clear();

        // 29 s later: verdicts of a ring that just accused a live switch are likely false, no computation for them
        loop.advance(29_000);
        long other = fabric.switches().get(5).guid();
        faults.verdicts().memberFailed(other, indexOf(other), 0);
        assertThat(recorded.actions).as("not prepared").isEmpty();
        sessions.get(other).probes.get(0).expire();
        loop.runPending();
        assertThat(recorded.dropped()).as("acted on all the same").containsExactly("s5");

        // 30 s after the refutation: the ring is trusted again
        loop.advance(1_000);
        long third = fabric.switches().get(6).guid();
        faults.verdicts().memberFailed(third, indexOf(third), 0);
        assertThat(recorded.actions).last().isEqualTo("prepare " + Guids.format(third));
    }

    /**
     * The 5,120-switch benchmark's stopped spine (issue 17): its session reached the southbound idle timeout before the
     * ring's verdict reached the daemon, so the switch had left the fabric, and its reaction had converged, when the
     * verdict came. The verdict opens no reaction of its own and must say so: the harness took it for the start of
     * the reaction and waited 120 s for a REACTION after it.
     */
    @Test
    void aVerdictAfterTheSessionClosedSaysTheSwitchHadAlreadyLeftAndOpensNoReaction() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(7).guid();
        registry.remove(sessions.get(guid)); // the idle timeout closed its session; the daemon reacted to that

        faults.verdicts().memberFailed(guid, indexOf(guid), 4);
        loop.runPending();
        assertThat(sessions.get(guid).probes).as("no session to ask").isEmpty();
        assertThat(faults.failedSwitches()).containsOnlyKeys(guid);
        assertThat(recorded.dropped()).as("nothing left to drop").isEmpty();
        assertThat(faults.reactions().isOpen()).as("no reaction of its own").isFalse();
        Milestone failed = milestones.since(0).stream().filter(m -> m.kind() == Milestone.Kind.SWITCH_FAILED)
                .findFirst().orElseThrow();
        assertThat(failed.message()).contains("declared dead by the ring at incarnation 4")
                .contains("its session had already closed").doesNotContain("routing around it");
        assertThat(failed.details()).containsEntry("routedAround", false).doesNotContainKey("echoWaitMs");
        assertThat(verdicts("confirmed")).isEqualTo(1.0);
    }

    /** The same race the other way round: the idle timeout closes the session while the echo is under way. */
    @Test
    void aSessionThatClosesWhileItsEchoIsUnderWayLeavesTheVerdictNothingToRouteAround() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(0).guid();
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        registry.remove(sessions.get(guid));
        sessions.get(guid).probes.get(0).future().completeExceptionally(
                new org.fabricmanager.southbound.RequestFailedException("session closed", false));
        loop.runPending();
        assertThat(recorded.dropped()).isEmpty();
        assertThat(faults.reactions().isOpen()).isFalse();
        assertThat(milestones.since(0)).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_FAILED).singleElement()
                .extracting(Milestone::details).satisfies(d -> assertThat(d).containsEntry("routedAround", false));
    }

    @Test
    void verdictsRepeatedWhileTheEchoIsUnderWayAskOnceAndActOnce() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(2).guid();
        // the same failure broadcast by two sources, or a verdict at the next incarnation, before the answer
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        faults.verdicts().memberFailed(guid, indexOf(guid), 1);
        assertThat(sessions.get(guid).probes).hasSize(1);
        sessions.get(guid).probes.get(0).expire();
        loop.runPending();
        assertThat(recorded.dropped()).containsExactly("s2");
        assertThat(verdicts("confirmed")).isEqualTo(1.0);
    }

    @Test
    void aMemberThatRejoinsTheRingBeforeTheEchoDecidesHasRefutedTheVerdict() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(6).guid();
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberRejoined(indexOf(guid), 1));
        assertThat(verdicts("refuted")).isEqualTo(1.0);

        sessions.get(guid).probes.get(0).expire(); // its echo was lost behind a burst of table blocks: too late now
        loop.runPending();
        assertThat(faults.failedSwitches()).isEmpty();
        assertThat(recorded.dropped()).isEmpty();
        assertThat(verdicts("confirmed")).as("the late answer is not counted again").isZero();
    }

    @Test
    void aVerdictOfAnEarlierEpochIsNotActedOnWhenItsEchoTimesOutAfterANewPlan() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(1).guid();
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        // a switch added to the fabric makes a new epoch: earlier verdicts are about members that no longer exist
        faults.close();
        faults.planRing(fabric);
        sessions.get(guid).probes.get(0).expire();
        loop.runPending();
        assertThat(faults.failedSwitches()).isEmpty();
        assertThat(recorded.dropped()).isEmpty();
    }

    @Test
    void withSecondOpinionsOffTheVerdictIsActedOnAtOnce() throws Exception {
        plan(0);
        long guid = fabric.switches().get(4).guid();
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        assertThat(sessions.get(guid).probes).isEmpty();
        assertThat(faults.failedSwitches()).containsOnlyKeys(guid);
        assertThat(recorded.dropped()).containsExactly("s4");
        assertThat(verdicts("confirmed")).isEqualTo(1.0);
    }

    @Test
    void theWaitAfterAVerdictIsTheConfiguredOneWhateverTheSessionsLastRoundTrip() throws Exception {
        plan(SECOND_OPINION_MS);
        long[] rtts = {-1, 400_000, 40_000_000, 2_000_000_000L};
        for (int i = 0; i < rtts.length; i++) {
            long guid = fabric.switches().get(i).guid();
            sessions.get(guid).rttNanos = rtts[i];
            faults.verdicts().memberFailed(guid, indexOf(guid), 0);
            assertThat(sessions.get(guid).probes).as("round trip %d ns: a starved agent's last keepalive says nothing "
                    + "of when it runs again", rtts[i]).singleElement()
                    .extracting(FakeSession.Probe::timeoutMs).isEqualTo((long) SECOND_OPINION_MS);
        }
    }

    // ---- the second opinion started when the ring begins suspecting (the witness's notice, δ/2 before a verdict)

    // until a late observer's verdict can have come: δ/2 + 3δ after the notice, δ/2 of lag (δ of plan()), plus the
    // wait after it
    static final long EARLY_OPEN_MS = 4 * 500 + SECOND_OPINION_MS;

    double suspicions(String outcome) {
        return metrics.registry().get(EarlyEchoes.NOTICES).tag("outcome", outcome).counter().count();
    }

    @Test
    void aSuspectThatStaysSilentIsRoutedAroundTheWholeWaitAfterTheVerdict() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(5).guid();
        FakeSession session = sessions.get(guid);
        session.rttNanos = 400_000; // a quick agent on a quiet network until it stopped

        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        assertThat(session.probes).as("an echo at once, open until the verdict can have come and waited")
                .singleElement().extracting(FakeSession.Probe::timeoutMs).isEqualTo(EARLY_OPEN_MS);
        loop.advance(SECOND_OPINION_MS - 1);
        assertThat(recorded.actions).as("nothing before the wait is over").isEmpty();
        loop.advance(1);
        assertThat(recorded.actions).as("silent for the wait: the routing without it starts")
                .containsExactly("prepare " + Guids.format(guid));
        assertThat(suspicions("silent")).isEqualTo(1.0);

        loop.advance(200);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        assertThat(session.probes).as("no second echo").hasSize(1);
        loop.advance(SECOND_OPINION_MS - 1);
        assertThat(recorded.dropped()).as("silent since the notice is silent as long as the ring says, no more: the "
                + "verdict gets the whole wait after it").isEmpty();
        assertThat(faults.failedSwitches()).isEmpty();
        loop.advance(1);
        assertThat(recorded.dropped()).as("acted on the wait after the verdict").containsExactly("s5");
        assertThat(faults.failedSwitches()).containsOnlyKeys(guid);
        assertThat(verdicts("confirmed")).isEqualTo(1.0);
        assertThat(recorded.actions).as("prepared once, during the early echo's wait")
                .containsExactly("prepare " + Guids.format(guid), "drop s5");
        assertThat(milestones.since(0)).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_FAILED).singleElement()
                .satisfies(m -> {
                    assertThat(m.message()).contains("has not answered an echo sent 700 ms ago, when the ring began "
                            + "suspecting it");
                    assertThat(m.details()).containsEntry("echoWaitMs", 700).containsEntry("routedAround", true)
                            .containsEntry("echoBeforeVerdict", true);
                });

        session.probes.get(0).future().completeExceptionally(
                new org.fabricmanager.southbound.RequestFailedException("session closed", false));
        loop.runPending();
        assertThat(recorded.actions).as("the prepared routing is not dropped when the dropped session's echo fails")
                .containsExactly("prepare " + Guids.format(guid), "drop s5");
    }

    @Test
    void aStarvedAgentThatAnswersWithinTheWaitAfterTheVerdictIsNotRoutedAround() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(6).guid();
        FakeSession session = sessions.get(guid);
        session.rttNanos = 400_000; // quick until its host starved it: its last keepalive was answered in 0.4 ms

        // starved from half a δ before the notice: silent on the ring and on its session alike
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(250);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        loop.advance(SECOND_OPINION_MS - 1);
        assertThat(recorded.dropped()).as("still starved %d ms after the verdict, the early echo unanswered for %d ms",
                SECOND_OPINION_MS - 1, 250 + SECOND_OPINION_MS - 1).isEmpty();

        session.probes.get(0).answer(); // it runs again, a δ and a wait after it stopped
        loop.runPending();
        assertThat(session.probes).as("the answer to an echo sent before the verdict asks again").hasSize(2);
        session.probes.get(1).answer();
        loop.runPending();
        loop.advance(10 * SECOND_OPINION_MS);
        assertThat(recorded.dropped()).as("alive but slow: its session kept").isEmpty();
        assertThat(faults.failedSwitches()).isEmpty();
        assertThat(milestones.since(0)).extracting(Milestone::kind).doesNotContain(Milestone.Kind.SWITCH_FAILED);
        assertThat(verdicts("refuted")).isEqualTo(1.0);
        assertThat(verdicts("confirmed")).isZero();
        assertThat(recorded.actions).containsExactly("prepare " + Guids.format(guid), "refuted " + Guids.format(guid));
    }

    @Test
    void aSuspectThatAnswersGetsTheUsualCheckIfAVerdictStillComes() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(3).guid();
        FakeSession session = sessions.get(guid);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        session.probes.get(0).answer();
        loop.advance(SECOND_OPINION_MS);
        assertThat(recorded.actions).as("an agent that answered: nothing prepared").isEmpty();
        assertThat(suspicions("answered")).isEqualTo(1.0);

        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        assertThat(session.probes).as("the verdict asks again").hasSize(2);
        assertThat(recorded.dropped()).isEmpty();
        session.probes.get(1).answer();
        loop.runPending();
        assertThat(verdicts("refuted")).isEqualTo(1.0);
        assertThat(faults.failedSwitches()).isEmpty();
    }

    @Test
    void aVerdictSoonAfterTheNoticeWaitsTheWholeWaitAfterIt() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(2).guid();
        FakeSession session = sessions.get(guid);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(SECOND_OPINION_MS - 50);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        assertThat(session.probes).as("no second echo").hasSize(1);
        assertThat(recorded.actions).as("the routing without it starts at the verdict")
                .containsExactly("prepare " + Guids.format(guid));
        loop.advance(SECOND_OPINION_MS - 1);
        assertThat(recorded.dropped()).isEmpty();
        loop.advance(1);
        assertThat(recorded.dropped()).as("the early echo unanswered for the whole wait after the verdict")
                .containsExactly("s2");
        assertThat(recorded.actions).as("prepared once").containsExactly("prepare " + Guids.format(guid), "drop s2");
        assertThat(verdicts("confirmed")).isEqualTo(1.0);
        assertThat(milestones.since(0)).filteredOn(m -> m.kind() == Milestone.Kind.SWITCH_FAILED).singleElement()
                .extracting(Milestone::message).asString().contains("an echo sent " + (2 * SECOND_OPINION_MS - 50)
                        + " ms ago");
    }

    @Test
    void anAgentThatReconnectsWhileAVerdictWaitsOnTheEarlyEchoKeepsItsNewSession() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(2).guid();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(100);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        // its agent restarted: the old session is gone, a new one holds the switch
        registry.remove(sessions.get(guid));
        FakeSession restarted = FakeSession.of(guid, "s2", 8, 2, Protocol.FEATURE_DETECTOR_WINDOW);
        ManagedSwitch ms = registry.register(restarted, restarted.hello(), 0);
        registry.admit(ms);
        loop.advance(SECOND_OPINION_MS);
        assertThat(recorded.dropped()).as("the new session is not dropped for the old one's silence").isEmpty();
        assertThat(faults.failedSwitches()).isEmpty();
        assertThat(recorded.actions).containsExactly("prepare " + Guids.format(guid), "refuted " + Guids.format(guid));
    }

    @Test
    void anEarlyEchoAnsweredWhileAVerdictWaitsOnItGivesTheVerdictTheUsualEcho() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(2).guid();
        FakeSession session = sessions.get(guid);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(100);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        session.probes.get(0).answer(); // sent before the verdict: proves nothing about the time after it
        loop.runPending();
        assertThat(session.probes).as("an echo sent after the verdict").hasSize(2)
                .last().extracting(FakeSession.Probe::timeoutMs).isEqualTo((long) SECOND_OPINION_MS);
        loop.advance(SECOND_OPINION_MS);
        assertThat(recorded.dropped()).as("the early echo's wait decides nothing now").isEmpty();
        session.probes.get(1).answer();
        loop.runPending();
        assertThat(verdicts("refuted")).isEqualTo(1.0);
        assertThat(verdicts("confirmed")).isZero();
        assertThat(recorded.actions).containsExactly("prepare " + Guids.format(guid), "refuted " + Guids.format(guid));
    }

    @Test
    void aMemberThatRejoinsWhileAVerdictWaitsOnTheEarlyEchoHasRefutedIt() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(2).guid();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(100);
        faults.verdicts().memberFailed(guid, indexOf(guid), 0);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberRejoined(indexOf(guid), 1));
        loop.advance(1_000);
        assertThat(verdicts("refuted")).isEqualTo(1.0);
        assertThat(verdicts("confirmed")).isZero();
        assertThat(recorded.dropped()).isEmpty();
        assertThat(faults.failedSwitches()).isEmpty();
    }

    @Test
    void aVerdictAboutAnotherIncarnationThanTheNoticeHasItsOwnEcho() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(2).guid();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(SECOND_OPINION_MS + 100);
        faults.verdicts().memberFailed(guid, indexOf(guid), 1);
        assertThat(recorded.dropped()).isEmpty();
        assertThat(sessions.get(guid).probes).hasSize(2);
    }

    @Test
    void aLateAnswerOrAFadingSuspicionDropsTheRoutingPreparedForIt() throws Exception {
        plan(SECOND_OPINION_MS);
        long late = fabric.switches().get(4).guid();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(late), 0, indexOf(late) + 1));
        loop.advance(SECOND_OPINION_MS);
        sessions.get(late).probes.get(0).answer(); // a busy agent, 300 ms late
        loop.runPending();
        assertThat(recorded.actions).containsExactly("prepare " + Guids.format(late), "refuted " + Guids.format(late));

        recorded.actions.clear();
        long fading = fabric.switches().get(6).guid();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(fading), 0, indexOf(fading) + 1));
        loop.advance(SECOND_OPINION_MS);
        sessions.get(fading).probes.get(0).expire(); // no verdict came while the echo was open
        loop.runPending();
        assertThat(recorded.actions).containsExactly("prepare " + Guids.format(fading), "refuted " + Guids.format(fading));
        faults.verdicts().memberFailed(fading, indexOf(fading), 0);
        assertThat(sessions.get(fading).probes).as("a verdict after that has its own echo").hasSize(2);
    }

    @Test
    void aSuspectThatRefutesInTheRingDropsTheRoutingPreparedForIt() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(1).guid();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(SECOND_OPINION_MS);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberRejoined(indexOf(guid), 1));
        assertThat(recorded.actions).containsExactly("prepare " + Guids.format(guid), "refuted " + Guids.format(guid));
    }

    @Test
    void repeatedNoticesSendOneEchoAndNoticesAreIgnoredWhereTheyCannotHelp() throws Exception {
        plan(SECOND_OPINION_MS);
        long guid = fabric.switches().get(0).guid();
        for (int i = 0; i < 100; i++) {
            faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        }
        assertThat(sessions.get(guid).probes).hasSize(1);
        sessions.get(guid).probes.get(0).answer();
        loop.runPending();
        loop.advance(100);
        for (int i = 0; i < 100; i++) {
            faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        }
        assertThat(sessions.get(guid).probes).as("answered, but within half a δ (250 ms) of the last").hasSize(1);
        loop.advance(150);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        assertThat(sessions.get(guid).probes).as("a new silence").hasSize(2);
        sessions.get(guid).probes.get(1).answer();
        loop.runPending();
        recorded.actions.clear();

        long checked = fabric.switches().get(7).guid();
        faults.verdicts().memberFailed(checked, indexOf(checked), 0);
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(checked), 0, 0));
        assertThat(sessions.get(checked).probes).as("a verdict's check under way decides").hasSize(1);

        long gone = fabric.switches().get(6).guid();
        registry.remove(sessions.get(gone));
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(gone), 0, 0));
        assertThat(sessions.get(gone).probes).as("no session to ask").isEmpty();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(0, 0, 1));
        assertThat(recorded.actions).as("nothing about the daemon's own member").containsExactly(
                "prepare " + Guids.format(checked));
    }

    @Test
    void withSecondOpinionsOffNoticesAreIgnored() throws Exception {
        plan(0);
        long guid = fabric.switches().get(4).guid();
        faults.verdicts().onDetectorEvent(new DetectorEvent.MemberSuspected(indexOf(guid), 0, indexOf(guid) + 1));
        loop.advance(1_000);
        assertThat(sessions.get(guid).probes).isEmpty();
        assertThat(recorded.actions).isEmpty();
    }
}
