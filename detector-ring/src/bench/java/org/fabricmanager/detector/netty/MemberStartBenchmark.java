package org.fabricmanager.detector.netty;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.fabricmanager.detector.AddressResolver;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.ProcessHealth;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * What it costs one process to start many ring members, as {@code simulate} does for its share of a large
 * fabric: {@code fm.bench.started} members (default 2,560) of a {@code fm.bench.ringMembers}-member ring
 * (default 5,121: the daemon's and 5,120 switches'), every second one, each configured with its window of
 * 16 members on either side as DETECTOR_WINDOW gives it, started from 16 threads on 2 event loops with one
 * shared registry and process health. Rounds of start-all then close-all ({@code fm.bench.rounds}, default
 * 5; the first warms the JIT and is not counted); prints each round's wall time, process CPU and retained
 * heap per member, then the median and spread. A benchmark, not a test: {@code -Dfm.bench=true}.
 */
class MemberStartBenchmark {
    private static final int WINDOW = 16;
    private static final int THREADS = 16;

    @Test
    void startingAProcessShareOfALargeRing() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("fm.bench"), "benchmark: run with -Dfm.bench=true");
        int n = Integer.getInteger("fm.bench.ringMembers", 5_121);
        int count = Math.min(Integer.getInteger("fm.bench.started", 2_560), n / 2);
        int rounds = Math.max(2, Integer.getInteger("fm.bench.rounds", 5));
        RingParameters p = RingParameters.of(Duration.ofMillis(300), Duration.ofMillis(3_000), Overlay.BMG)
                .withStartupGrace(Duration.ofSeconds(30));
        InetAddress lo = InetAddress.getLoopbackAddress();
        byte[] key = new byte[DetectorConfig.KEY_BYTES];
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        EventLoopGroup group = new NioEventLoopGroup(2);
        ExecutorService starters = Executors.newFixedThreadPool(THREADS);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ProcessHealth health = new ProcessHealth();
        System.out.printf("%d of %d members (every second), window +-%d, %d starting threads, 2 event loops, %d rounds%n",
                count, n, WINDOW, THREADS, rounds);
        System.out.println("| round | wall s | process CPU s | CPU ms per member | heap KB per member |");
        double[] wall = new double[rounds - 1];
        double[] cpu = new double[rounds - 1];
        double[] heap = new double[rounds - 1];
        try {
            for (int round = 0; round < rounds; round++) {
                List<NettyRingDetector> members = java.util.Collections.synchronizedList(new ArrayList<>());
                System.gc();
                long heap0 = usedHeap();
                long cpu0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                List<Future<?>> started = new ArrayList<>();
                for (int k = 0; k < count; k++) {
                    int self = 1 + 2 * k;
                    started.add(starters.submit(() -> {
                        Map<Integer, InetSocketAddress> known = new HashMap<>();
                        for (int d = -WINDOW; d <= WINDOW; d++) {
                            int m = Math.floorMod(self + d, n);
                            known.put(m, new InetSocketAddress(lo, d == 0 ? 0 : 20_000 + m % 40_000));
                        }
                        members.add(NettyRingDetector.start(new DetectorConfig(n, known, self, p, StartMode.BOOTSTRAP,
                                key, 7), e -> { }, registry, group, AddressResolver.NONE, health));
                        return null;
                    }));
                }
                for (Future<?> f : started) {
                    f.get();
                }
                double w = (System.nanoTime() - t0) / 1e9;
                double c = (os.getProcessCpuTime() - cpu0) / 1e9;
                System.gc();
                double h = (usedHeap() - heap0) / 1024.0 / count;
                System.out.printf("| %d%s | %.2f | %.2f | %.2f | %.1f |%n", round + 1, round == 0 ? " (warm-up)" : "", w, c,
                        c * 1000 / count, h);
                if (round > 0) {
                    wall[round - 1] = w;
                    cpu[round - 1] = c;
                    heap[round - 1] = h;
                }
                for (NettyRingDetector m : members) {
                    m.close();
                }
            }
        } finally {
            starters.shutdownNow();
            group.shutdownGracefully().syncUninterruptibly();
        }
        System.out.printf("median (min-max) over rounds 2-%d: wall %s s, process CPU %s s, heap %s KB per member%n",
                rounds, spread(wall), spread(cpu), spread(heap));
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    private static String spread(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return String.format("%.2f (%.2f-%.2f)", median, v[0], v[v.length - 1]);
    }
}
