package org.fabricmanager.daemon.faults;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.registry.SwitchRegistry;
import org.fabricmanager.daemon.testing.ManualControlLoop;

/** Fault managers with the ring detector on, for tests that plan rings on a manual clock. */
final class RingFaultManagers {
    private RingFaultManagers() {
    }

    /**
     * Switch {@code i}'s detector endpoint: a distinct loopback address (127.9.x.y). The daemon's member is real and
     * heartbeats its observer, so test endpoints must be addresses of this host, where nobody listens.
     */
    static InetSocketAddress endpoint(int i, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 9, (byte) (i >> 8), (byte) i}), port);
    }

    /**
     * A fault manager whose own ring member listens on a free loopback UDP port (η 100 ms, δ 500 ms, BMG overlay,
     * agents' port 7684), on {@code loop}'s clock.
     */
    static FaultManager start(ManualControlLoop loop, SwitchRegistry registry, DaemonMetrics metrics, FaultActions actions)
            throws Exception {
        FaultManager faults = beforeFirstConvergence(loop, registry, metrics, actions);
        faults.tablesConverged(); // as after the daemon's first convergence: planRing plans at once
        return faults;
    }

    /** As {@link #start}, before the first tables converged: the first planRing waits for them. */
    static FaultManager beforeFirstConvergence(ManualControlLoop loop, SwitchRegistry registry, DaemonMetrics metrics,
                                               FaultActions actions) throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        DaemonConfig.Faults settings = new DaemonConfig.Faults(50, 3, 10_000, 2_000,
                new DaemonConfig.Detector(true, 100, 500, "bmg", "127.0.0.1", port, 7684, 30_000));
        return new FaultManager(settings, 1, FaultFixtures.onLoop(loop, registry, new MilestoneLog(), metrics, actions),
                null);
    }
}
