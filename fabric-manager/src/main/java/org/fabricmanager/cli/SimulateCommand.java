package org.fabricmanager.cli;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.topology.Fabric;

/**
 * {@code simulate}: a simulated fabric as its own process: one switch agent per switch of a PGFT or a
 * {@code fabric-topology/1} file, all connecting to a daemon; prints progress until Ctrl-C.
 */
final class SimulateCommand implements Command {
    @Override
    public String name() {
        return "simulate";
    }

    @Override
    public String summary() {
        return "run one switch agent per switch of a fabric against a daemon";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager simulate (--pgft SPEC | --topology FILE) --connect HOST:PORT [--pki DIR]
                                               [--io-threads N]
                  Runs one switch agent per switch of the fabric in this process (each with its own TCP connection
                  to the daemon), prints progress, and runs until Ctrl-C.
                %s
                  --connect HOST:PORT      the daemon's southbound address
                  --pki DIR                speak mutual TLS: each agent presents DIR/switches/0x<guid>.crt and trusts
                                           DIR/ca.crt; missing switch certificates are issued with DIR/ca.key
                                           (without --pki the agents speak plaintext: security.insecure daemons only)
                  --io-threads N           event-loop threads shared by all agents (default 2)""".formatted(FabricSource.USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        Set<String> s = new HashSet<>(FabricSource.OPTIONS);
        s.add("connect");
        s.add("io-threads");
        s.add("pki");
        return s;
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        InetSocketAddress daemon = address(args.require("connect"));
        int threads = args.intValue("io-threads", 2, 1, 64);
        Fabric fabric = FabricSource.load(args);
        AgentSettings base = AgentSettings.defaults(daemon);
        FabricSimulator sim = args.has("pki")
                ? new FabricSimulator(fabric, SimulatorTls.settings("simulate", java.nio.file.Path.of(args.require("pki")),
                        fabric, base), null, threads, null, args.longValue("seed", 1L))
                : new FabricSimulator(fabric, base, null, threads, null, args.longValue("seed", 1L));
        console.err().println("simulate: " + fabric.switches().size() + " switches, " + fabric.nodes().size()
                + " nodes, connecting to " + daemon.getHostString() + ":" + daemon.getPort());
        sim.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            console.err().println(progress(sim));
            sim.close();
            console.err().println("simulate: stopped");
            stopped.countDown();
        }, "fm-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        String last = "";
        while (!stopped.await(500, TimeUnit.MILLISECONDS)) {
            String line = progress(sim);
            if (!line.equals(last)) {
                console.err().println(line);
                last = line;
            }
        }
        return ExitCodes.OK;
    }

    static String progress(FabricSimulator sim) {
        int active = 0;
        long newest = 0;
        for (SwitchAgent a : sim.agents()) {
            if (a.state() == SwitchAgent.State.ACTIVE) {
                active++;
            }
            newest = Math.max(newest, a.table().version());
        }
        int holding = 0;
        for (SwitchAgent a : sim.agents()) {
            if (newest > 0 && a.table().version() == newest) {
                holding++;
            }
        }
        int n = sim.agents().size();
        return "agents connected: " + active + "/" + n + (newest == 0 ? ", no table yet"
                : ", table v" + newest + " applied on " + holding + "/" + n);
    }

    static InetSocketAddress address(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new UsageException("simulate: --connect must be HOST:PORT, got '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new UsageException("simulate: --connect port must be a number, got '" + text.substring(colon + 1) + "'");
        }
        if (port < 1 || port > 65535) {
            throw new UsageException("simulate: --connect port " + port + " outside [1, 65535]");
        }
        return new InetSocketAddress(host, port);
    }
}
