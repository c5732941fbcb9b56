package org.fabricmanager.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.sim.IbsimErrorRates;
import org.fabricmanager.sim.IbsimFaults;
import org.fabricmanager.sim.SimEndpoints;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code demo --opensm}: a real subnet manager on a simulated InfiniBand fabric. ibsim simulates the PGFT, OpenSM runs on
 * it under libumad2sim with the plug-in {@code libfabricmanager.so}, and the daemon, with its OpenSM provider, routes
 * OpenSM's subnet and serves REST and the status page, until Ctrl-C or SIGTERM; then OpenSM and ibsim are stopped and
 * the temporary directory (logs, the daemon's socket and state) removed. The demo's fault endpoints type at ibsim's
 * console ({@link IbsimFaults}), so OpenSM sees the simulated switch's trap. ibsim and OpenSM inherit the environment:
 * {@code IBSIM_SOCKNAME} names ibsim's socket, so that the infiniband-diags tools reach the same fabric.
 */
final class OpenSmDemo implements AutoCloseable {
    /** 48 switches and 64 nodes in three levels: ibsim and OpenSM bring it up in a few seconds. */
    static final String DEFAULT_PGFT = "PGFT(3;4,4,4;1,4,4;1,1,1)";
    /** Bounds ibsim's start and OpenSM's first routing by the daemon, not a measure. */
    private static final long START_SECONDS = 120;
    /** The plug-in's wait for the daemon: the first answer includes the daemon's discovery. */
    private static final int PLUGIN_TIMEOUT_MS = 10_000;
    private static final long POLL_MS = 100;
    /** How long an ended OpenSM or ibsim waits for the shutdown hook before it counts as a failure. */
    private static final long SHUTDOWN_GRACE_MS = 3_000;

    /** A thread of its own for each ended process: {@link #failed} waits, and must hold up no pool. */
    private static final Executor WATCHER = r -> {
        Thread t = new Thread(r, "fm-demo-watch");
        t.setDaemon(true);
        t.start();
    };

    private final Path work;
    private final boolean temporary;
    private final CompletableFuture<String> failure = new CompletableFuture<>();
    private FabricManagerDaemon daemon;
    private IbsimFabric lab;
    private Process opensm;
    private IbsimErrorRates errorRates;
    private boolean closed;

    private OpenSmDemo(Path work, boolean temporary) {
        this.work = work;
        this.temporary = temporary;
    }

    static int run(Arguments args, Console console) throws Exception {
        for (String option : List.of("hdft", "tls-provider")) {
            if (args.has(option)) {
                throw new UsageException("demo --opensm: --" + option + " is for the agents' demo; OpenSM's runs a --pgft");
            }
        }
        PgftSpec spec;
        try {
            spec = PgftSpec.parse(args.valueOr("pgft", DEFAULT_PGFT));
        } catch (TopologyException e) {
            throw new UsageException("demo --opensm: " + e.getMessage(), e);
        }
        Path jar = jar();
        String missing = missing(OpenSmTools.find().isPresent(), OpenSmTools.missing(), OpenSmPlugin.find(jar), jar);
        if (missing != null) {
            throw new UsageException(missing);
        }
        OpenSmTools tools = OpenSmTools.find().orElseThrow();
        OpenSmPlugin plugin = OpenSmPlugin.find(jar).orElseThrow();
        int httpPort = args.intValue("http-port", 7680, 0, 65535);
        int southboundPort = args.intValue("southbound-port", 0, 0, 65535);
        boolean temporary = !args.has("state-dir");
        Path work = temporary ? Files.createTempDirectory("fabric-manager-demo-opensm-")
                : Files.createDirectories(Path.of(args.require("state-dir")).toAbsolutePath());
        if (!args.flag("verbose")) {
            DemoCommand.quietLogs();
        }
        OpenSmDemo demo = new OpenSmDemo(work, temporary);
        // from here on a Ctrl-C or SIGTERM, even during the start, stops OpenSM and ibsim and removes the directory
        Thread hook = new Thread(demo::close, "fm-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            String failed;
            try {
                failed = demo.serve(args, console.out(), spec, new Setup(tools, plugin, httpPort, southboundPort,
                        args.intValue("lmc", 0, 0, Fabric.MAX_LMC)));
            } catch (IOException e) {
                failed = e.getMessage(); // ibsim or OpenSM could not start (e.g. IBSIM_SOCKNAME taken)
            }
            if (failed != null) {
                console.err().println("demo --opensm: " + failed);
                demo.printLogTails(console.err());
                return ExitCodes.INTERNAL;
            }
            return ExitCodes.OK;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook closes it
            }
            demo.close();
        }
    }

    /** What the start needs besides the fabric. */
    private record Setup(OpenSmTools tools, OpenSmPlugin plugin, int httpPort, int southboundPort, int lmc) {
    }

    /**
     * The one line saying what to install when a tool or the plug-in is missing, or {@code null} when all are there.
     */
    static String missing(boolean toolsFound, List<String> missingTools, Optional<OpenSmPlugin> plugin, Path jar) {
        if (!toolsFound) {
            return "demo --opensm: " + String.join(", ", missingTools) + " not found: install them with "
                    + OpenSmTools.INSTALL_HINT;
        }
        if (plugin.isEmpty()) {
            return "demo --opensm: OpenSM's plug-in " + OpenSmPlugin.LIBRARY + " is not beside " + jar + ": "
                    + OpenSmPlugin.BUILD_HINT;
        }
        return null;
    }

    /** Starts everything, prints the addresses, and serves until the JVM stops; the reason when something failed. */
    private String serve(Arguments args, PrintStream out, PgftSpec spec, Setup setup) throws Exception {
        Fabric fabric = PgftGenerator.generate(spec);
        out.printf("demo --opensm: %s: %d switches, %d nodes, %d links; OpenSM's plug-in from %s%n", spec,
                fabric.switches().size(), fabric.nodes().size(), fabric.links().size(), setup.plugin().directory());
        Path socket = work.resolve("opensm.sock");
        SimEndpoints endpoints = new SimEndpoints();
        DemoProgress progress = new DemoProgress(out, fabric.switches().size());
        try {
            DaemonConfig config = DaemonConfig.defaults().withDetector(false).withSouthboundBind("127.0.0.1")
                    .withPorts(setup.southboundPort(), setup.httpPort()).withStateDirectory(work.resolve("state"))
                    .withExpectedPgft(spec).withEngine(args.valueOr("engine", RoutingEngines.DEFAULT))
                    .withOpenSm(OpenSm.of(socket.toString(), null, null, null))
                    // no agent connects, but the southbound listens all the same: as in the agents' demo, TLS only
                    .withSecurity(DemoCommand.demoPki(work, out)).withAdminToken(DemoToken.ensure(work));
            synchronized (this) {
                if (closed) {
                    return "stopped while starting";
                }
                daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of(progress)).rest(List.of(endpoints)));
            }
        } catch (ConfigException | StoreException e) {
            throw new UsageException("demo --opensm: " + e.getMessage(), e);
        }
        out.printf("daemon: OpenSM provider on %s, state in %s%s%n", socket, work, temporary ? " (temporary)" : "");
        String sockName = System.getenv("IBSIM_SOCKNAME");
        IbsimFabric started = IbsimFabric.start(setup.tools(), fabric, work.resolve("ibsim"), START_SECONDS,
                sockName == null || sockName.isBlank() ? "fm-demo-" + ProcessHandle.current().pid() : sockName);
        synchronized (this) {
            if (closed) {
                started.close();
                return "stopped while starting";
            }
            lab = started;
            lab.onExit().thenAcceptAsync(code -> failed("ibsim exited with " + code + " (" + lab.log() + ")"), WATCHER);
            // OpenSM's performance manager reads the ports' counters, so that the switches show them as agents' do
            opensm = setup.plugin().startOpenSm(lab, socket, PLUGIN_TIMEOUT_MS, work.resolve("opensm"),
                    OpenSmPlugin.Fallback.MINHOP, OpenSmPlugin.PERFMGR + (setup.lmc() == 0 ? "" : "lmc " + setup.lmc() + "\n"));
            opensm.onExit().thenAcceptAsync(p -> failed("OpenSM exited with " + p.exitValue()), WATCHER);
        }
        out.printf("ibsim: %d switches and %d nodes on socket %s (IBSIM_SOCKNAME)%n", fabric.switches().size(),
                fabric.nodes().size(), lab.socketName());
        out.printf("OpenSM: pid %d, routing_engine fabric-manager,%s, performance manager on%s, log %s%n", opensm.pid(),
                OpenSmPlugin.FALLBACK, setup.lmc() == 0 ? "" : ", lmc " + setup.lmc(), openSmLog());
        String why = awaitConverged(fabric.switches().size());
        if (why != null) {
            return why;
        }
        Map<Long, String> names = names();
        IbsimFaults faults;
        synchronized (this) {
            if (closed) {
                return "stopped while starting";
            }
            errorRates = IbsimErrorRates.start(lab::console);
            faults = new IbsimFaults(fabric, names, lab::console, errorRates);
        }
        endpoints.attach(faults);
        String rest = daemon.restUrl();
        out.printf("REST: %s/api/v1/status%n", rest);
        out.printf("status page: %s/%n", rest);
        out.printf("admin token: %s (for whatif, drain, rebalance: --token-file)%n", DemoToken.file(work));
        out.printf("faults (typed at ibsim's console, OpenSM sees the switch's trap): curl -X POST '%s/api/v1/sim/links/"
                + "down?%s' (links/up, links/errors?...&perSecond=N, switches/{guid}/kill?mode=power, "
                + "switches/{guid}/revive)%n", rest,
                faults.sampleCable());
        String tools = "LD_PRELOAD=" + setup.tools().umad2sim() + " IBSIM_SOCKNAME=" + lab.socketName();
        out.printf("diagnostics on this subnet: %s ibroute LID | saquery | ibnetdiscover%n", tools);
        if (args.flag("until-converged")) {
            return null;
        }
        out.println("serving REST until Ctrl-C");
        out.flush();
        return failure.join();
    }

    /**
     * Waits until the daemon has routed OpenSM's subnet with every switch in it; the reason when OpenSM or ibsim stopped
     * or the bound passed first.
     */
    private String awaitConverged(int switches) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline) {
            if (failure.isDone()) {
                return failure.join();
            }
            Views.Status s = daemon.api().status().get(START_SECONDS, TimeUnit.SECONDS);
            if (s.state() == DaemonState.CONVERGED && s.switches().connected() == switches) {
                return null;
            }
            Thread.sleep(POLL_MS);
        }
        return "OpenSM's subnet was not routed by the daemon within " + START_SECONDS + " s";
    }

    /** The daemon's GUID of each switch -> its name (ibsim's node id, which OpenSM reads as its description). */
    private Map<Long, String> names() throws Exception {
        Map<Long, String> names = new HashMap<>();
        for (Views.Switch s : daemon.api().switches().get(START_SECONDS, TimeUnit.SECONDS)) {
            names.put(Guids.parse(s.guid()), s.name());
        }
        return names;
    }

    private Path openSmLog() {
        return work.resolve("opensm").resolve("opensm.log");
    }

    /**
     * OpenSM or ibsim ended. A Ctrl-C reaches them with the JVM (one process group): that is no failure, and the
     * shutdown hook closes the demo a moment later; so an exit counts only when no close follows within
     * {@value #SHUTDOWN_GRACE_MS} ms.
     */
    private void failed(String why) {
        synchronized (this) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SHUTDOWN_GRACE_MS);
            try {
                for (long left = SHUTDOWN_GRACE_MS; !closed && left > 0;
                     left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
                    wait(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (closed) {
                return; // the demo stops them itself
            }
        }
        failure.complete(why);
    }

    /** The ends of ibsim's and OpenSM's logs, which say why a start failed, before the directory goes. */
    private void printLogTails(PrintStream err) {
        for (Path log : List.of(work.resolve("ibsim").resolve("ibsim.log"), openSmLog())) {
            try {
                List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
                err.println("the end of " + log.getFileName() + ":");
                lines.subList(Math.max(0, lines.size() - 8), lines.size()).forEach(l -> err.println("  " + l));
            } catch (IOException e) {
                // no log: the tool did not start
            }
        }
    }

    /** The running jar (or classes directory), beside which the plug-in is shipped. */
    private static Path jar() {
        try {
            return Path.of(OpenSmDemo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | SecurityException e) {
            return Path.of(".");
        }
    }

    /** Stops OpenSM, then ibsim, then the daemon, and removes the temporary directory; once. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        notifyAll();
        if (errorRates != null) {
            errorRates.close();
        }
        IbsimFabric.stopOpenSm(opensm);
        if (lab != null) {
            lab.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        DemoCommand.deleteQuietly(work, temporary);
    }
}
