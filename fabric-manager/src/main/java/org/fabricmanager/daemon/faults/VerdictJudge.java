package org.fabricmanager.daemon.faults;

import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Judges what the daemon's ring member reports before the daemon acts on it. A suspicion gets an early echo to the
 * suspect's session ({@link EarlyEchoes}); a verdict is confirmed by that echo when it has gone unanswered for the
 * whole wait after the verdict, else gets a second opinion, an echo sent after the verdict ({@link SecondOpinion}), or
 * is confirmed at once when there is no session to ask or second opinions are off. A refuted verdict re-routes nothing and sends the
 * switch its window again; a confirmed one goes to {@link FailedSwitches}. A rejoin ends what is under way for the
 * switch. Runs on the control thread.
 */
final class VerdictJudge {
    private static final Logger LOG = LoggerFactory.getLogger(VerdictJudge.class);

    private final DaemonConfig.Detector settings;
    private final long daemonId;
    /** The ring, or {@code null} when the detector is disabled. */
    private final RingCoordinator ring;
    private final FaultDependencies deps;
    private final DetectorConfigurator configurator;
    private final FailedSwitches failed;
    /** Ring verdicts waiting for the accused switch's session to answer (Lifeguard's second opinion). */
    private final SecondOpinion opinions;
    /** Echoes sent when the ring began suspecting a switch, before any verdict. */
    private final EarlyEchoes earlyEchoes;
    /** Whether the daemon is stopping: from then on, lost sessions are its own doing (FaultManager#stopping). */
    private final BooleanSupplier stopping;

    VerdictJudge(DaemonConfig.Detector settings, long daemonId, RingCoordinator ring, FaultDependencies deps,
                 DetectorConfigurator configurator, FailedSwitches failed, BooleanSupplier stopping) {
        this.stopping = stopping;
        this.settings = settings;
        this.daemonId = daemonId;
        this.ring = ring;
        this.deps = deps;
        this.configurator = configurator;
        this.failed = failed;
        this.opinions = new SecondOpinion(deps.metrics().registry(), deps.nanoTime());
        this.earlyEchoes = new EarlyEchoes(deps.metrics().registry(), deps.nanoTime());
    }

    /** A new ring epoch: the verdicts and suspicions under way, and who was declared dead, mean nothing now. */
    void newEpoch() {
        failed.clear();
        opinions.clear();
        earlyEchoes.clear();
    }

    /** A verdict or rejoin from the daemon's member (control thread; package-private for tests). */
    void onDetectorEvent(DetectorEvent event) {
        if (ring == null || !ring.active() || stopping.getAsBoolean()) {
            return;
        }
        if (event instanceof DetectorEvent.MemberFailed f) {
            memberFailed(ring.guid(f.member()), f.member(), f.incarnation());
        } else if (event instanceof DetectorEvent.MemberSuspected s) {
            memberSuspected(ring.guid(s.member()), s.member(), s.incarnation());
        } else if (event instanceof DetectorEvent.MemberRejoined r) {
            memberRejoined(r);
        } else if (event instanceof DetectorEvent.LinkDown d) {
            // the reporter's own PORT_STATUS is ordered with its later changes, a broadcast is not (a late
            // LinkDown would undo a newer up); a reporter without a session is out of the fabric anyway
            LOG.debug("ring: link down at {} port {}", Guids.format(ring.guid(d.reporter())), d.port());
        } else if (event instanceof DetectorEvent.LinkUp u) {
            LOG.debug("ring: link up at {} port {} (applied when its PORT_STATUS arrives)",
                    Guids.format(ring.guid(u.reporter())), u.port());
        }
    }

    /** A member the ring hears again at a higher incarnation: what was under way for it ends, it recovers if dead. */
    private void memberRejoined(DetectorEvent.MemberRejoined r) {
        long guid = ring.guid(r.member());
        ring.rejoined(r.member(), r.incarnation());
        EarlyEchoes.Echo early = earlyEchoes.get(guid);
        if (early != null && r.incarnation() > early.incarnation && earlyEchoes.end(early) && early.prepared) {
            deps.actions().preparationRefuted(guid); // it refuted the suspicion: no verdict on that incarnation will come
        }
        SecondOpinion.Check check = opinions.pendingFor(guid);
        if (check != null && r.incarnation() > check.incarnation()
                && opinions.decide(check, SecondOpinion.Outcome.REFUTED)) {
            // the ring itself hears the member again (it learnt of the verdict and rejoined) before the echo
            // decided: the best evidence there is that it lives
            refuted(check, "its member rejoined the ring at incarnation " + r.incarnation());
        }
        failed.rejoined(guid, r.member(), r.incarnation());
    }

    /**
     * A ring member began suspecting switch {@code guid} (member {@code member}) at {@code incarnation}: half a δ before
     * any verdict, its session is asked for a sign of life ({@link EarlyEchoes}). Package-private for tests.
     */
    void memberSuspected(long guid, int member, long incarnation) {
        int boundMs = settings.secondOpinionMs();
        if (guid == daemonId || member == Protocol.DAEMON_RING_MEMBER || boundMs == 0 || ring.unwatched(guid)
                || opinions.pendingFor(guid) != null) {
            return;
        }
        ManagedSwitch ms = deps.registry().get(guid);
        if (ms == null || !ms.admitted() || incarnation <= ms.replacedRingIncarnation()) {
            return;
        }
        EarlyEchoes.Echo echo = earlyEchoes.begin(guid, incarnation, ms.session(), settings.deltaMs() / 2);
        if (echo == null) {
            return; // one under way already, or one began less than half a δ ago
        }
        // the echo stays open until the verdict can have come and been delivered, and the verdict's wait after it: the
        // verdict is due half a δ after the notice, up to MAX_HEALTH_SCORE δ later from an observer that finds itself
        // late (Lifeguard's local health: a loaded host), plus half a δ for that observer's timer lag and the verdict's
        // way through the ring. Closed sooner, a late observer's verdict found no early echo and waited for an echo of
        // its own. An answer at any time up to then proves the agent lives
        long openMs = (RingParameters.MAX_HEALTH_SCORE + 1L) * settings.deltaMs() + boundMs;
        ms.session().probe(openMs).whenComplete((rttNanos, failure) -> deps.queue().append("early echo answer "
                + Guids.format(guid), () -> earlyEchoEnded(echo, failure == null ? rttNanos : -1)));
        deps.queue().scheduleDeferred("early echo wait " + Guids.format(guid), boundMs, () -> earlyEchoWaited(echo));
        LOG.debug("ring: switch {} ({}) suspected at incarnation {}; its agent is asked for a sign of life",
                Guids.format(guid), ms.name(), incarnation);
    }

    /**
     * The early echo went unanswered for the second opinion's wait: without a verdict yet, the routing without the
     * switch may start (a verdict that came meanwhile started it already, and its own wait decides).
     */
    private void earlyEchoWaited(EarlyEchoes.Echo echo) {
        if (stopping.getAsBoolean() || !earlyEchoes.current(echo)) {
            return;
        }
        earlyEchoes.silent(echo);
        if (echo.check == null && opinions.worthPreparing()) {
            echo.prepared = true;
            deps.actions().prepareWithout(echo.guid);
        }
    }

    /**
     * A verdict that waits on the early echo ({@code check}) has waited the second opinion's time since it came, and
     * the echo is still unanswered: confirmed.
     */
    private void earlyVerdictWaited(EarlyEchoes.Echo echo, SecondOpinion.Check check) {
        if (stopping.getAsBoolean() || !earlyEchoes.current(echo) || echo.check != check) {
            return; // answered (the verdict got an echo of its own), ended by a rejoin, or dropped by a new epoch
        }
        earlyEchoes.end(echo);
        if (!opinions.decide(check, SecondOpinion.Outcome.CONFIRMED)) {
            return;
        }
        ManagedSwitch ms = deps.registry().get(echo.guid);
        if (ms == null) {
            failed.routeAround(echo.guid, echo.incarnation, null, null, (int) earlyEchoes.ageMs(echo), true);
        } else if (ms.session() != echo.session) {
            reconnectedMeanwhile(ms);
        } else {
            confirmedEarly(echo, ms);
        }
    }

    /** A verdict confirmed by the early echo: routed around, its milestone saying on what evidence. */
    private void confirmedEarly(EarlyEchoes.Echo echo, ManagedSwitch ms) {
        long ageMs = earlyEchoes.ageMs(echo);
        failed.routeAround(echo.guid, echo.incarnation, ms, "its agent has not answered an echo sent " + ageMs
                + " ms ago, when the ring began suspecting it", (int) Math.min(Integer.MAX_VALUE, ageMs), true);
    }

    /** The early echo was answered ({@code rttNanos} ≥ 0), timed out or failed with its session (-1). */
    private void earlyEchoEnded(EarlyEchoes.Echo echo, long rttNanos) {
        if (stopping.getAsBoolean()) {
            return;
        }
        boolean answered = rttNanos >= 0;
        if (answered ? !earlyEchoes.answered(echo) : !earlyEchoes.end(echo)) {
            return; // a verdict took it, a new epoch dropped it, or it was decided already
        }
        if (echo.check != null) {
            // a verdict waits on it: an answer to an echo sent before the verdict does not show that the agent ran
            // after the ring stopped hearing it, so the verdict gets the usual echo, sent now
            if (opinions.pendingFor(echo.guid) == echo.check) {
                askAfterVerdict(echo.check, settings.secondOpinionMs());
            }
            return;
        }
        ManagedSwitch ms = deps.registry().get(echo.guid);
        if (echo.prepared && (answered || (ms != null && ms.session() == echo.session))) {
            // it answered, or its session lives on and no verdict came (the suspicion ended some other way): the
            // routing prepared for it is not wanted. (A closed session's loss is routed by its own path, which uses it.)
            deps.actions().preparationRefuted(echo.guid);
        }
        if (answered) {
            LOG.debug("ring: suspected switch {} answered an echo in {} ms", Guids.format(echo.guid), rttNanos / 1e6);
        }
    }

    /** The ring declared switch {@code guid} (member {@code member}) dead at {@code incarnation}. */
    void memberFailed(long guid, int member, long incarnation) {
        if (guid == daemonId || member == Protocol.DAEMON_RING_MEMBER) {
            return;
        }
        if (ring != null && ring.unwatched(guid)) {
            LOG.debug("ring: switch {} declared dead, but it runs no ring member: ignored", Guids.format(guid));
            return;
        }
        ManagedSwitch ms = deps.registry().get(guid);
        if (ms != null && incarnation <= ms.replacedRingIncarnation()) {
            // the agent restarted faster than the ring noticed: the verdict is about its previous run
            LOG.info("ring: the previous run of switch {} ({}, ring incarnation {}) declared dead; its restarted "
                    + "agent is connected and joins the ring", Guids.format(guid), ms.name(), incarnation);
            return;
        }
        int boundMs = settings.secondOpinionMs();
        EarlyEchoes.Echo early = earlyEchoes.get(guid);
        if (early != null && early.check != null) {
            LOG.debug("ring: switch {} declared dead again at incarnation {} while its early echo decides",
                    Guids.format(guid), incarnation);
            return;
        }
        if (early != null && ms != null && ms.admitted() && EarlyEchoes.matches(early, ms.session(), incarnation)) {
            judgeByEarlyEcho(early, ms, member, incarnation);
            return;
        }
        if (early != null) {
            earlyEchoes.end(early); // about another session or incarnation: the verdict gets its own echo
        }
        if (ms == null || !ms.admitted() || boundMs == 0) {
            // no session to ask (it is gone, and the switch with it), or second opinions are off
            opinions.count(SecondOpinion.Outcome.CONFIRMED);
            failed.routeAround(guid, incarnation, ms, ms != null && ms.admitted() ? "its session still looks alive"
                    : null, -1, false);
            return;
        }
        // one observer's word is not enough (it may be the one that is late): the switch's own session is asked for
        // a sign of life sent after the verdict. A silent death (a stopped agent keeps TCP open) answers nothing
        // and is acted on after the wait; a live switch answers within a round trip, a starved one once it runs again
        SecondOpinion.Check check = new SecondOpinion.Check(guid, member, incarnation, ms.session());
        if (!opinions.begin(check)) {
            LOG.debug("ring: switch {} declared dead again at incarnation {} while a second opinion is under way",
                    Guids.format(guid), incarnation);
            return;
        }
        // on a quiet ring the verdicts that reach this point are real deaths: the routing without the switch is computed
        // during the wait and installed if the verdict is confirmed, dropped if it is refuted. Not on a ring that has
        // just accused a live switch: its verdicts are likely false, and a computation for each adds to the load
        if (opinions.worthPreparing()) {
            deps.actions().prepareWithout(guid);
        }
        askAfterVerdict(check, boundMs);
    }

    /**
     * A verdict on the session and incarnation an early echo is under way for: that echo decides it, once it has gone
     * unanswered for the whole wait after the verdict. Unanswered until the verdict only means the agent has been
     * silent as long as the ring says: a starved agent (a loaded host, a stalled CPU) is silent on both, and answers
     * once it runs again; the wait after the verdict is the time it is given for that, as for an echo sent then.
     */
    private void judgeByEarlyEcho(EarlyEchoes.Echo early, ManagedSwitch ms, int member, long incarnation) {
        SecondOpinion.Check check = new SecondOpinion.Check(early.guid, member, incarnation, ms.session());
        if (!opinions.begin(check)) {
            return;
        }
        early.check = check;
        if (!early.prepared && opinions.worthPreparing()) {
            early.prepared = true;
            deps.actions().prepareWithout(early.guid);
        }
        deps.queue().scheduleDeferred("detector second opinion " + Guids.format(early.guid), settings.secondOpinionMs(),
                () -> earlyVerdictWaited(early, check));
    }

    /** Sends the accused switch's session the echo after the verdict; its answer or silence decides {@code check}. */
    private void askAfterVerdict(SecondOpinion.Check check, int waitMs) {
        check.session().probe(waitMs).whenComplete((rttNanos, failure) -> deps.queue().append("detector second opinion "
                + Guids.format(check.guid()), () -> secondOpinion(check, failure == null ? rttNanos : -1, waitMs)));
    }

    /** The accused switch's session answered the echo ({@code rttNanos} ≥ 0) or did not (-1) within {@code waitMs}. */
    private void secondOpinion(SecondOpinion.Check check, long rttNanos, int waitMs) {
        if (ring == null || stopping.getAsBoolean()) {
            return;
        }
        boolean answered = rttNanos >= 0;
        if (!opinions.decide(check, answered ? SecondOpinion.Outcome.REFUTED : SecondOpinion.Outcome.CONFIRMED)) {
            return; // decided already (its member rejoined the ring), or a new epoch dropped it
        }
        if (answered) {
            refuted(check, String.format("its agent answered an echo in %.1f ms", rttNanos / 1e6));
            return;
        }
        ManagedSwitch ms = deps.registry().get(check.guid());
        if (ms != null && ms.session() != check.session()) {
            reconnectedMeanwhile(ms);
            return;
        }
        failed.routeAround(check.guid(), check.incarnation(), ms, ms == null ? null
                : "its agent did not answer an echo within " + waitMs + " ms", waitMs, false);
    }

    /**
     * A confirmed verdict whose session has been replaced meanwhile (the agent reconnected): it is about the run that
     * session had; the new one joins the ring, and nothing is routed around.
     */
    private void reconnectedMeanwhile(ManagedSwitch ms) {
        deps.actions().preparationRefuted(ms.guid());
        LOG.info("ring: the previous session of switch {} ({}) did not answer after the ring declared it dead; its "
                + "agent is connected again and joins the ring", Guids.format(ms.guid()), ms.name());
    }

    /**
     * A verdict the switch refuted: logged (rate-limited), nothing re-routed. Its member is sent its window again
     * (JOIN, same epoch): an agent whose member runs keeps it (it rejoins by itself once it hears of the verdict),
     * and one whose member died while the agent lives starts it again, so the ring watches the switch again.
     */
    private void refuted(SecondOpinion.Check check, String evidence) {
        deps.actions().preparationRefuted(check.guid());
        ManagedSwitch ms = deps.registry().get(check.guid());
        opinions.logRefuted(check, ms == null ? "" : ms.name(), evidence);
        if (ms != null && ms.admitted() && ms.session() == check.session() && ring.active() && ring.contains(ms.guid())) {
            configurator.send(ms, true);
        }
    }

}
