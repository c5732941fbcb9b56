package org.fabricmanager.system;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): CPU time of the daemon's control thread per switch event, by
 * phase, at 192 and 5,120 switches (daemon and simulated fabric in one JVM). Phases: discovery (a HELLO
 * and a PORT_INFO per switch, up to the FABRIC_DISCOVERED milestone), push (one commit acknowledgement
 * per switch, PUSH_STARTED to CONVERGED) and one link fault (two PORT_STATUS, the re-route's snapshot, the
 * changed blocks' acknowledgements, up to its REACTION). The control thread's CPU time is read with
 * {@link ThreadMXBean} at each milestone (the listener runs on that thread). Run with
 * {@code mvn -B -q -pl fabric-manager -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=ControlThreadCostBenchmark -Dfm.bench=true [-Dfm.bench.specs=...] [-Dfm.bench.repeats=3]}
 * (5,120 switches need {@code -Dfm.test.jvm=-Xmx10g}); figures go to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class ControlThreadCostBenchmark {
    private static final int REPEATS = Integer.getInteger("fm.bench.repeats", 3);
    private static final List<String> SPECS = List.of(System.getProperty("fm.bench.specs",
            "PGFT(3;8,8,8;1,8,8;1,1,1);PGFT(3;32,32,64;1,32,32;1,1,1)").split(";(?=PGFT)"));
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Control-thread CPU per switch in microseconds, by phase, and the fault reaction's total. */
    record Run(double discoveryUs, double pushUs, double faultMs, double startToConvergedMs) {
    }

    @Test
    void controlThreadCostPerEvent() throws Exception {
        System.out.printf("machine: %d cores, %s %s; load before: %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), load());
        for (String text : SPECS) {
            PgftSpec spec = PgftSpec.parse(text);
            Fabric fabric = PgftGenerator.generate(spec);
            List<Run> runs = new ArrayList<>();
            Run cold = once(spec, fabric);
            for (int i = 0; i < REPEATS; i++) {
                runs.add(once(spec, fabric));
            }
            int n = fabric.switches().size();
            System.out.printf("%s (%d switches): cold discovery %.1f us/switch, push %.1f us/switch, link fault %.1f ms%n",
                    text, n, cold.discoveryUs(), cold.pushUs(), cold.faultMs());
            System.out.printf("  warm over %d: discovery %s us/switch, push %s us/switch, link fault %s ms of control CPU,"
                            + " start to converged %s ms%n", runs.size(),
                    stats(runs.stream().mapToDouble(Run::discoveryUs).toArray()),
                    stats(runs.stream().mapToDouble(Run::pushUs).toArray()),
                    stats(runs.stream().mapToDouble(Run::faultMs).toArray()),
                    stats(runs.stream().mapToDouble(Run::startToConvergedMs).toArray()));
        }
        System.out.printf("load after: %s%n", load());
    }

    private static String stats(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return String.format("median %.1f (min %.1f, max %.1f)", v[v.length / 2], v[0], v[v.length - 1]);
    }

    private static Run once(PgftSpec spec, Fabric fabric) throws Exception {
        Path state = Files.createTempDirectory("fm-bench-");
        Map<Milestone.Kind, Long> cpu = new ConcurrentHashMap<>();
        CountDownLatch converged = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<CountDownLatch> reaction = new java.util.concurrent.atomic.AtomicReference<>();
        long[] convergedAt = new long[1];
        long start = System.nanoTime();
        FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state, spec), List.of(m -> {
            long now = THREADS.getCurrentThreadCpuTime();
            cpu.putIfAbsent(m.kind(), now);
            if (m.kind() == Milestone.Kind.STARTED) {
                cpu.put(m.kind(), now);
            } else if (m.kind() == Milestone.Kind.CONVERGED && converged.getCount() > 0) {
                convergedAt[0] = System.nanoTime();
                converged.countDown();
            } else if (m.kind() == Milestone.Kind.REACTION && reaction.get() != null) {
                cpu.put(m.kind(), now);
                reaction.get().countDown();
            }
        }));
        try (FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.start();
            if (!converged.await(300, TimeUnit.SECONDS)) {
                throw new AssertionError("no convergence for " + spec);
            }
            int n = fabric.switches().size();
            double discoveryUs = (cpu.get(Milestone.Kind.FABRIC_DISCOVERED) - cpu.get(Milestone.Kind.STARTED)) / 1e3 / n;
            double pushUs = (cpu.get(Milestone.Kind.CONVERGED) - cpu.get(Milestone.Kind.PUSH_STARTED)) / 1e3 / n;
            Thread.sleep(200); // reactions to late joiners, if any, are over
            reaction.set(new CountDownLatch(1));
            long before = controlThreadCpu();
            Link uplink = fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b()))
                    .findFirst().orElseThrow();
            sim.linkDown(uplink.a(), uplink.aPort());
            if (!reaction.get().await(120, TimeUnit.SECONDS)) {
                throw new AssertionError("no reaction to a link fault for " + spec);
            }
            double faultMs = (cpu.get(Milestone.Kind.REACTION) - before) / 1e6;
            return new Run(discoveryUs, pushUs, faultMs, (convergedAt[0] - start) / 1e6);
        } finally {
            daemon.close();
            try (Stream<Path> files = Files.walk(state)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** CPU time of the live daemon's control thread. */
    private static long controlThreadCpu() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("fm-control") && t.isAlive()) {
                return THREADS.getThreadCpuTime(t.getId());
            }
        }
        throw new IllegalStateException("no control thread");
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
