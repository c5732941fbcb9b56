package org.fabricmanager.daemon.chaos;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.fabricmanager.daemon.VirtualDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.daemon.control.VirtualTimeLoop;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;

/**
 * False isolations over a long run: the whole daemon ({@link VirtualDaemon}, {@code linkHealth.policy: isolate} and
 * its defaults otherwise) on a virtual clock, every switch on and converged, then hours of fabric time in which each
 * switch's port counters are read every {@code pollIntervalMs} (a tenth of the switches each second, as the poller
 * spreads them) and are noisy but healthy ({@link CounterNoise}). Every isolation is a false one. Hours of fabric
 * time take seconds: nothing waits for a clock.
 */
public final class CounterNoiseRun implements AutoCloseable {
    /** A fabric, a seed, and how many hours of fabric time. */
    public record Plan(PgftSpec spec, long seed, double hours) {
    }

    /**
     * What a run saw.
     *
     * @param simulatedMs   fabric time from the first convergence to the end
     * @param reads         counter reports the daemon judged
     * @param errors        errors and drops injected
     * @param bursts        bursts of errors injected
     * @param idleErrors    errors counted on idle ports
     * @param suspect       {@code LINK_SUSPECT} events (suspect links, and bad ones the policy only advised about)
     * @param isolations    the links isolated, with the figures that decided: every one a false isolation, but for a
     *                      link {@linkplain #plantErringUplink() planted} to err
     */
    public record Outcome(long simulatedMs, int switches, long reads, long errors, long bursts, long idleErrors,
                          long suspect, List<String> isolations) {
        /** Hours of fabric time. */
        public double hours() {
            return simulatedMs / 3_600_000.0;
        }
    }

    private final Plan plan;
    private final VirtualTimeLoop loop = new VirtualTimeLoop();
    private final ConcurrentLinkedQueue<Runnable> computations = new ConcurrentLinkedQueue<>();
    private final Fabric intact;
    private final DaemonConfig config;
    private final SimulatedFabric fabric;
    private final VirtualDaemon daemon;
    private long suspect;
    /** A port planted to err for real, or {@code null}. */
    private PortRef planted;
    private final List<String> isolations = new ArrayList<>();

    /** A run of {@code plan} with its state directory {@code stateDirectory} (empty). */
    public CounterNoiseRun(Plan plan, Path stateDirectory) {
        this.plan = plan;
        this.intact = PgftGenerator.generate(plan.spec());
        this.config = ChaosSimulation.config(stateDirectory, plan.spec())
                .withLinkHealth(LinkHealthSection.defaults().withPolicy("isolate"));
        this.fabric = new SimulatedFabric(intact, new ChaosOracle(intact), loop, new Random(~plan.seed()),
                new ArrayList<>(), config.southbound().echoIntervalMs(), config.southbound().idleTimeoutMs());
        RoutingService routing = new RoutingService(RoutingEngines.create(config.routing().engine(), 1),
                config.routing().repairs(), computations::add);
        this.daemon = new VirtualDaemon(config, loop, routing, plan.seed(), StateFiles.LOCAL, this::heard);
        fabric.connect(daemon.southbound());
    }

    private void heard(Milestone m) {
        if (m.kind() == Milestone.Kind.LINK_SUSPECT) {
            suspect++;
        } else if (m.kind() == Milestone.Kind.LINK_ISOLATED) {
            isolations.add("t=" + loop.nowMs() + " ms: " + m.message());
        }
    }

    /**
     * Plants one leaf uplink that errs for real (five times its bad threshold under load), to show the run isolates
     * what it should: its isolation is the one expected. Returns the port planted.
     */
    public PortRef plantErringUplink() {
        long leaf = PgftGenerator.switchGuid(1, 0);
        Link uplink = intact.links().stream().filter(l -> (l.a() == leaf || l.b() == leaf) && intact.isSwitch(l.a())
                && intact.isSwitch(l.b())).findFirst().orElseThrow();
        planted = new PortRef(leaf, uplink.a() == leaf ? uplink.aPort() : uplink.bPort());
        return planted;
    }

    /** Every switch on, converged, then the plan's hours of noisy counters. */
    public Outcome run() {
        for (var s : intact.switches()) {
            fabric.powerOn(s.guid(), false);
        }
        long limit = loop.nowMs() + 900_000;
        while (fabric.pending() > 0 || !computations.isEmpty() || daemon.routingBusy()
                || daemon.state() != DaemonState.CONVERGED) {
            if (loop.nowMs() > limit) {
                throw new IllegalStateException("no convergence within 900 s of virtual time: the daemon is "
                        + daemon.state());
            }
            compute();
            loop.advance(250);
        }
        CounterNoise noise = new CounterNoise(intact, config.linkHealth(), plan.seed());
        if (planted != null) {
            noise.plantErring(planted.guid(), planted.port());
        }
        List<Long> switches = new ArrayList<>();
        noise.switches().forEach(switches::add);
        switches.sort(Long::compare);
        int slices = (int) Math.max(1, config.linkHealth().pollIntervalMs() / 1000);
        long start = loop.nowMs();
        long end = start + (long) (plan.hours() * 3_600_000);
        for (long second = 0; loop.nowMs() < end; second++) {
            int slice = (int) (second % slices);
            for (int i = slice; i < switches.size(); i += slices) {
                long guid = switches.get(i);
                daemon.portCounters(guid, noise.read(guid, loop.nowMs() * 1_000_000L));
            }
            compute();
            loop.advance(1_000);
        }
        CounterNoise.Tally t = noise.tally();
        return new Outcome(loop.nowMs() - start, switches.size(), t.reads(), t.errors(), t.bursts(), t.idleErrors(),
                suspect, List.copyOf(isolations));
    }

    /** The links isolated now, as the daemon lists them. */
    public int isolatedNow() {
        return daemon.isolated().size();
    }

    /** Runs the routing computations the daemon handed its routing service (an isolation's re-route). */
    private void compute() {
        loop.runPending();
        Runnable c;
        while ((c = computations.poll()) != null) {
            c.run();
            loop.runPending();
        }
    }

    @Override
    public void close() {
        daemon.close();
    }
}
