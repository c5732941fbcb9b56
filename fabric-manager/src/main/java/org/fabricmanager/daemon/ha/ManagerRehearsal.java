package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Ha;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.config.Rest;
import org.fabricmanager.daemon.config.Security;
import org.fabricmanager.daemon.config.SouthboundSecurity;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsWarmup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What makes a standby hot: it starts and closes a manager once, from a private copy of the replicated
 * state directory, listening on loopback ports the system picks, before it may have to take over. A
 * takeover then runs code this JVM has already loaded and compiled: the manager's start in a JVM that never
 * ran it pays for class loading and the first parse of the stored indices and routing, many times a rehearsed
 * start (docs/performance.md, "Choices in the code, measured"). The copy keeps the rehearsal from touching the
 * real state: its stores write locally into the copy (a manager writes on close), which is deleted afterwards;
 * the rehearsal has no agents, so it pushes nothing and starts no detector member.
 *
 * <p>With TLS the rehearsal also runs {@value #TLS_HANDSHAKES} southbound handshakes in memory ({@link TlsWarmup}):
 * at a takeover every agent's handshake arrives within a second, and in a JVM that never ran one the new leader
 * paid for loading and compiling the TLS engine's Java half and the PKIX check on those first handshakes, each
 * costing several times a warm one.
 */
final class ManagerRehearsal {
    private static final Logger LOG = LoggerFactory.getLogger(ManagerRehearsal.class);
    /** Files of the state directory that are no state: the daemon's own lock. */
    private static final String LOCK = "lock";
    /**
     * Handshakes of the TLS warm-up: about where a handshake's cost stops falling (docs/performance.md, "Choices in
     * the code, measured").
     */
    static final int TLS_HANDSHAKES = 1_000;
    /** At most this long for the warm-up: on a host busy with other work it stops early, warm enough. */
    static final long TLS_BUDGET_MS = 15_000;

    private ManagerRehearsal() {
    }

    /**
     * Starts and closes a manager on a copy of {@code config}'s state directory (the calling thread
     * waits). Any failure is logged and ignored: a cold start is slower, not wrong.
     *
     * @return how long start and close took, in milliseconds, or -1 when the rehearsal failed
     */
    static long run(DaemonConfig config) {
        return run(config, null);
    }

    /**
     * As {@link #run(DaemonConfig)}; when {@code agents} is given and the fabric is small enough
     * ({@link AgentRehearsal}), the rehearsal's manager also discovers the expected fabric from in-process agents and
     * converges, so that a takeover also runs the sessions' and discovery's code compiled.
     */
    static long run(DaemonConfig config, RehearsalAgents agents) {
        long begin = System.nanoTime();
        Path copy = null;
        try {
            copy = Files.createTempDirectory("fm-ha-rehearsal");
            copyStateFiles(config.state().path(), copy);
            DaemonConfig scratch = scratch(config, copy);
            if (AgentRehearsal.applies(config, agents)) {
                // its manager's start is the rehearsal's start as well
                long agentsBegin = System.nanoTime();
                boolean converged = AgentRehearsal.run(scratch, copy, agents);
                LOG.info("ha: rehearsal with an agent per switch of {}: {} in {} ms", config.fabric().expectedSpec(),
                        converged ? "converged" : "not converged (stopped there: what ran is compiled)",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - agentsBegin));
            } else {
                FabricManagerDaemon d = FabricManagerDaemon.start(scratch, StartOptions.of(List.of()));
                d.close();
            }
            if (config.southbound().enabled()) {
                warmTls(config.security());
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
        } catch (IOException | RuntimeException e) {
            LOG.warn("ha: rehearsing a manager start failed ({}); a takeover will start cold", e.toString());
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } finally {
            if (copy != null) {
                delete(copy);
            }
        }
    }

    /** Runs the southbound's TLS warm-up when the daemon has TLS material; a failure leaves the takeover colder. */
    private static void warmTls(Security security) {
        if (!security.tlsConfigured()) {
            return;
        }
        TlsMaterial material = SouthboundSecurity.material(security);
        TlsWarmup.Result r = TlsWarmup.run(material, security.tlsProvider().engine(material), TLS_HANDSHAKES, TLS_BUDGET_MS);
        if (r.failure() != null) {
            LOG.info("ha: TLS warm-up stopped after {} handshakes ({}); a takeover pays for cold TLS code", r.handshakes(),
                    r.failure());
        } else {
            LOG.info("ha: TLS warm-up: {} southbound handshakes in memory in {} ms", r.handshakes(), r.millis());
        }
    }

    /**
     * The configuration of the rehearsal: the copy as state, loopback on ports the system picks, no group, and no OpenSM
     * provider on OpenSM's socket (it would take over the socket OpenSM's plug-in reaches the active manager on). A
     * manager without a southbound (an OpenSM-only group) needs a provider: its socket is a file of the copy.
     */
    static DaemonConfig scratch(DaemonConfig config, Path stateCopy) {
        Rest r = config.rest();
        OpenSm o = config.opensm();
        OpenSm opensm = config.southbound().enabled() ? OpenSm.of(null, null, null, null)
                : new OpenSm(stateCopy.resolve("rehearsal-opensm.sock").toString(), o.socketMode(), o.allowUsers(),
                        o.maxSubnetBytes(), o.socketGroup());
        DaemonConfig c = config.withPorts(0, 0).withSouthboundBind("127.0.0.1").withStateDirectory(stateCopy)
                .withHa(Ha.defaults());
        return new DaemonConfig(c.southbound(), new Rest("127.0.0.1", 0, r.ioThreads(), r.adminToken(),
                r.adminTokenFile(), r.tls(), r.maxConnections(), r.idleTimeoutMs()), c.fabric(), c.discovery(), c.routing(), c.push(), c.state(), c.faults(),
                c.security(), c.ha(), opensm, c.linkHealth());
    }

    private static void copyStateFiles(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                // regular files only (the Raft log and snapshots live in ha/), not the applier's hidden temporaries
                if (Files.isRegularFile(f) && !name.equals(LOCK) && !name.startsWith(".")) {
                    try {
                        // with their modes: the state files are owner-only (ticket-keys holds secrets, and a copy others
                        // could read would not be used)
                        Files.copy(f, to.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
                    } catch (NoSuchFileException e) {
                        // replaced by the applier between list and copy: the rehearsal does without it
                    }
                }
            }
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("ha: cannot delete the rehearsal's state copy {}: {}", dir, e.toString());
        }
    }
}
