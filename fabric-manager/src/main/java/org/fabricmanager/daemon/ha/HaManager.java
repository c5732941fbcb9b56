package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.util.List;
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
 * A standby listens on no southbound or REST port: agents move on to the next manager they know.
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
    private volatile boolean closing;
    /** The running manager, while this member leads (watcher thread, and close after it ended). */
    private FabricManagerDaemon daemon;
    private long daemonTerm = -1;
    private String lastRole = "";

    private HaManager(DaemonConfig config, Consumer<String> announce, HaNode node, StateDirectoryLock lock) {
        this.config = config;
        this.announce = announce;
        this.node = node;
        this.lock = lock;
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

    private void step(HaNode.View v) throws InterruptedException {
        if (daemon != null && (!v.leading() || v.term() != daemonTerm)) {
            LOG.warn("ha: {} no longer leads term {} (now {} in term {}): stopping the manager", node.nodeId(), daemonTerm,
                    v.role(), v.term());
            stopManager();
        }
        String role = (v.leading() ? "LEADER" : "FOLLOWER".equals(v.role()) ? "STANDBY" : v.role()) + " term " + v.term()
                + (v.leaderId() == null || v.leading() ? "" : ", leader " + v.leaderId());
        if (daemon == null && !role.equals(lastRole)) {
            lastRole = role;
            announce.accept("ha " + node.nodeId() + " " + role);
        }
        if (daemon == null && v.leading() && v.leaderReady() && v.appliedIndex() >= v.commitIndex()) {
            // every committed write of earlier leaders is in the state directory now
            daemonTerm = v.term();
            daemon = FabricManagerDaemon.start(config, List.of(), DaemonMetrics.newRegistry(), null, List.of(),
                    node.files(daemonTerm), daemonTerm);
            announce.accept("ha " + node.nodeId() + " ACTIVE term " + daemonTerm);
            announce.accept("southbound " + daemon.southboundAddress().getHostString() + ":"
                    + daemon.southboundAddress().getPort());
            announce.accept("rest " + daemon.restUrl());
        }
    }

    private void stopManager() {
        FabricManagerDaemon d = daemon;
        daemon = null;
        daemonTerm = -1;
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
        try {
            node.close();
        } catch (IOException e) {
            LOG.warn("ha: closing the Raft member: {}", e.toString());
        } finally {
            lock.close();
        }
    }
}
