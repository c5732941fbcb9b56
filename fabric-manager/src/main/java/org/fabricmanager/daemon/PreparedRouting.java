package org.fabricmanager.daemon;

import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing computed ahead of a verdict. Lifeguard's second opinion costs its echo wait on every real death: the
 * routing without the accused switch is computed during that wait, from the fabric derived without it, and its blocks
 * are sent to the switches ahead, so that the confirmation only installs it; a refutation drops it all. Control
 * thread only.
 */
final class PreparedRouting {
    private static final Logger LOG = LoggerFactory.getLogger(PreparedRouting.class);

    private final FabricCoordinator.Managers m;
    private final Convergence convergence;
    private final RerouteSchedule schedule;
    /** Tells the quality measurement to give the cores to the computation. */
    private final Runnable yieldCores;
    /** The switch a prepared routing leaves out (its verdict is being checked), 0 when none. */
    private long preparedFor;

    PreparedRouting(FabricCoordinator.Managers managers, Convergence convergence, RerouteSchedule schedule,
                    Runnable yieldCores) {
        this.m = managers;
        this.convergence = convergence;
        this.schedule = schedule;
        this.yieldCores = yieldCores;
    }

    /**
     * Switch {@code guid} is accused: prepares the routing without it. Skipped when anything else is under way (a
     * computation, a re-route due, changes not snapshotted): the normal path then handles the confirmation.
     */
    void prepareWithout(long guid) {
        DaemonState state = convergence.judged();
        if (state != DaemonState.CONVERGED || schedule.scheduled() || m.routing().busy() || m.routing().hasPrepared()) {
            LOG.debug("no routing prepared without {}: state {}, re-route due {}, computing {}, one prepared already {}",
                    Guids.format(guid), state, schedule.scheduled(), m.routing().busy(), m.routing().hasPrepared());
            return;
        }
        Fabric without = m.discovery().snapshotWithout(guid);
        if (without != null && m.routing().prepare(without)) {
            // the quality measurement gives the cores to this computation; a refutation restarts it, and preparations
            // are rare: not within 30 s of a refutation
            yieldCores.run();
            preparedFor = guid;
        } else {
            LOG.debug("no routing prepared without {}: {}", Guids.format(guid), without == null
                    ? "the fabric without it is not derivable now (a build is due, or a node of it has another claim)"
                    : "not started");
        }
    }

    /** The verdict on {@code guid} was refuted: what was prepared and staged without it is dropped. */
    void refuted(long guid) {
        if (preparedFor != guid) {
            return;
        }
        preparedFor = 0;
        m.routing().discardPrepared();
        m.pusher().dropStaged();
        m.discovery().forgetTentative();
        convergence.measureAgain(); // the measurement the preparation interrupted starts again
    }

    /**
     * Sends the prepared routing's blocks to the switches it changes while the verdict is still being confirmed, so
     * that the confirmation sends only commits: a spine's death changes many blocks on every switch it joined, which
     * otherwise go out after the verdict, on the reaction's path. Only when
     * every switch holds the tables in force (a push under way would be interleaved with it).
     */
    void stageAhead() {
        TableSet next = m.routing().preparedTables();
        if (next == null || preparedFor == 0 || convergence.judged() != DaemonState.CONVERGED) {
            return;
        }
        int switches = m.pusher().stage(next);
        LOG.debug("prepared routing v{} without {}: blocks staged on {} switches ahead of the confirmation",
                next.version(), Guids.format(preparedFor), switches);
    }

    /** A snapshot is routed now: the prepared routing, if any, is installed from it (this very fabric) or dropped. */
    void routing() {
        preparedFor = 0;
    }
}
