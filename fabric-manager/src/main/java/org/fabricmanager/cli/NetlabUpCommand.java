package org.fabricmanager.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.linux.Cabling;
import org.fabricmanager.agent.linux.DestinationAddresses;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.StartOptions;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.daemon.config.Security;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.netlab.NetlabFabric;
import org.fabricmanager.netlab.NetlabNames;
import org.fabricmanager.netlab.NetlabProcess;
import org.fabricmanager.netlab.NetlabSwitches;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code netlab up}: a PGFT of network namespaces on this machine that carries real packets (root only): one
 * namespace per switch (a bridge programmed by a Linux agent of this process) and per end node, veth pairs as
 * cables, the daemon with mutual TLS from a throw-away CA, in the foreground until interrupted; then everything it
 * made is removed. See docs/linux-agent.md.
 */
final class NetlabUpCommand implements Command {
    /** The lab's ring heartbeat period: see {@link #LAB_DELTA_MS}. */
    static final int LAB_ETA_MS = 200;
    /**
     * The lab's suspicion timeout. The daemon's default (500 ms) declared live switches dead on this 2-core machine
     * under load: in a lab every agent, ring member and the daemon share one process, and each agent's loop also waits
     * for iproute2.
     */
    static final int LAB_DELTA_MS = 2_000;
    /**
     * The lab's keepalive period (the daemon's default is 2 s): an agent takes the daemon for gone after three periods
     * without an answer, the daemon closes a session silent for {@link #LAB_IDLE_MS}. An agent's loop also applies its
     * commits (a bridge batch and its read-back), which at hundreds of switches on a loaded host outlasts the defaults:
     * the first push to every switch at once set off waves of reconnections (docs/performance.md, "Real packets:
     * netlab").
     */
    static final int LAB_ECHO_MS = 5_000;
    /** See {@link #LAB_ECHO_MS} (the daemon's default is 10 s). */
    static final int LAB_IDLE_MS = 30_000;
    /** How long the daemon waits for a commit's acknowledgement before sending it again (default 5 s): see {@link #LAB_ECHO_MS}. */
    static final int LAB_ACK_TIMEOUT_MS = 20_000;
    /**
     * {@code --link-health}'s pace: a lab makes a cable gray by hand and wants the verdict within seconds, where the
     * daemon's defaults (10 s polls, a minute's window, 10 minutes' probation) suit a fabric in service.
     */
    static final int LAB_HEALTH_POLL_MS = 1_000;
    /** See {@link #LAB_HEALTH_POLL_MS}. */
    static final int LAB_HEALTH_WINDOW_MS = 3_000;
    /** See {@link #LAB_HEALTH_POLL_MS}. */
    static final int LAB_PROBATION_MS = 5_000;

    @Override
    public String name() {
        return "netlab up";
    }

    @Override
    public String summary() {
        return "a fat tree of network namespaces with Linux agents and the daemon, real packets (root), until Ctrl-C";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager netlab up --pgft SPEC --prefix P [--http-port H] [--eta-ms E] [--delta-ms D]
                                                [--no-detector] [--link-health POLICY]
                  Builds the PGFT out of network namespaces on this machine (root only): switch G is namespace
                  P-s<G in hex> with its port N as interface pN on bridge br0, end node i is namespace P-n<i> with
                  eth0 (MAC 02:66:6d + index, address 10.0.0.0/8 + index + 1, static neighbours for every other
                  node), veth pairs as cables. Starts the daemon (mutual TLS, throw-away CA) and one Linux agent per
                  switch in this process, prints the namespace map once the tables are installed, and serves REST
                  (the actions' admin token in /run/fabric-manager/netlab-P/admin-token) until Ctrl-C or
                  netlab down --prefix P, then removes every namespace. A lab of prefix P that runs already is
                  refused; leftovers of a crashed one are removed first.
                  --pgft SPEC     PGFT(h; m1,...,mh; w1,...,wh; p1,...,ph)
                  --prefix P      1 to 8 lower-case letters or digits, starting with a letter
                  --http-port H   REST port (default 7680; 0 = pick a free one)
                  --eta-ms E      the ring's heartbeat period (default 200)
                  --delta-ms D    the ring's suspicion timeout, at least 2 E (default 2000): the lab's agents,
                                  ring members and daemon share one process and this machine's cores, so
                                  heartbeats arrive later than on switches with their own CPUs
                  --no-detector   no ring failure detector: faults are seen by carrier and sessions only
                                  (kill-switch --silent then goes unnoticed); on a machine too loaded for
                                  the ring's heartbeats to arrive in time
                  --link-health POLICY  gray links (docs/operations.md): advise or isolate at a lab's pace
                                  (counters read each second, judged over 3 s, no settling, an isolated
                                  cable given back after 5 s healthy); without it the daemon's defaults""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("pgft", "prefix", "http-port", "eta-ms", "delta-ms", "link-health");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("no-detector");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        NetlabNames names = names("netlab up", args);
        PgftSpec spec;
        try {
            spec = PgftSpec.parse(args.require("pgft"));
        } catch (TopologyException e) {
            throw new UsageException("netlab up: " + e.getMessage(), e);
        }
        int httpPort = args.intValue("http-port", 7680, 0, 65535);
        int etaMs = args.intValue("eta-ms", LAB_ETA_MS, 1, 600_000);
        int deltaMs = args.intValue("delta-ms", LAB_DELTA_MS, 2, 3_600_000);
        if (deltaMs < 2 * etaMs) {
            throw new UsageException("netlab up: --delta-ms (" + deltaMs + ") must be at least twice --eta-ms (" + etaMs + ")");
        }
        LinkHealthSection health = null;
        if (args.has("link-health")) {
            try {
                health = LinkHealthSection.defaults().withPolicy(args.require("link-health"))
                        .withTimings(LAB_HEALTH_POLL_MS, LAB_HEALTH_WINDOW_MS, 0, LAB_PROBATION_MS);
            } catch (ConfigException e) {
                throw new UsageException("netlab up: --link-health: " + e.getMessage(), e);
            }
        }
        requireRoot("netlab up");
        PrintStream out = console.out();
        NetlabProcess process = NetlabProcess.of(names);
        ProcessHandle running = process.running().orElse(null);
        if (running != null) {
            throw new UsageException("netlab up: the lab " + names.prefix() + " is running (pid " + running.pid()
                    + "): fabric-manager netlab down --prefix " + names.prefix() + " stops and removes it");
        }
        Fabric fabric = PgftGenerator.generate(spec);
        int removed = NetlabFabric.destroy(names);
        if (removed > 0) {
            out.printf("netlab %s: removed %d namespaces left by an earlier lab%n", names.prefix(), removed);
        }
        Path dir = names.directory();
        deleteTree(dir);
        Files.createDirectories(dir);
        process.record(ProcessHandle.current()); // netlab down stops this process before it removes the namespaces
        Cabling cabling;
        Path cablingFile = dir.resolve("cabling.txt");
        Files.write(cablingFile, Cabling.lines(fabric), StandardCharsets.UTF_8);
        cabling = Cabling.read(cablingFile);

        Lab lab = new Lab(names);
        Runtime.getRuntime().addShutdownHook(new Thread(lab::close, "fm-netlab-shutdown"));
        out.printf("netlab %s: %s: %d switches, %d nodes, %d cables%n", names.prefix(), spec, fabric.switches().size(),
                fabric.nodes().size(), fabric.links().size());
        new NetlabFabric(names, fabric).create();
        lab.created = true;
        out.printf("netlab %s: namespaces and cables made%n", names.prefix());

        CountDownLatch converged = new CountDownLatch(1);
        DaemonListener progress = m -> {
            if (m.kind() == Milestone.Kind.CONVERGED) {
                converged.countDown();
            }
        };
        boolean ring = !args.flag("no-detector");
        DaemonConfig config = config(dir, spec, httpPort, ring ? new int[]{etaMs, deltaMs} : null);
        if (health != null) {
            config = config.withLinkHealth(health);
        }
        try {
            lab.daemon = FabricManagerDaemon.start(config, StartOptions.of(List.of(progress)));
        } catch (ConfigException | StoreException e) {
            throw new UsageException("netlab up: " + e.getMessage(), e);
        }
        InetSocketAddress southbound = lab.daemon.southboundAddress();
        SimulatorTls.Agents tls = SimulatorTls.agents("netlab up", dir.resolve("pki"), fabric,
                AgentSettings.defaults(new InetSocketAddress("127.0.0.1", southbound.getPort())));
        lab.switches = new NetlabSwitches(names, fabric, cabling, tls.settings(), ring ? lab.daemon.registry() : null);
        out.printf("netlab %s: daemon on %s:%d, %d Linux agents started%n", names.prefix(), southbound.getHostString(),
                southbound.getPort(), fabric.switches().size());
        converged.await();
        Map<Long, Integer> indices = nodeIndices(lab.daemon, fabric);
        new NetlabFabric(names, fabric).addressNodes(indices);
        List<String> map = namespaceMap(names, fabric, indices);
        Files.write(dir.resolve("namespaces.txt"), map, StandardCharsets.UTF_8);
        map.forEach(out::println);
        out.printf("REST: %s/api/v1/status%n", lab.daemon.restUrl());
        out.printf("admin token: %s (for whatif, drain, rebalance: --token-file)%n", DemoToken.file(dir));
        out.printf("netlab %s: ready; the map is in %s; Ctrl-C or netlab down --prefix %s removes the lab%n",
                names.prefix(), dir.resolve("namespaces.txt"), names.prefix());
        out.flush();
        new CountDownLatch(1).await();
        return ExitCodes.OK;
    }

    /** What a lab holds, closed in reverse on the way out (Ctrl-C, or a failure while it starts). */
    private static final class Lab {
        private final NetlabNames names;
        private volatile boolean created;
        private volatile FabricManagerDaemon daemon;
        private volatile NetlabSwitches switches;

        Lab(NetlabNames names) {
            this.names = names;
        }

        synchronized void close() {
            if (switches != null) {
                switches.close();
                switches = null;
            }
            if (daemon != null) {
                daemon.close();
                daemon = null;
            }
            if (created) {
                try {
                    NetlabFabric.destroy(names);
                    deleteTree(names.directory());
                } catch (IOException e) {
                    System.err.println("netlab " + names.prefix() + ": " + e.getMessage()
                            + " (run: fabric-manager netlab down --prefix " + names.prefix() + ")");
                }
                created = false;
            }
        }
    }

    /** Each node's destination index as the daemon gave it (a route query names its source node). */
    static Map<Long, Integer> nodeIndices(FabricManagerDaemon daemon, Fabric fabric) throws Exception {
        Map<String, Long> byName = new HashMap<>();
        for (EndNode n : fabric.nodes()) {
            byName.put(n.name(), n.guid());
        }
        Map<Long, Integer> indices = new HashMap<>();
        int count = daemon.api().status().get().nodes();
        for (int i = 0; i < count && count > 1; i++) {
            Views.Route r = daemon.api().route(i, i == 0 ? 1 : 0).get();
            // the route names a node by its GUID (or by its name)
            Long guid = r.srcNode() != null && r.srcNode().startsWith("0x") ? Long.valueOf(Guids.parse(r.srcNode()))
                    : byName.get(r.srcNode());
            if (guid != null) {
                indices.put(guid, i);
            }
        }
        return indices;
    }

    static List<String> namespaceMap(NetlabNames names, Fabric fabric, Map<Long, Integer> indices) {
        List<String> lines = new ArrayList<>();
        lines.add("# NAMESPACE KIND GUID NAME [INDEX MAC ADDRESS]");
        for (FabricSwitch s : fabric.switches()) {
            lines.add(names.switchNamespace(s.guid()) + " switch " + Guids.format(s.guid()) + " " + s.name());
        }
        for (EndNode n : fabric.nodes()) {
            Integer i = indices.get(n.guid());
            lines.add(names.nodeNamespace(n.index()) + " node " + Guids.format(n.guid()) + " " + n.name()
                    + (i == null ? " - - -" : " " + i + " " + DestinationAddresses.mac(i) + " " + DestinationAddresses.ipv4(i)));
        }
        return lines;
    }

    /**
     * The lab's daemon: its files under {@code dir}, among them the admin token of the actions ({@code whatif},
     * {@code drain}, {@code rebalance}), written as the demos write theirs.
     *
     * @param ring the ring's η and δ in ms, or null for no failure detector
     */
    static DaemonConfig config(Path dir, PgftSpec spec, int httpPort, int[] ring) throws IOException {
        PkiDirectory pki = new PkiDirectory(dir.resolve("pki"));
        try {
            pki.init("fabric-manager netlab CA", Duration.ofDays(30), List.of("localhost"),
                    List.of(InetAddress.getLoopbackAddress()), Duration.ofDays(30), Clock.systemUTC());
            DaemonConfig config = labTimings(DaemonConfig.defaults().withSouthboundBind("127.0.0.1").withPorts(0, httpPort)
                    .withStateDirectory(dir.resolve("state")).withExpectedPgft(spec).withEngine(RoutingEngines.DEFAULT));
            DaemonConfig.Faults f = config.faults();
            config = config.withFaults(new DaemonConfig.Faults(f.settleMs(), f.flapThreshold(), f.flapWindowMs(),
                    f.quarantineMs(), new DaemonConfig.Detector(ring != null,
                    ring == null ? f.detector().etaMs() : ring[0], ring == null ? f.detector().deltaMs() : ring[1],
                    f.detector().overlay(), "127.0.0.1", DemoCommand.freeUdpPort(), DemoCommand.freeUdpPort(),
                    Math.max(f.detector().startupGraceMs(), ring == null ? 0 : 2 * ring[1]),
                    Math.min(f.detector().secondOpinionMs(), ring == null ? Integer.MAX_VALUE : ring[1]))));
            return config.withSecurity(new Security(false, null, pki.daemonCertificate().toString(),
                    pki.daemonKey().toString(), pki.caCertificate().toString(),
                    (int) Protocol.DEFAULT_INCARNATION_AHEAD_MS, TlsProvider.AUTO)).withAdminToken(DemoToken.ensure(dir));
        } catch (PkiException | ConfigException e) {
            throw new UsageException("netlab up: " + e.getMessage(), e);
        }
    }

    /** {@code config} with the lab's keepalive and acknowledgement timings ({@link #LAB_ECHO_MS}). */
    static DaemonConfig labTimings(DaemonConfig config) {
        return config.withSouthbound(config.southbound().withKeepalive(LAB_ECHO_MS, LAB_IDLE_MS))
                .withPush(LAB_ACK_TIMEOUT_MS, config.push().retries());
    }


    /** Removes a lab's directory left by an earlier run. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static NetlabNames names(String command, Arguments args) {
        try {
            return new NetlabNames(args.require("prefix"));
        } catch (IllegalArgumentException e) {
            throw new UsageException(command + ": " + e.getMessage(), e);
        }
    }

    /** Namespaces and bridges need root (CAP_SYS_ADMIN and CAP_NET_ADMIN). */
    static void requireRoot(String command) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                String[] f = line.split("\\s+");
                if (f.length > 2 && f[2].equals("0")) {
                    return;
                }
            }
        }
        throw new UsageException(command + ": needs root (it makes network namespaces, veth pairs and bridges)");
    }
}
