package org.fabricmanager.daemon.ha;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.metrics.DaemonMetrics;
import org.fabricmanager.daemon.store.StateDirectoryLock;
import org.fabricmanager.daemon.store.StoreException;
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
    /** The member's view at the last poll, {@code null} before it (watcher writes, REST and meters read). */
    private volatile HaNode.View view;
    /** Terms begun since start, as this member saw them (watcher thread writes). */
    private final java.util.concurrent.atomic.AtomicLong elections = new java.util.concurrent.atomic.AtomicLong();
    private long lastTerm = -1;
    /** Whether the running manager's endpoints are committed for its term (watcher thread). */
    private boolean published;
    private volatile boolean closing;
    /** The running manager, while this member leads (watcher thread, and close after it ended). */
    private FabricManagerDaemon daemon;
    private long daemonTerm = -1;
    private String lastRole = "";
    /** When this member was first seen leading its current term (nanoTime; -1 when not leading). */
    private long leaderSince = -1;

    private HaManager(DaemonConfig config, Consumer<String> announce, HaNode node, StateDirectoryLock lock) {
        this.config = config;
        this.announce = announce;
        this.node = node;
        this.lock = lock;
        this.standby = new StandbyListeners(config, new Standby());
        HaMetrics.bind(standby.registry(), () -> view, elections::get, node.commits());
        this.watcher = new Thread(this::watch, "fm-ha-role");
    }

    /**
     * Starts the Raft member; the manager follows once this member leads.
     *
     * @param announce receives the lines {@code run} prints: role changes and, when leading, the addresses
     * @throws ConfigException when ha is not enabled or the Raft port cannot be bound
     */
    public static HaManager start(DaemonConfig config, Consumer<String> announce) {
        if (!config.ha().enabled()) {
            throw new ConfigException("ha.enabled is false: run the daemon directly");
        }
        java.nio.file.Path dir = config.state().path();
        try {
            java.nio.file.Files.createDirectories(dir.resolve("ha"));
        } catch (IOException e) {
            throw new StoreException("state directory " + dir + ": cannot create " + dir.resolve("ha") + ": " + e);
        }
        // the member holds <state>/ha/lock for its whole life, the manager <state>/lock while it runs: two
        // members on one directory would share a Raft identity and its votes
        StateDirectoryLock lock = StateDirectoryLock.acquire(dir.resolve("ha"));
        HaNode node;
        try {
            node = new HaNode(config.ha(), dir);
            node.start();
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.error("ha: the Raft member did not start", e);
            lock.close();
            throw new ConfigException("ha: cannot start the Raft member " + config.ha().nodeId() + " on "
                    + config.ha().peerAddresses().get(config.ha().nodeId()) + ": " + e.getMessage(), e);
        }
        HaManager m = new HaManager(config, announce, node, lock);
        m.announce.accept("ha " + node.nodeId() + " started, peers " + config.ha().peers());
        m.watcher.start();
        return m;
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
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void step(HaNode.View v) throws InterruptedException, IOException {
        view = v;
        if (lastTerm >= 0 && v.term() > lastTerm) {
            elections.addAndGet(v.term() - lastTerm);
        }
        lastTerm = v.term();
        if (daemon != null && (!v.leading() || v.term() != daemonTerm)) {
            LOG.warn("ha: {} no longer leads term {} (now {} in term {}): stopping the manager", node.nodeId(), daemonTerm,
                    v.role(), v.term());
            stopManager();
        }
        String role = (v.leading() ? "LEADER" : "FOLLOWER".equals(v.role()) ? "STANDBY" : v.role()) + " term " + v.term()
                + (v.leaderId() == null || v.leading() ? "" : ", leader " + v.leaderId());
        if (daemon == null && !role.equals(lastRole)) {
            lastRole = role;
            leaderSince = v.leading() ? System.nanoTime() : -1;
            announce.accept("ha " + node.nodeId() + " " + role);
        }
        if (daemon == null && v.leading() && v.leaderReady() && v.appliedIndex() >= v.commitIndex()) {
            // every committed write of earlier leaders is in the state directory now; the standby listeners
            // give the ports to the manager
            long begin = System.nanoTime();
            standby.close();
            long closed = System.nanoTime();
            daemonTerm = v.term();
            published = false;
            MeterRegistry registry = DaemonMetrics.newRegistry();
            HaMetrics.bind(registry, () -> view, elections::get, node.commits());
            daemon = FabricManagerDaemon.start(config, List.of(), registry, null, List.of(new HaResource(this::ha)),
                    node.files(daemonTerm), daemonTerm);
            LOG.info("ha: {} active in term {}: leader for {} ms, standby ports released in {} ms, manager started in {} ms",
                    node.nodeId(), daemonTerm, leaderSince < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(begin - leaderSince),
                    TimeUnit.NANOSECONDS.toMillis(closed - begin), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed));
            announce.accept("ha " + node.nodeId() + " ACTIVE term " + daemonTerm);
            announce.accept("southbound " + daemon.southboundAddress().getHostString() + ":"
                    + daemon.southboundAddress().getPort());
            announce.accept("rest " + daemon.restUrl());
        }
        if (daemon != null && !published) {
            publish();
        }
        if (daemon == null) {
            standby.open();
        }
    }

    /**
     * Commits where this manager serves, so that standbys redirect agents and REST clients to it. A wildcard
     * bind is advertised as this member's host in {@code ha.peers}.
     */
    private void publish() throws IOException {
        String raftHost = hostOf(node.peers().get(node.nodeId()));
        String sbHost = advertised(daemon.southboundAddress().getHostString(), raftHost);
        String restHost = advertised(daemon.restAddress().getHostString(), raftHost);
        LeaderEndpoints e = new LeaderEndpoints(node.nodeId(), daemonTerm, bracket(sbHost) + ":"
                + daemon.southboundAddress().getPort(), daemon.restUrl().substring(0, daemon.restUrl().indexOf("://") + 3)
                + bracket(restHost) + ":" + daemon.restAddress().getPort());
        long begin = System.nanoTime();
        node.files(daemonTerm).write(java.nio.file.Path.of(LeaderEndpoints.FILE), e.encode());
        published = true;
        LOG.info("ha: {} serves agents on {} and REST on {} (committed for the standbys' redirects in {} ms)",
                node.nodeId(), e.southbound(), e.rest(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
    }

    private static String hostOf(String hostPort) {
        String h = hostPort.substring(0, hostPort.lastIndexOf(':'));
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    private static String advertised(String bind, String raftHost) {
        return bind.isEmpty() || bind.equals("0.0.0.0") || bind.equals("::") || bind.equals("0:0:0:0:0:0:0:0") ? raftHost : bind;
    }

    private static String bracket(String host) {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    /** The body of {@code GET /api/v1/ha} on any member. */
    Map<String, Object> ha() {
        HaNode.View v = view;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("role", v == null ? "UNKNOWN" : v.role());
        out.put("nodeId", node.nodeId());
        out.put("leaderId", v == null ? null : v.leaderId());
        out.put("term", v == null ? 0 : v.term());
        out.put("active", daemon != null);
        List<Map<String, String>> peers = new ArrayList<>();
        for (Map.Entry<String, String> p : new TreeMap<>(node.peers()).entrySet()) {
            peers.add(Map.of("id", p.getKey(), "address", p.getValue()));
        }
        out.put("peers", peers);
        out.put("commitIndex", v == null ? 0 : v.commitIndex());
        out.put("appliedIndex", v == null ? 0 : v.appliedIndex());
        out.put("elections", elections.get());
        Optional<LeaderEndpoints> e = leaderEndpoints(v);
        out.put("leaderSouthbound", e.map(LeaderEndpoints::southbound).orElse(null));
        out.put("leaderRest", e.map(LeaderEndpoints::rest).orElse(null));
        return out;
    }

    private Optional<LeaderEndpoints> leaderEndpoints(HaNode.View v) {
        return v == null || v.leaderId() == null ? Optional.empty() : node.endpoints(v.leaderId(), v.term());
    }

    /** What the standby listeners tell (REST I/O threads, southbound I/O threads). */
    private final class Standby implements StandbyListeners.Source {
        @Override
        public Map<String, Object> ha() {
            return HaManager.this.ha();
        }

        @Override
        public String nodeId() {
            return node.nodeId();
        }

        @Override
        public String leaderId() {
            HaNode.View v = view;
            return v == null ? null : v.leaderId();
        }

        @Override
        public String leaderRest() {
            return leaderEndpoints(view).map(LeaderEndpoints::rest).orElse(null);
        }

        @Override
        public String leaderSouthbound() {
            return leaderEndpoints(view).map(LeaderEndpoints::southbound).orElse(null);
        }

        @Override
        public String standbyUnready() {
            HaNode.View v = view;
            if (v == null) {
                return "the Raft member has not reported its state yet";
            }
            if (!"FOLLOWER".equals(v.role())) {
                return "role " + v.role() + " in term " + v.term() + (v.leading()
                        ? ": this member leads and its manager is starting" : ": no leader is known");
            }
            if (v.leaderId() == null) {
                return "no leader is known in term " + v.term() + " (a leader needs a majority of " + node.peers().size()
                        + " members)";
            }
            if (v.appliedIndex() < v.commitIndex()) {
                return "applying the committed state: index " + v.appliedIndex() + " of " + v.commitIndex();
            }
            return null;
        }
    }

    private void stopManager() {
        FabricManagerDaemon d = daemon;
        daemon = null;
        daemonTerm = -1;
        published = false;
        lastRole = "";
        d.close();
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
