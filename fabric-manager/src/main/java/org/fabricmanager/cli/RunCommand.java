package org.fabricmanager.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.ConfigLoader;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.DefaultConfig;
import org.fabricmanager.daemon.ha.HaManager;
import org.fabricmanager.daemon.store.StoreException;

/**
 * {@code run}: the long-running daemon. Reads the YAML configuration, starts listening for switch
 * agents and REST, prints the addresses it listens on, and runs until SIGTERM or Ctrl-C, then shuts
 * down in order (stop accepting, persist).
 */
final class RunCommand implements Command {
    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "run the daemon (southbound server, discovery, routing, table push, REST)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager run [--config FILE] [--southbound-port P] [--http-port P] [--state-dir DIR]
                       fabric-manager run --print-default-config
                  Runs the fabric-manager daemon until SIGTERM or Ctrl-C (docs/configuration.md). Refuses to start
                  without TLS files (security.pkiDirectory, docs/security.md) unless security.insecure is true, or
                  the southbound is disabled (southbound.enabled: false, an OpenSM-only site) and ha is not enabled.
                  --config FILE            YAML configuration (default: every option at its default)
                  --southbound-port P      port for switch agents (overrides southbound.port; 0 = pick a free one)
                  --http-port P            port for REST (overrides rest.port; 0 = pick a free one)
                  --state-dir DIR          state directory (overrides state.directory)
                  --print-default-config   print every option with its default and a comment, then exit
                The addresses actually bound are printed on stdout (no southbound line with southbound.enabled: false):
                  southbound HOST:PORT
                  rest http://HOST:PORT
                With ha.enabled (hot-standby managers, docs/operations.md) the daemon first prints
                'ha ID started', then 'ha ID STANDBY term T, leader L' or 'ha ID LEADER term T' whenever its role
                changes, and 'ha ID ACTIVE term T' followed by the address lines each time it becomes the
                active manager. While it does not lead it serves the same ports as a standby: agents are
                redirected to the active manager, REST answers /api/v1/ha and /api/v1/status (STANDBY).""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("config", "southbound-port", "http-port", "state-dir");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("print-default-config");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        if (args.flag("print-default-config")) {
            if (args.has("config") || args.has("southbound-port") || args.has("http-port") || args.has("state-dir")) {
                throw new UsageException("run: --print-default-config takes no other option");
            }
            console.out().print(DefaultConfig.yaml());
            return ExitCodes.OK;
        }
        DaemonConfig config = load(args);
        if (!config.southbound().enabled() && args.has("southbound-port")) {
            throw new UsageException("run: --southbound-port with southbound.enabled: false: there is no southbound");
        }
        String tlsFor = config.southbound().enabled() ? "the southbound" : config.ha().enabled() ? "the Raft port" : null;
        if (tlsFor != null && !config.security().tlsConfigured() && !config.security().insecure()) {
            throw new UsageException("run: no TLS files for " + tlsFor + ": set security.pkiDirectory (made by "
                    + "'fabric-manager pki init --dir DIR', docs/security.md), or security.insecure: true to let any host "
                    + "that reaches " + (config.southbound().enabled() ? "the southbound port speak for any switch"
                    : "the Raft port vote in the managers' group"));
        }
        if (config.ha().enabled()) {
            HaManager ha;
            try {
                ha = HaManager.start(config, line -> {
                    console.out().println(line);
                    console.out().flush();
                }, new SimulatedRehearsalAgents());
            } catch (ConfigException | StoreException e) {
                throw new UsageException("run: " + e.getMessage(), e);
            }
            String failed = awaitShutdownOr(ha, ha.failure());
            if (failed != null) {
                // fail-stop: the other members lead on; a restart (systemd's Restart=) catches up from the log
                console.err().println("run: " + failed + "; this member stopped (" + (failed.startsWith("cannot write")
                        ? "free the disk of " + config.state().path() + " and start it again" : "start it again")
                        + "; it catches up from the others)");
                return ExitCodes.INTERNAL;
            }
            return ExitCodes.OK;
        }
        FabricManagerDaemon daemon;
        try {
            daemon = FabricManagerDaemon.start(config, List.of());
        } catch (ConfigException | StoreException e) {
            throw new UsageException("run: " + e.getMessage(), e);
        }
        // before the addresses are printed: whoever reads them (systemd's ExecReload, a test) may send SIGHUP at
        // once, and without the handler the JVM's default action for SIGHUP is to shut down
        HangupReload.install(daemon, () -> load(args), args.has("config") ? args.require("config") : "the defaults");
        if (daemon.southboundAddress() != null) {
            console.out().println("southbound " + daemon.southboundAddress().getHostString() + ":"
                    + daemon.southboundAddress().getPort());
        }
        console.out().println("rest " + daemon.restUrl());
        console.out().flush();
        awaitShutdown(daemon);
        return ExitCodes.OK;
    }

    /** The configuration the options name, with the command-line overrides applied. */
    static DaemonConfig load(Arguments args) {
        try {
            DaemonConfig config = args.has("config") ? ConfigLoader.load(Path.of(args.require("config")))
                    : DaemonConfig.defaults();
            Integer sb = args.has("southbound-port") ? args.intValue("southbound-port", 0, 0, 65535) : null;
            Integer http = args.has("http-port") ? args.intValue("http-port", 0, 0, 65535) : null;
            config = config.withPorts(sb, http);
            if (args.has("state-dir")) {
                config = config.withStateDirectory(Path.of(args.require("state-dir")));
            }
            return config;
        } catch (ConfigException e) {
            throw new UsageException(args.command() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Blocks until the JVM is asked to stop (then closes {@code closeable} and returns {@code null}) or until
     * {@code failure} completes (then closes it and returns the reason).
     */
    static String awaitShutdownOr(AutoCloseable closeable, CompletableFuture<String> failure) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            closeQuietly(closeable);
            stopped.countDown();
        }, "fm-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        failure.thenRun(stopped::countDown);
        stopped.await();
        if (!failure.isDone()) {
            return null;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return failure.join(); // the hook closes it
        }
        closeQuietly(closeable);
        return failure.join();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // nothing more to do while the process ends
        }
    }

    /** Blocks until the JVM is asked to stop, closing {@code closeable} on the way out. */
    static void awaitShutdown(AutoCloseable closeable) throws InterruptedException {
        awaitShutdownOr(closeable, new CompletableFuture<>());
    }
}
