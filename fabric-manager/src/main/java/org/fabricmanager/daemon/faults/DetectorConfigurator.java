package org.fabricmanager.daemon.faults;

import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.registry.ManagedSwitch;
import org.fabricmanager.southbound.DetectorConfigReply;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configures the agents' ring members for the epoch the {@link RingPlanner} planned: sends each switch its window (or,
 * to older agents, the whole ring), hears the answers (in time and late) and says when the epoch's start is over, lets
 * a restarted or late agent join the running epoch, tells the members that hold a moved member's address where it is
 * now, and answers the agents' lookups of members' addresses. Runs on the control thread; does nothing when the
 * detector is disabled ({@code ring} {@code null}).
 */
final class DetectorConfigurator {
    private static final Logger LOG = LoggerFactory.getLogger(DetectorConfigurator.class);

    private final RingCoordinator ring;
    private final FaultDependencies deps;
    /** Told when an epoch's start ends: its last awaited answer came, or the wait for it ended. */
    private Runnable ringStarted = () -> { };
    /** Whether the daemon is stopping: from then on, lost sessions are its own doing (FaultManager#stopping). */
    private final BooleanSupplier stopping;

    DetectorConfigurator(RingCoordinator ring, FaultDependencies deps, BooleanSupplier stopping) {
        this.stopping = stopping;
        this.ring = ring;
        this.deps = deps;
    }

    /**
     * A switch was admitted: a restarted agent of a ring member joins the running ring, without a new epoch.
     * An agent that takes its ring as a window joins once its DETECTOR_ENDPOINT is known (it follows PORT_INFO
     * at once), so that the members holding its address can be told where it is now.
     */
    void switchAdmitted(ManagedSwitch ms) {
        if (ring != null && ring.active() && ring.contains(ms.guid())) {
            // it joins above the incarnation of its previous run
            ms.replacedRingIncarnation(ring.incarnation(ms.guid()));
            if (!ms.session().hello().supportsDetectorWindow() || ms.detectorEndpoint() != null) {
                joinRing(ms);
            }
        }
    }

    /** An admitted switch's agent said where its member listens (after its PORT_INFO). */
    void detectorEndpoint(ManagedSwitch ms) {
        if (ring != null && ring.active() && ms.admitted() && ring.contains(ms.guid())
                && ms.session().hello().supportsDetectorWindow()) {
            joinRing(ms);
        }
    }

    private void joinRing(ManagedSwitch ms) {
        if (ring.vacant(ms.guid())) {
            // an expected switch that connected after the plan takes its slot: same epoch, same key, a JOIN
            ring.filled(ms.guid());
            LOG.info("failure detector: switch {} ({}) connected late and joins its slot in ring epoch {} (no new epoch)",
                    Guids.format(ms.guid()), ms.name(), ring.epoch());
        }
        if (ms.detectorEndpoint() != null) {
            // only the members that hold its previous address hear of the move: O(window + lookups), not O(n)
            ring.moved(ms.guid(), ms.detectorEndpoint()).forEach((guid, update) -> {
                ManagedSwitch holder = deps.registry().get(guid);
                if (holder != null && holder.admitted() && holder.session().hello().supportsDetectorWindow()) {
                    holder.session().sendDetectorPeers(update);
                }
            });
        }
        // a member of the cold start whose endpoint came after the ring plan (it was admitted before the ring ran,
        // and has not answered yet) starts with the others, under the start-up grace, rather than joining a ring
        // that does not run yet: a JOIN then left it unheard by its successor until it was declared dead
        // (FaultReactionIT, after the window change). A restarted agent (admitted while the ring ran) joins.
        boolean coldStart = ms.replacedRingIncarnation() < 0 && ring.awaitingAnswer(ms.guid());
        send(ms, !coldStart);
    }

    /** {@code action} runs on the control thread whenever a ring epoch's start ends (every answer in, or its wait over). */
    void onRingStarted(Runnable action) {
        ringStarted = Objects.requireNonNull(action, "action");
    }

    /** True while a planned ring epoch still awaits some switch's answer to its configuration. */
    boolean ringStarting() {
        return ring != null && ring.active() && ring.awaitingAnswers() > 0;
    }

    /**
     * The longest a ring's start can take: each answer is awaited {@link RingCoordinator#answerTimeoutMs}, and an
     * agent whose endpoint comes late is configured later; twice that bounds what waits for the start.
     */
    long ringStartWaitMs() {
        return ring == null ? 0 : 2 * ring.answerTimeoutMs();
    }

    /** A switch's agent asks for ring members' addresses: answered from this epoch's directory. */
    void detectorLookup(ManagedSwitch ms, Message.DetectorLookup lookup) {
        if (ring == null || !ring.active() || stopping.getAsBoolean() || !ms.admitted()) {
            return;
        }
        ms.session().sendDetectorPeers(ring.lookup(lookup.txid(), lookup.epoch(), ms.guid(), lookup.members()));
    }

    /**
     * Sends switch {@code ms} its part of the current epoch: a start ({@code join} false) or a JOIN of the running
     * ring. Its answer, and a late one, come back as control events.
     */
    void send(ManagedSwitch ms, boolean join) {
        long guid = ms.guid();
        long epoch = ring.epoch();
        SwitchSession session = ms.session();
        // agents that take a window get O(window) bytes; older ones the whole ring, as before
        (session.hello().supportsDetectorWindow()
                ? session.sendDetectorWindow(ring.windowFor(guid, join, session.hello().supportsDetectorSlots()),
                        ring.answerTimeoutMs())
                : session.sendDetectorConfig(ring.configFor(guid, join), ring.answerTimeoutMs())).thenAccept(reply ->
                deps.queue().append("detector config answer " + Guids.format(guid), () -> {
                    // a session superseded by its restarted agent answers NO_ANSWER as it closes, after the
                    // new session took the GUID: only the new session's own answer counts
                    if (deps.registry().current(session) == null) {
                        return;
                    }
                    onAnswer(epoch, guid, reply);
                    if (reply.late() != null) {
                        // its member may be starting slowly: an answer after the wait still tells the ring it runs
                        long waitEnded = System.nanoTime();
                        reply.late().thenAccept(late -> deps.queue().append("late detector config answer "
                                + Guids.format(guid), () -> {
                                    if (deps.registry().current(session) != null) {
                                        onLateAnswer(epoch, guid, late, waitEnded);
                                    }
                                }));
                    }
                }));
    }

    private void onAnswer(long epoch, long guid, DetectorConfigReply reply) {
        if (stopping.getAsBoolean()) {
            return;
        }
        String name = nameOf(guid);
        if (epoch == ring.epoch() && reply.outcome() == DetectorConfigReply.Outcome.NO_DETECTOR) {
            LOG.warn("failure detector: switch {} ({}) runs no ring member ({}): its faults are known only through "
                    + "its session and its neighbours' port status", Guids.format(guid), name, reply.detail());
        } else if (epoch == ring.epoch() && !reply.running()) {
            LOG.warn("failure detector: switch {} ({}) did not answer its ring configuration ({}); the ring still "
                    + "watches it", Guids.format(guid), name, reply.detail());
        }
        if (ring.answered(epoch, guid, reply)) {
            Map<Long, String> unwatched = ring.unwatchedSwitches();
            int unconfirmed = ring.unconfirmedAnswers();
            deps.milestones().record(Milestone.Kind.DETECTOR_RUNNING, String.format("failure detector: ring epoch %d "
                    + "running, %d of %d switches watched%s%s", epoch, ring.size() - 1 - unwatched.size(),
                    ring.size() - 1,
                    unwatched.isEmpty() ? "" : " (" + unwatched.size() + " without a running member: see /api/v1/faults)",
                    unconfirmed == 0 ? "" : "; " + unconfirmed + " of them did not answer in time and may still be "
                            + "starting (ringUnconfirmed in /api/v1/faults)"));
            ringStarted.run();
        }
    }

    private void onLateAnswer(long epoch, long guid, DetectorConfigReply late, long waitEndedNanos) {
        if (stopping.getAsBoolean() || epoch != ring.epoch() || late.outcome() == DetectorConfigReply.Outcome.NO_ANSWER) {
            return; // superseded (the next configuration has its own answer) or its session closed (it reconnects)
        }
        boolean wasUnconfirmed = ring.unconfirmedAnswers() > 0;
        ring.answered(epoch, guid, late);
        String name = nameOf(guid);
        long lateMs = (System.nanoTime() - waitEndedNanos) / 1_000_000;
        if (!late.running()) {
            LOG.warn("failure detector: switch {} ({}) runs no ring member ({}), it said {} ms after the wait ended: its "
                    + "faults are known only through its session and its neighbours' port status", Guids.format(guid),
                    name, late.detail(), lateMs);
        } else {
            // one line per switch only at debug: at a cold start of thousands, hundreds may come late together
            LOG.debug("failure detector: switch {} ({}) confirmed its ring member runs {} ms after the wait ended",
                    Guids.format(guid), name, lateMs);
        }
        if (wasUnconfirmed && ring.unconfirmedAnswers() == 0) {
            LOG.info("failure detector: every switch of ring epoch {} has answered its configuration, the last {} ms "
                    + "after the wait ended", epoch, lateMs);
        }
    }

    /** The switch's name, or its GUID when it is not registered (any more). */
    private String nameOf(long guid) {
        ManagedSwitch ms = deps.registry().get(guid);
        return ms == null ? Guids.format(guid) : ms.name();
    }

}
