package org.fabricmanager.cli;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

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
                usage: fabric-manager simulate (--pgft SPEC | --hdft SPEC | --topology FILE) --connect HOST:PORT[,HOST:PORT...] [--pki DIR]
                                               [--only GUID[,GUID...] | --except GUID[,GUID...]] [--io-threads N]
                                               [--no-vc-rules] [--no-lft-runs] [--tls-provider auto|openssl|jdk]
                  Runs one switch agent per switch of the fabric in this process (each with its own TCP connection
                  to the daemon), prints progress, and runs until Ctrl-C. A fabric can be split over several
                  processes, as agents are spread over hosts: each runs the switches --only names, or all but those
                  --except names (the cabling is the whole fabric's in every process).
                %s
                  --connect HOST:PORT[,...] the daemon's southbound address; with hot-standby managers (ha) every
                                           manager's, in any order: an agent goes where a standby redirects it,
                                           and tries the next one when a connection fails
                  --pki DIR                speak mutual TLS: each agent presents DIR/switches/0x<guid>.crt and trusts
                                           DIR/ca.crt; missing switch certificates are issued with DIR/ca.key
                                           (without --pki the agents speak plaintext: security.insecure daemons only)
                  --tls-provider P         the agents' TLS engine: auto (default: OpenSSL/BoringSSL when it loads and
                                           the PKI is not Ed25519, else the JDK's), openssl or jdk
                  --commands               read fault injections from stdin, one per line: 'kill GUID power|agent',
                                           'revive GUID', 'link down GUID PORT', 'link up GUID PORT',
                                           'link errors GUID PORT N' (its receive errors rise N a second, 0 stops
                                           them), 'mute GUID' (its failure-detector member stops, its agent runs on)
                                           (switches of this process); each is answered on stderr with 'ok: ...'
                                           or 'error: ...'
                  --only GUID[,GUID...]    run only these switches' agents
                  --except GUID[,GUID...]  run every switch's agent but these
                  --io-threads N           event-loop threads shared by all agents (default 2)
                  --no-vc-rules            play agents that predate VC_RULES (no HELLO feature bit): a daemon
                                           routing with vtftr refuses them
                  --no-lft-runs            play agents that predate LFT_BLOCKS (no HELLO feature bit): the daemon
                                           sends them one LFT_BLOCK frame per 64-entry block
                  Every agent runs a failure-detector member when the daemon configures one (faults.detector), on a
                  UDP port of its own that it tells the daemon (DETECTOR_ENDPOINT); open those ports between hosts.""".formatted(FabricSource.USAGE);
    }

    @Override
    public Set<String> valueOptions() {
        Set<String> s = new HashSet<>(FabricSource.OPTIONS);
        s.add("connect");
        s.add("io-threads");
        s.add("pki");
        s.add("tls-provider");
        s.add("only");
        s.add("except");
        return s;
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("commands", "no-vc-rules", "no-lft-runs");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        List<InetSocketAddress> managers = addresses(args.require("connect"));
        InetSocketAddress daemon = managers.get(0);
        int threads = args.intValue("io-threads", 2, 1, 64);
        Fabric fabric = FabricSource.load(args);
        LongPredicate runs = selection(args, fabric);
        AgentSettings configured = AgentSettings.defaults(daemon).withManagers(managers);
        if (args.flag("no-vc-rules")) {
            configured = configured.withoutVcRules();
        }
        if (args.flag("no-lft-runs")) {
            configured = configured.withoutLftRuns();
        }
        if (args.has("tls-provider")) {
            if (!args.has("pki")) {
                throw new UsageException("simulate: --tls-provider needs --pki (without it the agents speak plaintext)");
            }
            configured = configured.withTlsProvider(tlsProvider("simulate", args.require("tls-provider")));
        }
        AgentSettings base = configured;
        LongFunction<AgentSettings> settings = guid -> base;
        if (args.has("pki")) {
            SimulatorTls.Agents agents = SimulatorTls.agents("simulate", Path.of(args.require("pki")), fabric,
                    base, runs);
            settings = agents.settings();
            console.err().println("simulate: TLS engine " + agents.engines());
        }
        FabricSimulator sim = new FabricSimulator(fabric, settings, runs, null, threads, null, args.longValue("seed", 1L));
        int running = sim.agents().size();
        if (running == 0) {
            throw new UsageException("simulate: --except leaves no switch to simulate");
        }
        // members answer only if the daemon configures a ring; the agents share this host's address
        sim.enableDetectors(new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), false);
        console.err().println("simulate: " + fabric.switches().size() + " switches, " + fabric.nodes().size()
                + " nodes" + (running < fabric.switches().size() ? ", running " + running + " of the switches' agents" : "")
                + ", connecting to " + args.require("connect"));
        sim.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            console.err().println(progress(sim));
            sim.close();
            console.err().println("simulate: stopped");
            stopped.countDown();
        }, "fm-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (args.flag("commands")) {
            Thread reader = new Thread(() -> SimulationCommands.readFrom(System.in, sim, console.err()),
                    "fm-sim-commands");
            reader.setDaemon(true);
            reader.start();
        }
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

    /** The TLS engine setting {@code text} names, for {@code command}'s {@code --tls-provider}. */
    static TlsProvider tlsProvider(String command, String text) {
        try {
            return TlsProvider.parse(text);
        } catch (PkiException e) {
            throw new UsageException(command + ": --tls-provider: " + e.getMessage(), e);
        }
    }

    /** The switches this process runs: all, --only's, or all but --except's (GUIDs checked against the fabric). */
    static LongPredicate selection(Arguments args, Fabric fabric) {
        if (args.has("only") && args.has("except")) {
            throw new UsageException("simulate: --only and --except exclude each other");
        }
        if (!args.has("only") && !args.has("except")) {
            return guid -> true;
        }
        String option = args.has("only") ? "only" : "except";
        Set<Long> listed = new HashSet<>();
        for (String text : args.require(option).split(",")) {
            long guid;
            try {
                guid = Guids.parseLenient(text.trim());
            } catch (TopologyException e) {
                throw new UsageException("simulate: --" + option + ": bad GUID '" + text.trim() + "'", e);
            }
            if (fabric.switchByGuid(guid).isEmpty()) {
                throw new UsageException("simulate: --" + option + ": " + Guids.format(guid) + " is not a switch of the fabric");
            }
            listed.add(guid);
        }
        return option.equals("only") ? listed::contains : guid -> !listed.contains(guid);
    }

    /**
     * One progress line: agents connected, and the tables they hold (a re-route sends nothing to a switch whose
     * table it did not change, so agents hold different version numbers of one routing).
     */
    static String progress(FabricSimulator sim) {
        int active = 0;
        int holding = 0;
        long newest = 0;
        for (SwitchAgent a : sim.agents()) {
            if (a.state() == SwitchAgent.State.ACTIVE) {
                active++;
            }
            if (a.table().version() > 0) {
                holding++;
            }
            newest = Math.max(newest, a.table().version());
        }
        int n = sim.agents().size();
        return "agents connected: " + active + "/" + n + (newest == 0 ? ", no table yet"
                : ", tables held: " + holding + "/" + n + " (newest v" + newest + ")");
    }

    /** The comma-separated HOST:PORT list of --connect. */
    static List<InetSocketAddress> addresses(String text) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String one : text.split(",", -1)) {
            InetSocketAddress a = address(one.trim());
            if (out.contains(a)) {
                throw new UsageException("simulate: --connect names " + one.trim() + " twice");
            }
            out.add(a);
        }
        return out;
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
