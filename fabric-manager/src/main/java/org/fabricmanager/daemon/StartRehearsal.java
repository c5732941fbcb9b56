package org.fabricmanager.daemon;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.fabricmanager.daemon.discovery.FabricChecker;
import org.fabricmanager.daemon.discovery.NodeOrdering;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.discovery.TopologyBuilder;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.store.DestinationIndexMap;
import org.fabricmanager.daemon.store.FabricFingerprint;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While the agents of a large expected fabric connect, runs the first discovery's and the first routing's code once
 * on the expected PGFT, results dropped: the build from the agents' reports, the check against the PGFT, the index,
 * the engine from scratch, the first table set and the fingerprint. Otherwise the daemon runs that code for the
 * first time on the critical path of its start, interpreted: at 5,120 switches the build and check of the last
 * report and the first routing then take about twice as long (docs/performance.md, "Choices in the code,
 * measured"). Nothing of it is
 * kept or shared with the daemon (its own engine, one thread); it gives up between steps as soon as the daemon is
 * no longer discovering, so that it never competes with the real first routing and push.
 */
final class StartRehearsal {
    private static final Logger LOG = LoggerFactory.getLogger(StartRehearsal.class);
    /** Below this, a cold start costs tens of milliseconds: not worth a thread. */
    static final int MIN_SWITCHES = 1_000;

    private StartRehearsal() {
    }

    /**
     * Starts the rehearsal on its own thread when {@code expected} is large enough; returns at once.
     *
     * @param generated {@code expected} generated already (for the ring's slots), or {@code null}: generated here
     */
    static void startIfWorthIt(PgftSpec expected, Fabric generated, String engineName, FabricChecker checker,
                               NodeOrdering ordering, BooleanSupplier discovering) {
        if (expected == null || expected.totalSwitchCount() < MIN_SWITCHES) {
            return;
        }
        Thread t = new Thread(() -> run(expected, generated, engineName, checker, ordering, discovering),
                "fm-start-rehearsal");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /**
     * Runs the steps on the calling thread, each only while {@code discovering} holds.
     *
     * @return the steps done (0-5), or -1 when one failed (logged: a cold start is slower, not wrong)
     */
    static int run(PgftSpec expected, String engineName, FabricChecker checker, NodeOrdering ordering,
                   BooleanSupplier discovering) {
        return run(expected, null, engineName, checker, ordering, discovering);
    }

    private static int run(PgftSpec expected, Fabric generated, String engineName, FabricChecker checker,
                           NodeOrdering ordering, BooleanSupplier discovering) {
        long begin = System.nanoTime();
        int steps = 0;
        try {
            List<SwitchPorts> reports = reports(generated != null ? generated : PgftGenerator.generate(expected));
            if (!discovering.getAsBoolean()) {
                return log(steps, begin);
            }
            Fabric built = TopologyBuilder.build(reports, new DestinationIndexMap(), expected, ordering).fabric();
            steps++;
            if (!discovering.getAsBoolean()) {
                return log(steps, begin);
            }
            checker.check(built, expected);
            steps++;
            if (!discovering.getAsBoolean()) {
                return log(steps, begin);
            }
            FabricIndex index = built.index();
            steps++;
            if (!discovering.getAsBoolean()) {
                return log(steps, begin);
            }
            try (RoutingEngine engine = RoutingEngines.create(engineName, 1)) {
                RoutingResult result = engine.routeSnapshot(index).result();
                steps++;
                if (!discovering.getAsBoolean()) {
                    return log(steps, begin);
                }
                TableSet.derive(1, result.tables(), null);
                FabricFingerprint.of(built, engine.name());
                steps++;
            }
            return log(steps, begin);
        } catch (RuntimeException e) {
            LOG.warn("start rehearsal failed after {} steps (the first routing will run colder code): {}", steps,
                    e.toString());
            return -1;
        }
    }

    private static int log(int steps, long begin) {
        LOG.info("start rehearsal: {} of 5 steps of the first discovery and routing run on the expected fabric in {} ms,"
                + " results dropped{}", steps, String.format("%.0f", (System.nanoTime() - begin) / 1e6),
                steps < 5 ? " (the fabric was discovered first)" : "");
        return steps;
    }

    /** The port records each switch of {@code fabric} reports with every cable up, as its agent sends them. */
    static List<SwitchPorts> reports(Fabric fabric) {
        FabricIndex index = fabric.index();
        List<SwitchPorts> out = new ArrayList<>(index.switchCount());
        for (int s = 0; s < index.switchCount(); s++) {
            long guid = index.switchGuid(s);
            SwitchPorts ports = new SwitchPorts(guid, "", index.switchPorts(s));
            int[] peerSwitches = index.peerSwitches(s);
            int[] peerPorts = index.peerPorts(s);
            int[] peerNodes = index.peerNodes(s);
            for (int p = 1; p <= index.switchPorts(s); p++) {
                if (peerSwitches[p] != FabricIndex.NONE) {
                    ports.update(PortRecord.toSwitch(p, index.switchGuid(peerSwitches[p]), peerPorts[p], ""));
                } else if (peerNodes[p] != FabricIndex.NONE) {
                    ports.update(PortRecord.toNode(p, index.nodeGuid(peerNodes[p]), ""));
                }
            }
            out.add(ports);
        }
        return out;
    }
}
