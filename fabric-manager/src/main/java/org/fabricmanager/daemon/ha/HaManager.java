package org.fabricmanager.daemon.ha;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.SouthboundSecurity;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.store.StateDirectoryLock;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.pki.TlsMaterial;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A hot-standby manager ({@code ha.enabled: true}): runs this daemon's Raft member and, while the member
 * is the ready leader with the whole committed state applied to its state directory, the manager itself
 * (a {@link FabricManagerDaemon} whose stores write through Raft). The manager starts from the state
 * directory as a restarted daemon does, so it reuses the stored routing and pushes nothing to a switch
 * that reports the table it should hold. When the member stops leading, the manager is closed at once.
 * While it does not lead, the member serves the same southbound and REST ports as a standby
 * ({@link StandbyListeners}): agents are redirected to the active manager, operators see the group's state.
 */
public final class HaManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HaManager.class);
    private static final long POLL_MS = 50;
    private static final long RETRY_MS = 1_000;

    private final DaemonConfig config;
    private final Consumer<String> announce;
    private final HaNode node;
    private final Thread watcher;
    private final StateDirectoryLock lock;
    private final StandbyListeners standby;
    /** Agents for the rehearsal ({@code null}: a rehearsal without agents). */
    private final RehearsalAgents rehearsalAgents;
    /** Tells this standby when the leader's process ended, so that it need not wait out an election timeout. */
    private final LeaderWatch leaderWatch;
    /** Who campaigns, and when, once the watch finds the leader gone. */
    private final Campaigns campaigns;
    /** Released by the Raft member on every change the watcher may act on; the watcher polls without one too. */
    private final Semaphore changed;
    /** Whether this JVM rehearsed a manager start ({@link ManagerRehearsal}); watcher thread. */
    private boolean rehearsed;
    /** What this member tells of the group: its view at the last poll, REST's body, the standby's answers. */
    private final GroupView group;
    /** Whether the running manager's endpoints are committed for its term (watcher thread). */
    private boolean published;
    /** The endpoints submitted at election, before the manager started, and their commit (watcher thread). */
    private Map.Entry<LeaderEndpoints, CompletableFuture<Void>> early;
    private volatile boolean closing;
    /** The running manager, while this member leads (watcher thread, and close after it ended). */
    private FabricManagerDaemon daemon;
    private long daemonTerm = -1;
    private String lastRole = "";
    /** When this member was first seen leading its current term (nanoTime; -1 when not leading). */
    private long leaderSince = -1;

    private HaManager(DaemonConfig config, Consumer<String> announce, HaNode node, StateDirectoryLock lock,
                      Semaphore changed, RehearsalAgents rehearsalAgents) {
        this.config = config;
        this.rehearsalAgents = rehearsalAgents;
        this.changed = changed;
        this.announce = announce;
        this.node = node;
        this.lock = lock;
        this.campaigns = new Campaigns(node, changed::release);
        this.group = new GroupView(node, campaigns, config.ha().electionTimeoutMs(), () -> daemon != null);
        this.standby = new StandbyListeners(config, group, node);
        HaMetrics.bind(standby.registry(), group::view, group::elections, node.commits(), node.refusals(), node.transfers());
        this.watcher = new Thread(this::watch, "fm-ha-role");
        this.leaderWatch = new LeaderWatch("fm-ha-leader-watch", campaigns::leaderGone);
    }

    /**
     * Starts the Raft member; the manager follows once this member leads.
     *
     * @param announce receives the lines {@code run} prints: role changes and, when leading, the addresses
     * @throws ConfigException when ha is not enabled or the Raft port cannot be bound
     */
    public static HaManager start(DaemonConfig config, Consumer<String> announce) {
        return start(config, announce, null);
    }

    /**
     * As {@link #start(DaemonConfig, Consumer)}, with agents for the standby's rehearsal (docs/operations.md, "Hot
     * standby"); {@code null} rehearses without agents.
     */
    public static HaManager start(DaemonConfig config, Consumer<String> announce, RehearsalAgents rehearsalAgents) {
        if (!config.ha().enabled()) {
            throw new ConfigException("ha.enabled is false: run the daemon directly");
        }
        // the Raft port uses the southbound's certificate and CA: a member is the daemon, and its peers are daemons
        TlsMaterial tls = config.security().tlsConfigured() ? SouthboundSecurity.material(config.security()) : null;
        Path dir = config.state().path();
        try {
            Files.createDirectories(dir.resolve("ha"));
            ownerOnly(dir.resolve("ha"));
        } catch (IOException e) {
            throw new StoreException("state directory " + dir + ": cannot create " + dir.resolve("ha") + ": " + e);
        }
        // the member holds <state>/ha/lock for its whole life, the manager <state>/lock while it runs: two
        // members on one directory would share a Raft identity and its votes
        StateDirectoryLock lock = StateDirectoryLock.acquire(dir.resolve("ha"));
        HaNode node;
        Semaphore changed = new Semaphore(0);
        try {
            node = new HaNode(config.ha(), dir, tls, changed::release);
            node.start();
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.error("ha: the Raft member did not start", e);
            lock.close();
            throw new ConfigException("ha: cannot start the Raft member " + config.ha().nodeId() + " on "
                    + config.ha().peerAddresses().get(config.ha().nodeId()) + ": " + e.getMessage(), e);
        }
        String raftPort = config.ha().peerAddresses().get(config.ha().nodeId());
        if (tls != null) {
            LOG.info("ha: the Raft port {} runs mutual TLS as '{}': peers must present a manager certificate of the fabric"
                    + " CA", raftPort, tls.certificate().getSubjectX500Principal().getName());
        } else {
            LOG.warn("ha: the Raft port {} runs WITHOUT TLS ({}): any host that reaches it can vote and append to the"
                    + " managers' log, and so decide the fabric's state; keep it reachable by the members of ha.peers only,"
                    + " or configure security.pkiDirectory (docs/security.md)", raftPort,
                    config.security().insecure() ? "security.insecure: true" : "no TLS files configured");
        }
        HaManager m = new HaManager(config, announce, node, lock, changed, rehearsalAgents);
        m.announce.accept("ha " + node.nodeId() + " started, peers " + config.ha().peers());
        m.watcher.start();
        return m;
    }

    /**
     * Makes the Raft log's directory owner-only (0700): its segments and snapshots hold every replicated state file,
     * the session-ticket secrets among them, written with whatever mode Ratis gives its files.
     */
    static void ownerOnly(Path dir) throws IOException {
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system
        }
    }

    private void watch() {
        while (!closing) {
            long pause = POLL_MS;
            try {
                step(node.view());
            } catch (IOException | RuntimeException e) {
                // e.g. the manager cannot bind its port: say so once a second, not at every poll
                LOG.warn("ha: {}", e.toString());
                pause = RETRY_MS;
            } catch (InterruptedException e) {
                return;
            }
            try {
                // woken early by the member (a new leader, its first commit of the term, an applied entry), so
                // that a takeover does not wait for the next poll; a failure is retried after the full pause
                if (pause == POLL_MS) {
                    changed.tryAcquire(pause, TimeUnit.MILLISECONDS);
                    changed.drainPermits();
                } else {
                    Thread.sleep(pause);
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One turn of the role loop: follow the member's view, and start, serve or stop the manager to match it. */
    private void step(HaNode.View v) throws InterruptedException, IOException {
        group.seen(v);
        leaderWatch.follow(watchTarget(v));
        campaigns.backup(v);
        group.countElections(v);
        if (daemon != null && (!v.leading() || v.term() != daemonTerm)) {
            LOG.warn("ha: {} no longer leads term {} (now {} in term {}): stopping the manager", node.nodeId(), daemonTerm,
                    v.role(), v.term());
            stopManager();
        }
        if (daemon == null) {
            announceRole(v);
        }
        if (daemon == null && v.leading() && v.leaderReady() && v.appliedIndex() >= v.commitIndex()) {
            // every committed write of earlier leaders is in the state directory now
            startManager(v.term());
        }
        if (daemon != null) {
            serveActive();
        } else {
            serveStandby(v);
        }
    }

    /** Prints the member's role when it changed (while no manager runs: a running manager announces itself). */
    private void announceRole(HaNode.View v) {
        String role = group.roleLine();
        if (!role.equals(lastRole)) {
            if (group.campaigning() && !lastRole.startsWith("CANDIDATE term " + v.term())) {
                LOG.info("ha: {} knows no leader in term {} and its candidacies get no majority of the {} members: it"
                        + " keeps asking for votes", node.nodeId(), v.term(), node.peers().size());
            }
            lastRole = role;
            leaderSince = v.leading() ? System.nanoTime() : -1;
            announce.accept("ha " + node.nodeId() + " " + role);
        }
    }

    /** Starts the manager for {@code term}; the standby listeners give it their ports. */
    private void startManager(long term) throws InterruptedException {
        long begin = System.nanoTime();
        daemonTerm = term;
        published = false;
        // with configured ports the manager's endpoints are known now: committed while it starts, the other
        // standbys send their held agents here (this member's standby port holds them until the manager
        // listens on it), instead of waiting for a commit after the start
        early = predictedEndpoints().map(e -> Map.entry(e, node.write(daemonTerm, LeaderEndpoints.FILE, e.encode())))
                .orElse(null);
        MeterRegistry registry = DaemonMetrics.newRegistry();
        HaMetrics.bind(registry, group::view, group::elections, node.commits(), node.refusals(), node.transfers());
        long[] released = new long[2];
        try {
            // the ports go to the manager once its state is loaded, just before it binds them; the agents
            // held here wait on their connections until it listens
            daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of()).registry(registry)
                    .rest(List.of(new HaResource(group::ha))).replicated(node.files(daemonTerm), daemonTerm, () -> {
                        released[0] = System.nanoTime();
                        standby.stopAccepting();
                        released[1] = System.nanoTime();
                    }));
        } catch (RuntimeException | InterruptedException e) {
            standby.close();
            throw e;
        }
        standby.managerStarted(daemon, endpoints().southbound());
        announceActive(begin, released);
    }

    /**
     * Logs the start's times (since this member was elected, the start's own, the ports' handover between
     * {@code released[0]} and {@code released[1]}) and prints where the manager serves.
     */
    private void announceActive(long begin, long[] released) {
        long started = System.nanoTime();
        LOG.info("ha: {} active in term {}: leader for {} ms, manager started in {} ms (standby ports released in {} ms,"
                + " unbound for {} ms)", node.nodeId(), daemonTerm,
                leaderSince < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(begin - leaderSince),
                TimeUnit.NANOSECONDS.toMillis(started - begin), TimeUnit.NANOSECONDS.toMillis(released[1] - released[0]),
                TimeUnit.NANOSECONDS.toMillis(started - released[0]));
        announce.accept("ha " + node.nodeId() + " ACTIVE term " + daemonTerm);
        if (daemon.southboundAddress() != null) {
            announce.accept("southbound " + daemon.southboundAddress().getHostString() + ":"
                    + daemon.southboundAddress().getPort());
        }
        announce.accept("rest " + daemon.restUrl());
    }

    /** While the manager runs: its endpoints committed once, then the standby listeners closed. */
    private void serveActive() throws IOException {
        if (!published) {
            publish();
        }
        // after the endpoints are committed: closing waits for the standby's I/O threads to end
        standby.close();
    }

    /** While no manager runs: the standby listeners open, held agents sent to a live leader, a start rehearsed. */
    private void serveStandby(HaNode.View v) throws InterruptedException {
        standby.open();
        // a rotation the leader committed: the standby's southbound opens (and seals) tickets with it too
        standby.refreshTicketKeys();
        String leader = group.leaderSouthbound(v);
        if (leader != null) {
            standby.releaseParked(leader);
        }
        rehearseOnce(v);
    }

    /** The leader a follower watches: its id, term and Raft port; {@code null} when this member leads or knows none. */
    private LeaderWatch.Target watchTarget(HaNode.View v) {
        if (!"FOLLOWER".equals(v.role()) || v.leaderId() == null || v.leaderId().equals(node.nodeId())) {
            return null;
        }
        InetSocketAddress address = node.raftAddress(v.leaderId());
        return address == null ? null : new LeaderWatch.Target(v.leaderId(), v.term(), address);
    }

    /**
     * Once this member is a standby in step with the group and the replicated state holds a stored routing,
     * rehearses a manager start on another thread ({@link ManagerRehearsal}), so that a takeover starts warm
     * instead of paying for a cold start. The group's leader needs nothing from it.
     */
    private void rehearseOnce(HaNode.View v) {
        if (rehearsed || v.leading() || group.standbyUnready() != null
                || !Files.exists(config.state().path().resolve("routing.state"))) {
            return;
        }
        rehearsed = true;
        Thread t = new Thread(() -> {
            long ms = ManagerRehearsal.run(config, rehearsalAgents);
            if (ms >= 0) {
                LOG.info("ha: {} rehearsed a manager start on a copy of its state in {} ms", node.nodeId(), ms);
                // not an "ha ..." line: those say the member's role, which this is not
                announce.accept("hot " + node.nodeId() + ": manager start rehearsed in " + ms + " ms");
            }
        }, "fm-ha-rehearsal");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Commits where this manager serves, so that standbys redirect agents and REST clients to it. A wildcard
     * bind is advertised as this member's host in {@code ha.peers}.
     */
    private void publish() throws IOException {
        LeaderEndpoints e = endpoints();
        long begin = System.nanoTime();
        Map.Entry<LeaderEndpoints, CompletableFuture<Void>> submitted = early;
        early = null;
        if (submitted != null && submitted.getKey().equals(e) && committedInTime(submitted.getValue())) {
            published = true;
            LOG.info("ha: {} serves agents on {} and REST on {} (committed for the standbys' redirects while it started)",
                    node.nodeId(), e.southbound(), e.rest());
            return;
        }
        node.files(daemonTerm).write(Path.of(LeaderEndpoints.FILE), e.encode());
        published = true;
        LOG.info("ha: {} serves agents on {} and REST on {} (committed for the standbys' redirects in {} ms)",
                node.nodeId(), e.southbound(), e.rest(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
    }

    /** Whether the early commit of the endpoints succeeded (waiting for it as long as any write). */
    private boolean committedInTime(CompletableFuture<Void> write) {
        try {
            write.get(Math.max(10_000L, 10L * config.ha().electionTimeoutMs()), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("ha: {} endpoints not committed before the start: {}", node.nodeId(), e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Where the manager will serve, when the configuration fixes both ports (the standby listeners use the
     * same ones); empty with a port 0 (chosen at bind).
     */
    private Optional<LeaderEndpoints> predictedEndpoints() {
        boolean agents = config.southbound().enabled();
        if (agents && config.southbound().port() == 0 || config.rest().port() == 0) {
            return Optional.empty();
        }
        String raftHost = node.raftAddress(node.nodeId()).getHostString();
        String scheme = config.rest().tls() == null ? "http" : "https";
        return Optional.of(new LeaderEndpoints(node.nodeId(), daemonTerm, !agents ? null
                : bracket(advertised(config.southbound().bind(), raftHost)) + ":" + config.southbound().port(),
                scheme + "://" + bracket(advertised(config.rest().bind(), raftHost)) + ":" + config.rest().port()));
    }

    /** Where the running manager serves, as standbys and agents are told. */
    private LeaderEndpoints endpoints() {
        String raftHost = node.raftAddress(node.nodeId()).getHostString();
        InetSocketAddress sb = daemon.southboundAddress();
        String restHost = advertised(daemon.restAddress().getHostString(), raftHost);
        return new LeaderEndpoints(node.nodeId(), daemonTerm, sb == null ? null
                : bracket(advertised(sb.getHostString(), raftHost)) + ":" + sb.getPort(),
                daemon.restUrl().substring(0, daemon.restUrl().indexOf("://") + 3)
                + bracket(restHost) + ":" + daemon.restAddress().getPort());
    }

    private static String advertised(String bind, String raftHost) {
        return bind.isEmpty() || bind.equals("0.0.0.0") || bind.equals("::") || bind.equals("0:0:0:0:0:0:0:0") ? raftHost : bind;
    }

    private static String bracket(String host) {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    private void stopManager() {
        FabricManagerDaemon d = daemon;
        daemon = null;
        daemonTerm = -1;
        published = false;
        lastRole = "";
        early = null;
        d.close();
    }

    /** Completes, with the reason, when this member cannot hold the committed state (a full disk): stop it. */
    public CompletableFuture<String> failure() {
        return node.storageFailure();
    }

    /** The running manager, {@code null} on a standby. */
    public FabricManagerDaemon daemon() {
        return daemon;
    }

    @Override
    public void close() {
        closing = true;
        watcher.interrupt();
        try {
            watcher.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        leaderWatch.close();
        if (daemon != null) {
            stopManager();
        }
        standby.close();
        try {
            node.close();
        } catch (IOException e) {
            LOG.warn("ha: closing the Raft member: {}", e.toString());
        } finally {
            lock.close();
        }
    }
}
