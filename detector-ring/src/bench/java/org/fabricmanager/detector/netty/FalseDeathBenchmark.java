package org.fabricmanager.detector.netty;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.DetectorMetrics;
import org.fabricmanager.detector.ProcessHealth;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * False deaths and detection latency of a ring on a loaded host, with and without Lifeguard (local health
 * and refutable suspicion). {@code fm.bench.members} members (default 769: the daemon's and 768 switches')
 * run in this JVM on two event-loop threads, sealed, as {@code simulate} runs them; two busy {@code sh}
 * loops load both cores for the whole run (started and killed here, and bounded by {@code timeout} should
 * this JVM die). After a 10 s warm-up the ring runs {@code fm.bench.steadySeconds} (default 600) untouched:
 * every death member 0 (the daemon's member) hears of is false. Then {@code fm.bench.kills} (default 14)
 * members are stopped silently one at a time (no datagram after close): latency is the stop to member 0's
 * MemberFailed. A benchmark, not a test: {@code -Dfm.bench=true}; {@code fm.bench.lifeguard} = on, off or
 * both (default).
 */
class FalseDeathBenchmark {
    private static final long MS = 1_000_000L;

    @Test
    void falseDeathsAndDetectionLatencyOnALoadedHost() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("fm.bench"), "benchmark: run with -Dfm.bench=true");
        int n = Integer.getInteger("fm.bench.members", 769);
        int steady = Integer.getInteger("fm.bench.steadySeconds", 600);
        int kills = Integer.getInteger("fm.bench.kills", 14);
        long eta = Integer.getInteger("fm.bench.etaMs", 100);
        long delta = Integer.getInteger("fm.bench.deltaMs", 500);
        String which = System.getProperty("fm.bench.lifeguard", "both");
        List<Boolean> modes = switch (which) {
            case "on" -> List.of(true);
            case "off" -> List.of(false);
            default -> List.of(true, false);
        };
        System.out.printf("%d members, eta %d ms, delta %d ms, BMG, sealed, 2 event-loop threads, 2 busy sh loops; "
                + "%d s steady, %d silent kills%n", n, eta, delta, steady, kills);
        List<String> rows = new ArrayList<>();
        for (boolean lifeguard : modes) {
            rows.add(run(n, eta, delta, steady, kills, lifeguard));
        }
        System.out.println("| lifeguard | load before | load after | false deaths (steady) | per hour | verdicts "
                + "(steady) | suspicions raised | refuted | refutations | late heartbeats | detection median | "
                + "min | max | false deaths (kills) |");
        rows.forEach(System.out::println);
    }

    private static String run(int n, long eta, long delta, int steady, int kills, boolean lifeguard) throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        List<DatagramSocket> held = new ArrayList<>();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DatagramSocket s = new DatagramSocket(0, lo);
            held.add(s);
            addresses.add(new InetSocketAddress(lo, s.getLocalPort()));
        }
        held.forEach(DatagramSocket::close);
        byte[] key = new byte[DetectorConfig.KEY_BYTES];
        new SplittableRandom(7).nextBytes(key);
        RingParameters p = RingParameters.of(Duration.ofMillis(eta), Duration.ofMillis(delta), Overlay.BMG)
                .withLifeguard(lifeguard);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // member 0's view of deaths: (member -> nanoTime of its first MemberFailed), and every MemberFailed's member
        // in order (a repeated verdict on a stopped member is not a false death)
        ConcurrentHashMap<Integer, Long> deathsSeen = new ConcurrentHashMap<>();
        List<Integer> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        EventLoopGroup group = new NioEventLoopGroup(2);
        // one process, as simulate's: its members share its lateness (ProcessHealth), with Lifeguard on, unless
        // fm.bench.processHealth=false (each member then judges by its own timers only, as before 2026-11-25)
        ProcessHealth process = new ProcessHealth();
        boolean shared = !"false".equals(System.getProperty("fm.bench.processHealth"));
        int highestProcessScore = 0;
        List<NettyRingDetector> members = new ArrayList<>();
        List<Process> burners = new ArrayList<>();
        String loadBefore = loadAverage();
        try {
            for (int i = 0; i < n; i++) {
                boolean daemon = i == 0;
                members.add(NettyRingDetector.start(new DetectorConfig(addresses, i, p, StartMode.BOOTSTRAP, key), e -> {
                    if (daemon && e instanceof DetectorEvent.MemberFailed f) {
                        failed.add(f.member());
                        deathsSeen.putIfAbsent(f.member(), System.nanoTime());
                    }
                }, registry, group, org.fabricmanager.detector.AddressResolver.NONE, shared ? process : new ProcessHealth()));
            }
            long bound = steady + 60L * kills + 120;
            for (int c = 0; c < 2; c++) {
                burners.add(new ProcessBuilder("timeout", Long.toString(bound), "sh", "-c", "while :; do :; done")
                        .redirectErrorStream(true).start());
            }
            Thread.sleep(10_000);
            double verdicts0 = count(registry, DetectorMetrics.SUSPICIONS);
            double raised0 = count(registry, DetectorMetrics.SUSPICIONS_RAISED);
            double refuted0 = count(registry, DetectorMetrics.SUSPICIONS_REFUTED);
            double refutations0 = count(registry, DetectorMetrics.REFUTATIONS);
            double late0 = count(registry, DetectorMetrics.HEARTBEATS_LATE);
            int deaths0 = failed.size();
            int maxHealth = 0;
            for (int s = 0; s < steady; s += 10) {
                Thread.sleep(10_000);
                int health = (int) registry.get(DetectorMetrics.HEALTH_SCORE).gauge().value();
                maxHealth = Math.max(maxHealth, health);
                if (s % 60 == 50) {
                    System.out.printf("  [%s] %d s: false deaths %d, verdicts %.0f, raised %.0f, health sum %d, load %s%n",
                            lifeguard ? "on" : "off", s + 10, failed.size() - deaths0,
                            count(registry, DetectorMetrics.SUSPICIONS) - verdicts0,
                            count(registry, DetectorMetrics.SUSPICIONS_RAISED) - raised0, health, loadAverage());
                }
            }
            int falseSteady = failed.size() - deaths0;
            double verdicts = count(registry, DetectorMetrics.SUSPICIONS) - verdicts0;
            double raised = count(registry, DetectorMetrics.SUSPICIONS_RAISED) - raised0;
            double refuted = count(registry, DetectorMetrics.SUSPICIONS_REFUTED) - refuted0;
            double refutations = count(registry, DetectorMetrics.REFUTATIONS) - refutations0;
            double late = count(registry, DetectorMetrics.HEARTBEATS_LATE) - late0;

            // silent kills, one at a time, of members member 0 does not think dead
            SplittableRandom pick = new SplittableRandom(11);
            long[] latency = new long[kills];
            int done = 0;
            deathsSeen.clear();
            int failedBeforeKills = failed.size();
            List<Integer> killed = new ArrayList<>();
            while (done < kills) {
                int victim = 1 + pick.nextInt(n - 1);
                if (killed.contains(victim)) {
                    continue;
                }
                killed.add(victim);
                deathsSeen.remove(victim); // an earlier false death of the same member must not count as detection
                long t0 = System.nanoTime();
                members.get(victim).close();
                long deadline = t0 + 30_000 * MS;
                while (!deathsSeen.containsKey(victim) && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                    highestProcessScore = Math.max(highestProcessScore, process.score());
                }
                Long seen = deathsSeen.get(victim);
                latency[done] = seen == null ? -1 : seen - t0;
                System.out.printf("  [%s] kill %d: member %d, member 0 knew after %s%n", lifeguard ? "on" : "off", done + 1,
                        victim, seen == null ? "more than 30 s" : String.format("%.0f ms", (seen - t0) / 1e6));
                done++;
                for (int w = 0; w < 600; w++) {
                    Thread.sleep(5);
                    highestProcessScore = Math.max(highestProcessScore, process.score());
                }
            }
            // deaths member 0 heard during the kills of members that were not stopped; repeats on stopped ones apart
            List<Integer> duringKills;
            synchronized (failed) {
                duringKills = new ArrayList<>(failed.subList(failedBeforeKills, failed.size()));
            }
            List<Integer> notStopped = duringKills.stream().filter(m -> !killed.contains(m)).toList();
            int falseDuringKills = notStopped.size();
            int repeats = duringKills.size() - falseDuringKills - (int) Arrays.stream(latency).filter(l -> l >= 0).count();
            System.out.printf("  [%s] during the kills: %d verdicts on members not stopped %s, %d repeated on stopped ones; "
                    + "highest process health score seen %s%n", lifeguard ? "on" : "off", falseDuringKills, notStopped, repeats,
                    shared ? Integer.toString(highestProcessScore) : "(not shared)");
            long[] sorted = Arrays.stream(latency).filter(l -> l >= 0).sorted().toArray();
            String median = sorted.length == 0 ? "–" : String.format("%.0f ms", sorted[sorted.length / 2] / 1e6);
            if (sorted.length > 0 && sorted.length % 2 == 0) {
                median = String.format("%.0f ms", (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2e6);
            }
            String row = String.format("| %s | %s | %s | %d | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %d |",
                    lifeguard ? "on" : "off", loadBefore, loadAverage(), falseSteady, falseSteady * 3600.0 / steady, verdicts,
                    raised, refuted, refutations, late, median,
                    sorted.length == 0 ? "–" : String.format("%.0f ms", sorted[0] / 1e6),
                    sorted.length == 0 ? "–" : String.format("%.0f ms", sorted[sorted.length - 1] / 1e6)
                            + (sorted.length < kills ? " (" + (kills - sorted.length) + " undetected in 30 s)" : ""),
                    falseDuringKills);
            System.out.println(row + "  (highest sum of health scores seen: " + maxHealth + ")");
            return row;
        } finally {
            // the loops first: killed, `timeout` leaves its child running (adopted by init) until it ends on its own,
            // and a busy loop left by each run loaded the next runs twice, three times as much
            for (Process burner : burners) {
                burner.descendants().forEach(ProcessHandle::destroyForcibly);
                burner.destroyForcibly();
            }
            members.forEach(NettyRingDetector::close);
            group.shutdownGracefully().awaitUninterruptibly();
        }
    }

    private static double count(SimpleMeterRegistry registry, String name) {
        return registry.get(name).counter().count();
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
