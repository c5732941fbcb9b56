package org.fabricmanager.detector.netty;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.overlay.Overlay;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Steady CPU of a ring with and without sealed datagrams: {@code fm.bench.members} members (default 768) in this
 * JVM on two event-loop threads, η 100 ms, measured as process CPU seconds per second over
 * {@code fm.bench.seconds} (default 20) after a warm-up, the two kinds alternated {@code fm.bench.repeats} times.
 * A benchmark, not a test: {@code -Dfm.bench=true}.
 */
class SealCostBenchmark {

    @Test
    void steadyRingCpuWithAndWithoutTheKey() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("fm.bench"), "benchmark: run with -Dfm.bench=true");
        int n = Integer.getInteger("fm.bench.members", 768);
        int seconds = Integer.getInteger("fm.bench.seconds", 20);
        int repeats = Integer.getInteger("fm.bench.repeats", 3);
        System.out.printf("ring of %d members, eta 100 ms, delta 1 s, 2 event-loop threads; %d s per run%n", n, seconds);
        for (int r = 0; r < repeats; r++) {
            for (boolean sealed : new boolean[] {false, true}) {
                System.out.printf("run %d %-9s %.3f CPU-s/s%n", r + 1, sealed ? "sealed" : "unsealed", run(n, seconds, sealed));
            }
        }
    }

    private static double run(int n, int seconds, boolean sealed) throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        List<DatagramSocket> held = new ArrayList<>();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DatagramSocket s = new DatagramSocket(0, lo);
            held.add(s);
            addresses.add(new InetSocketAddress(lo, s.getLocalPort()));
        }
        held.forEach(DatagramSocket::close);
        byte[] key = null;
        if (sealed) {
            key = new byte[DetectorConfig.KEY_BYTES];
            new SplittableRandom(1).nextBytes(key);
        }
        RingParameters p = RingParameters.of(Duration.ofMillis(100), Duration.ofSeconds(1), Overlay.BMG);
        EventLoopGroup group = new NioEventLoopGroup(2);
        List<NettyRingDetector> members = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                members.add(NettyRingDetector.start(new DetectorConfig(addresses, i, p, StartMode.BOOTSTRAP, key),
                        e -> { }, new SimpleMeterRegistry(), group));
            }
            Thread.sleep(5_000);
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1_000L);
            return (os.getProcessCpuTime() - cpu0) / (double) (System.nanoTime() - t0);
        } finally {
            members.forEach(NettyRingDetector::close);
            group.shutdownGracefully().awaitUninterruptibly();
        }
    }
}
