package org.fabricmanager.system;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.slf4j.LoggerFactory;

/**
 * Benchmark (not part of the test suite): does judging every link's counters delay a fault's reaction? The daemon and
 * a simulated fabric in one JVM, {@code linkHealth.policy} as given ({@code fm.bench.policies}, default {@code off}
 * then {@code isolate}); from the first convergence on, for {@code fm.bench.seconds} (default 30: the first polls
 * after the convergence), every control event that ran 10 ms or more is taken from the queue's debug lines, by name,
 * and an uplink (another each time) is taken down and up every few seconds, each change's {@code REACTION} ({@code faultToConvergedMs})
 * kept. Run with {@code mvn -B -q -pl fabric-manager -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=GrayLinksControlBenchmark -Dfm.bench=true [-Dfm.bench.specs=...]} (5,120 switches need
 * {@code -Dfm.test.jvm=-Xmx10g}); figures go to stdout.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class GrayLinksControlBenchmark {
    private static final List<String> SPECS = List.of(System.getProperty("fm.bench.specs",
            "PGFT(3;16,16,16;1,16,16;1,1,1);PGFT(3;32,32,64;1,32,32;1,1,1)").split(";(?=PGFT)"));
    private static final List<String> POLICIES = List.of(System.getProperty("fm.bench.policies", "off,isolate")
            .split(","));
    private static final int SECONDS = Integer.getInteger("fm.bench.seconds", 30);
    private static final long FLIP_MS = 2_500;
    private static final Pattern LINE = Pattern.compile(
            "control event '(.+)': waited ([0-9.]+) ms, ran ([0-9.]+) ms(?: \\(([0-9.]+) ms of CPU\\))?");

    record Timed(long nanos, Milestone milestone) {
    }

    @Test
    void controlThreadHoldWithLinkHealth() throws Exception {
        System.out.printf("machine: %d cores, %s %s; load before: %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), load());
        Logger slow = (Logger) LoggerFactory.getLogger("org.fabricmanager.daemon.control.SlowEvents");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        slow.addAppender(lines);
        Level before = slow.getLevel();
        slow.setLevel(Level.DEBUG);
        try {
            for (String text : SPECS) {
                PgftSpec spec = PgftSpec.parse(text);
                Fabric fabric = PgftGenerator.generate(spec);
                for (String policy : POLICIES) {
                    once(spec, fabric, policy, lines);
                }
            }
        } finally {
            slow.detachAppender(lines);
            slow.setLevel(before);
        }
        System.out.printf("load after: %s%n", load());
    }

    private static void once(PgftSpec spec, Fabric fabric, String policy, ListAppender<ILoggingEvent> lines)
            throws Exception {
        Path state = Files.createTempDirectory("fm-bench-gray-");
        LinkedBlockingQueue<Timed> events = new LinkedBlockingQueue<>();
        LinkHealthSection health = LinkHealthSection.defaults().withPolicy(policy);
        FabricManagerDaemon daemon = FabricManagerDaemon.start(SystemSupport.config(state, spec).withLinkHealth(health),
                List.of(m -> events.add(new Timed(System.nanoTime(), m))));
        try (FabricSimulator sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort())) {
            sim.start();
            SystemSupport.await(daemon, s -> s.state() == DaemonState.CONVERGED
                    && s.switches().connected() == fabric.switches().size(), "first convergence");
            synchronized (lines.list) {
                lines.list.clear();
            }
            events.clear();
            // a link taken down twice in a minute would be quarantined as flapping: a new one each time
            List<Link> uplinks = fabric.links().stream().filter(l -> fabric.isSwitch(l.a()) && fabric.isSwitch(l.b()))
                    .toList();
            int next = 0;
            Link uplink = uplinks.get(0);
            List<Double> reactions = new ArrayList<>();
            long controlCpu = threadCpu("fm-control");
            long judgeCpu = threadCpu("fm-link-health");
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
            boolean down = false;
            while (System.nanoTime() < end) {
                Thread.sleep(FLIP_MS);
                down = !down;
                if (down) {
                    uplink = uplinks.get(next++ * 7 % uplinks.size());
                    sim.linkDown(uplink.a(), uplink.aPort());
                } else {
                    sim.linkUp(uplink.a(), uplink.aPort());
                }
                reactions.add(reaction(events));
            }
            controlCpu = threadCpu("fm-control") - controlCpu;
            judgeCpu = threadCpu("fm-link-health") - judgeCpu;
            if (down) {
                sim.linkUp(uplink.a(), uplink.aPort());
                reaction(events);
            }
            Map<String, List<double[]>> byName = new TreeMap<>();
            synchronized (lines.list) {
                for (ILoggingEvent e : lines.list) {
                    Matcher m = LINE.matcher(e.getFormattedMessage());
                    if (m.matches()) {
                        double cpu = m.group(4) == null ? -1 : Double.parseDouble(m.group(4));
                        // one line per kind: 'routing-done v7' and 'push-done s1-2047' are 'routing-done' and 'push-done'
                        String kind = m.group(1).replaceAll(" (v[0-9]+|s[0-9-]+)$", "");
                        byName.computeIfAbsent(kind, k -> new ArrayList<>()).add(new double[]{
                                Double.parseDouble(m.group(3)), cpu});
                    }
                }
            }
            System.out.printf("%s (%d switches), policy %s, %d s from the first convergence:%n", spec,
                    fabric.switches().size(), policy, SECONDS);
            System.out.printf("  CPU per second: control thread %.1f ms, link-health judge %.1f ms; load %s%n",
                    controlCpu / 1e6 / SECONDS, judgeCpu / 1e6 / SECONDS, load());
            System.out.printf("  REACTION faultToConvergedMs over %d link changes: %s%n", reactions.size(),
                    stats(reactions.stream().mapToDouble(Double::doubleValue).toArray()));
            for (Map.Entry<String, List<double[]>> e : byName.entrySet()) {
                // lines for a wait alone left out
                double[] run = e.getValue().stream().filter(v -> v[0] >= 10).mapToDouble(v -> v[0]).toArray();
                double[] cpu = e.getValue().stream().filter(v -> v[0] >= 10).mapToDouble(v -> v[1]).toArray();
                if (run.length > 0) {
                    System.out.printf("  events '%s' that ran >= 10 ms: %d, ran %s, CPU %s%n", e.getKey(), run.length,
                            stats(run), stats(cpu));
                }
            }
        } finally {
            daemon.close();
            try (Stream<Path> files = Files.walk(state)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** The next {@code REACTION}'s faultToConvergedMs. */
    private static double reaction(LinkedBlockingQueue<Timed> events) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Timed t = events.poll(1, TimeUnit.SECONDS);
            if (t != null && t.milestone().kind() == Milestone.Kind.REACTION
                    && t.milestone().details().get("faultToConvergedMs") instanceof Number n) {
                return n.doubleValue();
            }
        }
        throw new AssertionError("no REACTION within 60 s");
    }

    /** CPU time (ns) of the live thread named {@code name}, or 0 when there is none. */
    private static long threadCpu(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name) && t.isAlive()) {
                return ManagementFactory.getThreadMXBean().getThreadCpuTime(t.getId());
            }
        }
        return 0;
    }

    private static String stats(double[] values) {
        if (values.length == 0) {
            return "none";
        }
        double[] v = values.clone();
        Arrays.sort(v);
        return String.format("median %.1f (min %.1f, max %.1f)", v[v.length / 2], v[0], v[v.length - 1]);
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
