package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Security;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.IssuedCertificate;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.topology.PgftSpec;

/**
 * The part of a standby's rehearsal that has agents: the rehearsal's manager discovers the expected fabric from an
 * agent per switch in this JVM, reuses the stored routing and pushes it, until it converges. A takeover then runs the
 * sessions' and discovery's code compiled: without it the new leader's JIT compiled that code while the agents came
 * back, its compiler threads busy for about as long as the return (docs/performance.md, "Choices in the code,
 * measured").
 *
 * <p>Nothing of the group is used: the agents and the manager trust a throw-away CA made for the rehearsal (the
 * daemon holds no switch certificates and no CA key), whose files sit in the rehearsal's own copy of the state and go
 * with it; the manager listens on loopback, on a port the system picks; the failure detector is off. Only fabrics up
 * to {@link #MAX_ENTRIES} table entries are rehearsed so (every table is pushed once, in memory).
 */
final class AgentRehearsal {
    /** Switches x end nodes of the largest fabric rehearsed with agents: 768 x 4,096 is 3.1 million. */
    static final long MAX_ENTRIES = 8L << 20;
    /** The rehearsal gives up waiting for convergence after this long (a busy host): what ran is compiled anyway. */
    static final long BUDGET_MS = 30_000;
    private static final Duration VALIDITY = Duration.ofHours(2);

    private AgentRehearsal() {
    }

    /** Whether {@code config}'s fabric is rehearsed with agents (never without a southbound). */
    static boolean applies(DaemonConfig config, RehearsalAgents agents) {
        PgftSpec spec = config.fabric().expectedSpec();
        return agents != null && config.southbound().enabled() && spec != null && (long) spec.totalSwitchCount() * spec.nodeCount() <= MAX_ENTRIES;
    }

    /**
     * Starts a manager on {@code scratch} (the rehearsal's configuration on its copy of the state, {@code copy}),
     * with TLS under a throw-away CA and no failure detector, and the agents; waits for convergence; closes both.
     *
     * @return whether the manager converged within {@link #BUDGET_MS}
     */
    static boolean run(DaemonConfig scratch, Path copy, RehearsalAgents agents) throws IOException, InterruptedException {
        PgftSpec spec = scratch.fabric().expectedSpec();
        Security real = scratch.security();
        // a plaintext group (security.insecure) rehearses in plaintext: its manager said so at its own start
        CertificateAuthority ca = real.tlsConfigured() ? CertificateAuthority.create("fabric-manager rehearsal", VALIDITY,
                Clock.systemUTC(), KeyType.ECDSA_P256) : null;
        Security security = ca == null ? real : throwAway(ca, copy, real);
        DaemonConfig.Faults f = scratch.faults();
        DaemonConfig.Detector d = f.detector();
        DaemonConfig config = scratch.withSecurity(security).withFaults(new DaemonConfig.Faults(f.settleMs(),
                f.flapThreshold(), f.flapWindowMs(), f.quarantineMs(), new DaemonConfig.Detector(false, d.etaMs(),
                d.deltaMs(), d.overlay(), d.bind(), 0, d.agentPort(), d.startupGraceMs(), d.secondOpinionMs())));
        CountDownLatch converged = new CountDownLatch(1);
        FabricManagerDaemon manager = FabricManagerDaemon.start(config, StartOptions.of(List.of(m -> {
            if (m.kind() == Milestone.Kind.CONVERGED) {
                converged.countDown();
            }
        })));
        try (RehearsalAgents.Running running = agents.start(spec, new InetSocketAddress("127.0.0.1",
                manager.southboundAddress().getPort()), guid -> {
                    if (ca == null) {
                        return null;
                    }
                    IssuedCertificate c = ca.issueSwitch(guid, null, VALIDITY);
                    return new TlsMaterial(List.of(c.certificate()), c.key(), List.of(ca.certificate()));
                }, real.tlsProvider())) {
            return converged.await(BUDGET_MS, TimeUnit.MILLISECONDS);
        } finally {
            manager.close();
        }
    }

    /** The rehearsal's security: a daemon certificate of {@code ca}, in files of the state copy. */
    private static Security throwAway(CertificateAuthority ca, Path copy, Security real)
            throws IOException {
        IssuedCertificate daemon = ca.issueDaemon(List.of("localhost"), List.of(InetAddress.getLoopbackAddress()), VALIDITY);
        Path pki = Files.createDirectories(copy.resolve("rehearsal-pki"));
        PemFiles.writeCertificates(pki.resolve("ca.crt"), List.of(ca.certificate()));
        PemFiles.writeCertificates(pki.resolve("daemon.crt"), List.of(daemon.certificate()));
        PemFiles.writePrivateKey(pki.resolve("daemon.key"), daemon.key());
        // files one by one, not a directory: no CA key beside them (the CA's key never leaves this JVM)
        return new Security(false, null, pki.resolve("daemon.crt").toString(),
                pki.resolve("daemon.key").toString(), pki.resolve("ca.crt").toString(), real.incarnationAheadMs(),
                real.tlsProvider());
    }
}
