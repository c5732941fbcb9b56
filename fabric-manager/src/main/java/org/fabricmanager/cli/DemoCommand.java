package org.fabricmanager.cli;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Security;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.routing.vtftr.VtftrEngine;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.sim.SimEndpoints;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;
import org.slf4j.LoggerFactory;

/**
 * {@code demo}: the README's main command. Runs the daemon and a simulated PGFT (one agent per switch,
 * each with its own TCP connection) in one process on loopback, prints progress (switches connected,
 * fabric discovered, routing time, tables pushed and acknowledged), then serves REST until Ctrl-C.
 */
final class DemoCommand implements Command {
    static final String DEFAULT_PGFT = "PGFT(3;8,8,8;1,8,8;1,1,1)";
    /** The demo's PKI folder inside its state directory. */
    static final String PKI = "pki";

    @Override
    public String name() {
        return "demo";
    }

    @Override
    public String summary() {
        return "daemon + simulated fabric in one process (default " + DEFAULT_PGFT + "), REST until Ctrl-C";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager demo [--pgft SPEC | --hdft SPEC] [--http-port P] [--southbound-port P] [--state-dir DIR]
                                           [--engine NAME] [--until-converged] [--tls-provider auto|openssl|jdk]
                       fabric-manager demo --opensm [--pgft SPEC] [--http-port P] [--state-dir DIR] [--engine NAME]
                                           [--until-converged] [--lmc N]
                  Starts the daemon and a simulated fabric of SPEC (default %s) on loopback, prints each step,
                  then serves the REST API until Ctrl-C (docs/rest-api.md). The agents speak mutual TLS with
                  certificates of a throw-away CA made in the state directory (DIR/pki).
                  With --opensm (docs/opensm.md): ibsim simulates SPEC (default %s) as an InfiniBand fabric,
                  OpenSM runs its subnet with the plug-in libfabricmanager.so and the daemon as its routing engine;
                  the fault endpoints type at ibsim's console. ibsim and OpenSM inherit the environment
                  (IBSIM_SOCKNAME names ibsim's socket); needs opensm, ibsim-utils, infiniband-diags and the plug-in.
                  --pgft SPEC            PGFT(h; m1,...,mh; w1,...,wh; p1,...,ph)
                  --hdft SPEC            HDFT(XxY;leafUp;rowUp;colUp), a 2-D fat tree routed with vtftr and its
                                         virtual-channel rules (docs/vtftr.md)
                  --http-port P          REST port (default 7680; 0 = pick a free one)
                  --southbound-port P    port the simulated agents connect to (default 0 = pick a free one)
                  --state-dir DIR        keep the daemon's state there (default: a temporary directory, removed on exit)
                  --engine NAME          routing engine (default dmodc-home; vtftr with --hdft)
                  --until-converged      exit once every table is acknowledged instead of serving REST
                  --tls-provider P       the southbound's TLS engine, daemon and agents (security.tlsProvider):
                                         auto (default), openssl or jdk
                  --opensm               the subnet of OpenSM on ibsim instead of the agents
                  --lmc N                with --opensm: OpenSM's lmc, each end port answering to 2^N LIDs (0..7)""".formatted(DEFAULT_PGFT,
                OpenSmDemo.DEFAULT_PGFT);
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("pgft", "hdft", "http-port", "southbound-port", "state-dir", "engine", "tls-provider", "lmc");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("until-converged", "opensm");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        if (args.flag("opensm")) {
            return OpenSmDemo.run(args, console);
        }
        if (args.has("lmc")) {
            throw new UsageException("demo: --lmc is OpenSM's (demo --opensm): the agents have no LMC");
        }
        if (args.has("pgft") && args.has("hdft")) {
            throw new UsageException("demo: give --pgft or --hdft, not both");
        }
        PgftSpec spec = null;
        HdftSpec hdft = null;
        try {
            if (args.has("hdft")) {
                hdft = HdftSpec.parse(args.require("hdft"));
            } else {
                spec = PgftSpec.parse(args.valueOr("pgft", DEFAULT_PGFT));
            }
        } catch (TopologyException e) {
            throw new UsageException("demo: " + e.getMessage(), e);
        }
        int httpPort = args.intValue("http-port", 7680, 0, 65535);
        int southboundPort = args.intValue("southbound-port", 0, 0, 65535);
        boolean temporary = !args.has("state-dir");
        Path state = temporary ? Files.createTempDirectory("fabric-manager-demo-") : Path.of(args.require("state-dir"));
        if (!args.flag("verbose")) {
            quietLogs();
        }
        PrintStream out = console.out();
        Fabric fabric = hdft != null ? HdftGenerator.generate(hdft) : PgftGenerator.generate(spec);
        out.printf("demo: %s: %d switches, %d nodes, %d links%n", hdft != null ? hdft : spec, fabric.switches().size(),
                fabric.nodes().size(), fabric.links().size());

        DaemonConfig config;
        try {
            config = DaemonConfig.defaults().withSouthboundBind("127.0.0.1").withPorts(southboundPort, httpPort)
                    .withStateDirectory(state);
            config = hdft != null
                    ? config.withEngine(args.valueOr("engine", VtftrEngine.NAME)).withExpectedHdft(hdft)
                    : config.withExpectedPgft(spec).withEngine(args.valueOr("engine", RoutingEngines.DEFAULT));
            // demo mode runs the ring failure detector in every simulated agent (free UDP ports on loopback)
            DaemonConfig.Faults f = config.faults();
            config = config.withFaults(new DaemonConfig.Faults(f.settleMs(), f.flapThreshold(), f.flapWindowMs(),
                    f.quarantineMs(), new DaemonConfig.Detector(true, f.detector().etaMs(), f.detector().deltaMs(),
                    f.detector().overlay(), "127.0.0.1", freeUdpPort(), freeUdpPort(), f.detector().startupGraceMs(),
                    f.detector().secondOpinionMs())));
            TlsProvider tlsProvider = args.has("tls-provider")
                    ? SimulateCommand.tlsProvider("demo", args.require("tls-provider")) : TlsProvider.AUTO;
            config = config.withSecurity(demoPki(state, out).withTlsProvider(tlsProvider))
                    .withAdminToken(DemoToken.ensure(state));
        } catch (ConfigException e) {
            throw new UsageException("demo: " + e.getMessage(), e);
        }
        DemoProgress progress = new DemoProgress(out, fabric.switches().size());
        FabricManagerDaemon daemon;
        SimEndpoints simEndpoints = new SimEndpoints();
        try {
            daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of(progress)).rest(List.of(simEndpoints)));
        } catch (ConfigException | StoreException e) {
            deleteQuietly(state, temporary);
            throw new UsageException("demo: " + e.getMessage(), e);
        }
        InetSocketAddress agents = daemon.southboundAddress();
        out.printf("daemon: agents on %s:%d, state in %s%s%n", agents.getHostString(), agents.getPort(), state,
                temporary ? " (temporary)" : "");
        SimulatorTls.Agents tlsAgents = SimulatorTls.agents("demo", state.resolve(PKI), fabric,
                AgentSettings.defaults(new InetSocketAddress("127.0.0.1", agents.getPort()))
                        .withTlsProvider(config.security().tlsProvider()));
        FabricSimulator sim = new FabricSimulator(fabric, tlsAgents.settings(), null, 2, null, 1L);
        sim.enableDetectors(daemon.registry());
        simEndpoints.attach(sim);
        out.printf("simulator: starting %d switch agents, TLS engine %s%n", fabric.switches().size(), tlsAgents.engines());
        sim.start();
        AutoCloseable shutdown = () -> {
            daemon.close();
            sim.close();
            deleteQuietly(state, temporary);
        };
        progress.converged().join();
        out.printf("REST: %s/api/v1/status%n", daemon.restUrl());
        out.printf("status page: %s/%n", daemon.restUrl());
        out.printf("admin token: %s (for whatif, drain, rebalance: --token-file)%n", DemoToken.file(state));
        if (args.flag("until-converged")) {
            shutdown.close();
            return ExitCodes.OK;
        }
        out.println("serving REST until Ctrl-C");
        out.flush();
        RunCommand.awaitShutdown(shutdown);
        return ExitCodes.OK;
    }

    /**
     * Secure by default: a throw-away CA in the state directory (kept with it, so a demo restarted on
     * the same {@code --state-dir} keeps its certificates). The daemon names its files one by one, so
     * that the CA key beside them is not mistaken for a production daemon host holding its CA key.
     */
    static Security demoPki(Path state, PrintStream out) {
        PkiDirectory pki = new PkiDirectory(state.resolve(PKI));
        try {
            if (!pki.hasCa()) {
                pki.init("fabric-manager demo CA", Duration.ofDays(30), List.of("localhost"),
                        List.of(InetAddress.getLoopbackAddress()), Duration.ofDays(30), Clock.systemUTC());
            }
        } catch (PkiException e) {
            throw new UsageException("demo: " + e.getMessage(), e);
        }
        out.printf("demo: mutual TLS with a throw-away CA in %s%n", pki.path());
        return new Security(false, null, pki.daemonCertificate().toString(), pki.daemonKey().toString(),
                pki.caCertificate().toString(), (int) Protocol.DEFAULT_INCARNATION_AHEAD_MS,
                TlsProvider.AUTO);
    }

    /** The daemon's milestones are printed as progress lines; its info logs would repeat them. */
    static void quietLogs() {
        if (LoggerFactory.getLogger("org.fabricmanager") instanceof ch.qos.logback.classic.Logger l) {
            l.setLevel(Level.WARN);
        }
    }

    static void deleteQuietly(Path dir, boolean temporary) {
        if (!temporary) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    static int freeUdpPort() {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UsageException("demo: no free UDP port on loopback for the failure detector: " + e.getMessage(), e);
        }
    }
}
