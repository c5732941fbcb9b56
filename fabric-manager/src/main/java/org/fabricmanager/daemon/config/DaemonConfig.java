package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.fabricmanager.routing.FabricShapes;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;

/**
 * The daemon's whole configuration. Every option has a default (see {@link DefaultConfig} for the
 * commented file and {@code docs/configuration.md}); values are checked when the records are built, so
 * an instance is always usable. One record per section of the file: the smaller sections are nested here,
 * the larger ones ({@link Southbound}, {@link Rest}, {@link Security}, {@link Ha}, {@link OpenSm}) have files of
 * their own.
 */
public record DaemonConfig(Southbound southbound, Rest rest, FabricSection fabric, Discovery discovery,
                           Routing routing, Push push, State state, Faults faults, Security security, Ha ha,
                           OpenSm opensm, LinkHealthSection linkHealth) {

    /** A configuration with the default {@code linkHealth} section. */
    public DaemonConfig(Southbound southbound, Rest rest, FabricSection fabric, Discovery discovery, Routing routing,
                        Push push, State state, Faults faults, Security security, Ha ha, OpenSm opensm) {
        this(southbound, rest, fabric, discovery, routing, push, state, faults, security, ha, opensm,
                LinkHealthSection.defaults());
    }

    /** A configuration without the OpenSM provider ({@code opensm.socket: null}). */
    public DaemonConfig(Southbound southbound, Rest rest, FabricSection fabric, Discovery discovery, Routing routing,
                        Push push, State state, Faults faults, Security security, Ha ha) {
        this(southbound, rest, fabric, discovery, routing, push, state, faults, security, ha, OpenSm.of(null, null, null, null));
    }

    /** A configuration without hot-standby managers ({@code ha.enabled: false}). */
    public DaemonConfig(Southbound southbound, Rest rest, FabricSection fabric, Discovery discovery, Routing routing,
                        Push push, State state, Faults faults, Security security) {
        this(southbound, rest, fabric, discovery, routing, push, state, faults, security, Ha.defaults());
    }

    public DaemonConfig {
        if (southbound != null && !southbound.enabled() && opensm != null && !opensm.enabled()) {
            throw new ConfigException("option southbound.enabled is false and opensm.socket is not set: no agent and no "
                    + "OpenSM could reach this daemon; set opensm.socket (docs/opensm.md) or leave southbound.enabled true");
        }
        // an engine and an expected shape it is not made for (RoutingEngine.shapes): refused before anything starts
        if (routing != null && fabric != null && (fabric.expectedPgft() != null || fabric.expectedHdft() != null)
                && RoutingEngines.names().contains(routing.engine())) {
            String engine = routing.engine();
            FabricShapes shapes = RoutingEngines.ask(engine, RoutingEngine::shapes);
            if (fabric.expectedPgft() != null && !shapes.pgft()) {
                throw new ConfigException("option routing.engine: " + engine + " routes 2-D fat trees "
                        + "(fabric.expectedHdft), but fabric.expectedPgft is " + fabric.expectedPgft() + ": use "
                        + RoutingEngines.DEFAULT + " for a PGFT");
            }
            if (fabric.expectedHdft() != null && !shapes.hdft()) {
                throw new ConfigException("option routing.engine: " + engine + " routes PGFTs and its tables can "
                        + "deadlock on the 2-D fat tree of fabric.expectedHdft (" + fabric.expectedHdft()
                        + "): use " + String.join(" or ", RoutingEngines.forDaemon(FabricShapes.HDFT)));
            }
        }
    }

    /** A configuration with the default (secure, but not yet provisioned) security section. */
    public DaemonConfig(Southbound southbound, Rest rest, FabricSection fabric, Discovery discovery, Routing routing,
                        Push push, State state, Faults faults) {
        this(southbound, rest, fabric, discovery, routing, push, state, faults, Security.of(null, null, null, null, null, null, null));
    }

    @JsonCreator
    public static DaemonConfig of(@JsonProperty("southbound") Southbound southbound, @JsonProperty("rest") Rest rest,
                                  @JsonProperty("fabric") FabricSection fabric,
                                  @JsonProperty("discovery") Discovery discovery,
                                  @JsonProperty("routing") Routing routing, @JsonProperty("push") Push push,
                                  @JsonProperty("state") State state, @JsonProperty("faults") Faults faults,
                                  @JsonProperty("security") Security security, @JsonProperty("ha") Ha ha,
                                  @JsonProperty("opensm") OpenSm opensm,
                                  @JsonProperty("linkHealth") LinkHealthSection linkHealth) {
        return new DaemonConfig(
                southbound != null ? southbound : Southbound.of(null, null, null, null, null, null, null, null, null, null, null, null),
                rest != null ? rest : Rest.of(null, null, null, null, null, null, null, null),
                fabric != null ? fabric : FabricSection.of(null),
                discovery != null ? discovery : Discovery.of(null, null),
                routing != null ? routing : Routing.of(null, null, null),
                push != null ? push : Push.of(null, null, null),
                state != null ? state : State.of(null),
                faults != null ? faults : Faults.of(null, null, null, null, null),
                security != null ? security : Security.of(null, null, null, null, null, null, null),
                ha != null ? ha : Ha.defaults(),
                opensm != null ? opensm : OpenSm.of(null, null, null, null),
                linkHealth != null ? linkHealth : LinkHealthSection.defaults());
    }

    /** Every option at its default. */
    public static DaemonConfig defaults() {
        return of(null, null, null, null, null, null, null, null, null, null, null, null);
    }

    /** This configuration with other listening ports (command-line overrides); {@code null} keeps a port. */
    public DaemonConfig withPorts(Integer southboundPort, Integer httpPort) {
        Southbound s = southboundPort == null ? southbound : southbound.withAddress(southbound.bind(), southboundPort);
        Rest r = httpPort == null ? rest : rest.withPort(httpPort);
        return new DaemonConfig(s, r, fabric, discovery, routing, push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with the failure detector switched on or off. */
    public DaemonConfig withDetector(boolean on) {
        Faults f = new Faults(faults.settleMs(), faults.flapThreshold(), faults.flapWindowMs(), faults.quarantineMs(),
                faults.detector().withEnabled(on));
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, state, f, security, ha, opensm, linkHealth);
    }

    /** This configuration with the southbound server listening on another address. */
    public DaemonConfig withSouthboundBind(String bind) {
        return withSouthbound(southbound.withAddress(bind, southbound.port()));
    }

    /** This configuration with another southbound section. */
    public DaemonConfig withSouthbound(Southbound section) {
        return new DaemonConfig(section, rest, fabric, discovery, routing, push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with another routing engine. */
    public DaemonConfig withEngine(String engine) {
        return new DaemonConfig(southbound, rest, fabric, discovery, new Routing(engine, routing.threads(),
                routing.settleMs(), routing.onFault(), routing.rebalance()), push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with another {@code routing.rebalance.quietPeriod} ({@code off}, {@code 30m}...). */
    public DaemonConfig withQuietPeriod(String quietPeriod) {
        return withRebalance(new Rebalance(quietPeriod, routing.rebalance().refineAfter()));
    }

    /** This configuration with another {@code routing.rebalance.refineAfter} ({@code off}, {@code 1s}...). */
    public DaemonConfig withRefineAfter(String refineAfter) {
        return withRebalance(new Rebalance(routing.rebalance().quietPeriod(), refineAfter));
    }

    private DaemonConfig withRebalance(Rebalance rebalance) {
        return new DaemonConfig(southbound, rest, fabric, discovery, new Routing(routing.engine(), routing.threads(),
                routing.settleMs(), routing.onFault(), rebalance), push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with another state directory. */
    public DaemonConfig withStateDirectory(Path directory) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, new State(directory.toString()), faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with another expected PGFT ({@code null} for none). */
    public DaemonConfig withExpectedPgft(PgftSpec spec) {
        return new DaemonConfig(southbound, rest, new FabricSection(spec == null ? null : spec.toString(), fabric.admit(), fabric.admitList(),
                fabric.unreadyOnMismatch(), fabric.expectedHdft()), discovery,
                routing, push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with an expected HDFT instead of an expected PGFT ({@code null} for none). */
    public DaemonConfig withExpectedHdft(HdftSpec spec) {
        return new DaemonConfig(southbound, rest, new FabricSection(null, "expected".equals(fabric.admit()) ? null
                : fabric.admit(), fabric.admitList(), fabric.unreadyOnMismatch(), spec == null ? null : spec.toString()),
                discovery, routing, push,
                state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with other discovery timings. */
    public DaemonConfig withDiscovery(int settleMs, int maxWaitMs) {
        return new DaemonConfig(southbound, rest, fabric, new Discovery(settleMs, maxWaitMs), routing, push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with other push timings. */
    public DaemonConfig withPush(int ackTimeoutMs, int retries) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, new Push(ackTimeoutMs, retries,
                push.maxInFlight()), state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with another limit on batches in flight. */
    public DaemonConfig withMaxInFlight(int maxInFlight) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, new Push(push.ackTimeoutMs(), push.retries(),
                maxInFlight), state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with another {@code linkHealth} section. */
    public DaemonConfig withLinkHealth(LinkHealthSection section) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, state, faults, security, ha, opensm,
                section);
    }

    /** This configuration with another OpenSM provider section. */
    public DaemonConfig withOpenSm(OpenSm section) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, state, faults, security, ha, section, linkHealth);
    }

    static int check(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ConfigException("option " + option + " must be in [" + min + ", " + max + "], got " + value);
        }
        return value;
    }

    /**
     * What the fabric is expected to be, and which switches may enter it.
     *
     * @param admit     {@code expected}, {@code list} or {@code any} ({@code null}: expected with an expected PGFT,
     *                  else any)
     * @param admitList switch GUIDs admitted without an admin (for {@code list}; also honoured by {@code expected})
     * @param unreadyOnMismatch whether a fabric that is not the expected PGFT (verdict MISWIRED) makes
     *                  {@code /health/ready} answer 503 with the reason ({@code null}: yes)
     * @param expectedHdft the expected 2-D fat tree (routed with vtftr), instead of an expected PGFT
     */
    public record FabricSection(String expectedPgft, String admit, List<String> admitList, Boolean unreadyOnMismatch,
                                String expectedHdft) {
        public FabricSection {
            unreadyOnMismatch = unreadyOnMismatch == null ? Boolean.TRUE : unreadyOnMismatch;
            if (expectedHdft != null) {
                try {
                    HdftSpec.parse(expectedHdft);
                } catch (TopologyException e) {
                    throw new ConfigException("option fabric.expectedHdft: " + e.getMessage());
                }
                if (expectedPgft != null) {
                    throw new ConfigException("options fabric.expectedPgft and fabric.expectedHdft: give one expected "
                            + "shape, not both");
                }
                if ("expected".equals(admit)) {
                    throw new ConfigException("option fabric.admit: 'expected' admits the switches of fabric.expectedPgft; "
                            + "with fabric.expectedHdft use list or any");
                }
            }
            if (expectedPgft != null) {
                try {
                    PgftSpec.parse(expectedPgft);
                } catch (TopologyException e) {
                    throw new ConfigException("option fabric.expectedPgft: " + e.getMessage());
                }
            }
            admitList = admitList == null ? List.of() : List.copyOf(admitList);
            if (admit != null && !List.of("expected", "list", "any").contains(admit)) {
                throw new ConfigException("option fabric.admit: expected, list or any, got '" + admit + "'");
            }
            if ("expected".equals(admit) && expectedPgft == null) {
                throw new ConfigException("option fabric.admit: 'expected' needs fabric.expectedPgft");
            }
            for (String g : admitList) {
                try {
                    Guids.parseLenient(g);
                } catch (TopologyException e) {
                    throw new ConfigException("option fabric.admitList: '" + g + "' is not a GUID");
                }
            }
        }

        /** A section with an expected PGFT and the default admission. */
        public FabricSection(String expectedPgft) {
            this(expectedPgft, null, List.of());
        }

        /** A section with the default readiness on a mismatch (not ready) and no expected HDFT. */
        public FabricSection(String expectedPgft, String admit, List<String> admitList) {
            this(expectedPgft, admit, admitList, null, null);
        }

        @JsonCreator
        public static FabricSection of(@JsonProperty("expectedPgft") String expectedPgft,
                                       @JsonProperty("admit") String admit,
                                       @JsonProperty("admitList") List<String> admitList,
                                       @JsonProperty("unreadyOnMismatch") Boolean unreadyOnMismatch,
                                       @JsonProperty("expectedHdft") String expectedHdft) {
            return new FabricSection(expectedPgft, admit, admitList, unreadyOnMismatch, expectedHdft);
        }

        /** The section of a bare expected PGFT. */
        public static FabricSection of(String expectedPgft) {
            return new FabricSection(expectedPgft);
        }

        /** The parsed expected PGFT, or {@code null} when none is configured. */
        public PgftSpec expectedSpec() {
            return expectedPgft == null ? null : PgftSpec.parse(expectedPgft);
        }

        /** The GUIDs of {@code admitList}. */
        public Set<Long> admitGuids() {
            Set<Long> out = new LinkedHashSet<>();
            for (String g : admitList) {
                out.add(Guids.parseLenient(g));
            }
            return out;
        }
    }

    /** When the first routing starts. */
    public record Discovery(int settleMs, int maxWaitMs) {
        public Discovery {
            check("discovery.settleMs", settleMs, 0, 3_600_000);
            check("discovery.maxWaitMs", maxWaitMs, 0, 3_600_000);
        }

        @JsonCreator
        public static Discovery of(@JsonProperty("settleMs") Integer settleMs, @JsonProperty("maxWaitMs") Integer maxWaitMs) {
            return new Discovery(settleMs != null ? settleMs : 3_000, maxWaitMs != null ? maxWaitMs : 60_000);
        }
    }

    /**
     * How tables are computed. {@code engine}: {@link RoutingEngines#DEFAULT} when not given. {@code onFault}:
     * {@link #REPAIR} (the tables of the last full routing repaired for the fabric, only the entries a change
     * forces moving; engines that repair, others recompute) or {@link #RECOMPUTE} (the engine's full routing of
     * every snapshot).
     */
    public record Routing(String engine, int threads, int settleMs, String onFault, Rebalance rebalance) {
        /** {@code routing.onFault} that repairs the tables in force after a change. */
        public static final String REPAIR = "repair";
        /** {@code routing.onFault} that recomputes the whole routing after a change. */
        public static final String RECOMPUTE = "recompute";

        public Routing {
            if (engine == null || engine.isBlank()) {
                throw new ConfigException("option routing.engine must not be empty");
            }
            if (RoutingEngines.names().contains(engine) && !RoutingEngines.ask(engine, RoutingEngine::routesForDaemon)) {
                throw new ConfigException("option routing.engine: " + engine + " is for route and quality only (it has"
                        + " no repair path and is slow on large fabrics; docs/routing.md): use one of "
                        + String.join(", ", RoutingEngines.forDaemon()));
            }
            check("routing.threads", threads, 0, 1024);
            check("routing.settleMs", settleMs, 0, 600_000);
            if (!REPAIR.equals(onFault) && !RECOMPUTE.equals(onFault)) {
                throw new ConfigException("option routing.onFault must be repair or recompute, got '" + onFault + "'");
            }
            rebalance = rebalance != null ? rebalance : new Rebalance(null, null);
        }

        /** The same with no automatic rebalance. */
        public Routing(String engine, int threads, int settleMs, String onFault) {
            this(engine, threads, settleMs, onFault, null);
        }

        /** The same with {@code onFault} {@link #REPAIR}. */
        public Routing(String engine, int threads, int settleMs) {
            this(engine, threads, settleMs, REPAIR);
        }

        @JsonCreator
        public static Routing of(@JsonProperty("engine") String engine, @JsonProperty("threads") Integer threads,
                                 @JsonProperty("settleMs") Integer settleMs, @JsonProperty("onFault") String onFault,
                                 @JsonProperty("rebalance") Rebalance rebalance) {
            return new Routing(engine != null ? engine : RoutingEngines.DEFAULT, threads != null ? threads : 0,
                    settleMs != null ? settleMs : 50, onFault != null ? onFault : REPAIR, rebalance);
        }

        /** As {@link #of(String, Integer, Integer, String, Rebalance)} with the default {@code onFault}. */
        public static Routing of(String engine, Integer threads, Integer settleMs) {
            return of(engine, threads, settleMs, null, null);
        }

        /** True when faults repair the tables in force ({@code onFault: repair}). */
        public boolean repairs() {
            return REPAIR.equals(onFault);
        }

        /** The routing pool size: {@code threads}, or the number of processors when 0. */
        public int effectiveThreads() {
            return threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        }
    }

    /** How tables are installed. */
    public record Push(int ackTimeoutMs, int retries, int maxInFlight) {
        public Push {
            check("push.ackTimeoutMs", ackTimeoutMs, 10, 600_000);
            check("push.retries", retries, 0, 100);
            check("push.maxInFlight", maxInFlight, 1, 1_000_000);
        }

        @JsonCreator
        public static Push of(@JsonProperty("ackTimeoutMs") Integer ackTimeoutMs, @JsonProperty("retries") Integer retries,
                              @JsonProperty("maxInFlight") Integer maxInFlight) {
            return new Push(ackTimeoutMs != null ? ackTimeoutMs : 5_000, retries != null ? retries : 3,
                    maxInFlight != null ? maxInFlight : 256);
        }
    }

    /** Where the daemon keeps what must survive a restart. */
    public record State(String directory) {
        public State {
            if (directory == null || directory.isBlank()) {
                throw new ConfigException("option state.directory must not be empty");
            }
        }

        @JsonCreator
        public static State of(@JsonProperty("directory") String directory) {
            return new State(directory != null ? directory : "/var/lib/fabric-manager");
        }

        public Path path() {
            return Path.of(directory);
        }
    }

    /** This configuration with another security section. */
    public DaemonConfig withSecurity(Security security) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with other fault-reaction settings. */
    public DaemonConfig withFaults(Faults faults) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, state, faults, security, ha, opensm, linkHealth);
    }

    /** This configuration with an admin token for the REST actions ({@code null}: none, actions refused). */
    public DaemonConfig withAdminToken(String token) {
        return new DaemonConfig(southbound, rest.withAdminToken(token), fabric, discovery,
                routing, push, state, faults, security, ha, opensm, linkHealth);
    }

    /**
     * How the daemon reacts to faults: the settle window that coalesces fault events into one
     * re-route, flap quarantine, and the ring failure detector.
     *
     * @param settleMs           fault events this close together (and during a computation) make one re-route
     * @param flapThreshold      a link going down more than this many times within {@code flapWindowMs} is quarantined
     * @param flapWindowMs       the flap counting window
     * @param quarantineMs       a quarantined link must stay up this long before it is used again (hysteresis)
     * @param detector           the ring failure detector
     */
    public record Faults(int settleMs, int flapThreshold, int flapWindowMs, int quarantineMs, Detector detector) {
        public Faults {
            check("faults.settleMs", settleMs, 0, 600_000);
            check("faults.flapThreshold", flapThreshold, 1, 1_000_000);
            check("faults.flapWindowMs", flapWindowMs, 1, 86_400_000);
            check("faults.quarantineMs", quarantineMs, 0, 86_400_000);
            if (detector == null) {
                throw new ConfigException("option faults.detector must not be null");
            }
        }

        @JsonCreator
        public static Faults of(@JsonProperty("settleMs") Integer settleMs, @JsonProperty("flapThreshold") Integer flapThreshold,
                                @JsonProperty("flapWindowMs") Integer flapWindowMs,
                                @JsonProperty("quarantineMs") Integer quarantineMs,
                                @JsonProperty("detector") Detector detector) {
            return new Faults(settleMs != null ? settleMs : 50, flapThreshold != null ? flapThreshold : 3,
                    flapWindowMs != null ? flapWindowMs : 60_000, quarantineMs != null ? quarantineMs : 120_000,
                    detector != null ? detector : Detector.of(null, null, null, null, null, null, null, null, null));
        }
    }

    /**
     * The ring-heartbeat failure detector ({@code docs/detector.md}) run by every agent and the daemon.
     *
     * @param enabled   send DETECTOR_CONFIG to the agents and run the daemon's member
     * @param etaMs     heartbeat period η
     * @param deltaMs   suspicion timeout δ (at least 2η)
     * @param overlay   broadcast overlay: {@code bmg} or {@code hypercube}
     * @param bind      the daemon member's UDP address (a concrete address: agents check the sender)
     * @param port      the daemon member's UDP port (fixed: it is part of the ring's fingerprint)
     * @param agentPort the UDP port every agent's member listens on, at the address it connects from
     * @param startupGraceMs at a cold start of the ring, how long the daemon's member waits at most for its
     *                  emitter (the last switch configured) to start; the wait ends earlier, 2δ after every
     *                  agent has answered its configuration. At least 2δ
     * @param secondOpinionMs before acting on the ring's verdict that a switch is dead, how long the daemon waits
     *                  for that switch's agent to answer an echo on its session (an answer refutes the verdict),
     *                  whatever the session's round trips: the longest a starved agent may stay silent beyond δ;
     *                  0 acts on the verdict alone. At most δ; by default δ/2
     */
    public record Detector(boolean enabled, int etaMs, int deltaMs, String overlay, String bind, int port, int agentPort,
                           int startupGraceMs, int secondOpinionMs) {
        public Detector {
            check("faults.detector.etaMs", etaMs, 1, 600_000);
            check("faults.detector.deltaMs", deltaMs, 2, 3_600_000);
            if (deltaMs < 2 * etaMs) {
                throw new ConfigException("option faults.detector.deltaMs (" + deltaMs
                        + ") must be at least twice faults.detector.etaMs (" + etaMs + ")");
            }
            if (!"bmg".equals(overlay) && !"hypercube".equals(overlay)) {
                throw new ConfigException("option faults.detector.overlay must be bmg or hypercube, got '" + overlay + "'");
            }
            if (bind == null || bind.isBlank() || bind.equals("0.0.0.0") || bind.equals("::")) {
                throw new ConfigException("option faults.detector.bind must be a concrete address (agents check the "
                        + "sender of every heartbeat), got '" + bind + "'");
            }
            check("faults.detector.port", port, 0, 65535);
            check("faults.detector.agentPort", agentPort, 1, 65535);
            check("faults.detector.startupGraceMs", startupGraceMs, 2, 3_600_000);
            if (startupGraceMs < 2L * deltaMs) {
                throw new ConfigException("option faults.detector.startupGraceMs (" + startupGraceMs
                        + ") must be at least twice faults.detector.deltaMs (" + deltaMs + ")");
            }
            // a longer wait would cost more than the ring's own bound on a real death
            check("faults.detector.secondOpinionMs", secondOpinionMs, 0, deltaMs);
        }

        /** These settings, switched on or off. */
        public Detector withEnabled(boolean on) {
            return new Detector(on, etaMs, deltaMs, overlay, bind, port, agentPort, startupGraceMs, secondOpinionMs);
        }

        /** As the canonical constructor, with the default second opinion of δ/2. */
        public Detector(boolean enabled, int etaMs, int deltaMs, String overlay, String bind, int port, int agentPort,
                        int startupGraceMs) {
            this(enabled, etaMs, deltaMs, overlay, bind, port, agentPort, startupGraceMs, deltaMs / 2);
        }

        @JsonCreator
        public static Detector of(@JsonProperty("enabled") Boolean enabled, @JsonProperty("etaMs") Integer etaMs,
                                  @JsonProperty("deltaMs") Integer deltaMs, @JsonProperty("overlay") String overlay,
                                  @JsonProperty("bind") String bind, @JsonProperty("port") Integer port,
                                  @JsonProperty("agentPort") Integer agentPort,
                                  @JsonProperty("startupGraceMs") Integer startupGraceMs,
                                  @JsonProperty("secondOpinionMs") Integer secondOpinionMs) {
            int delta = deltaMs != null ? deltaMs : 500;
            // on unless switched off: the ring is what finds a dead switch in a few hundred milliseconds
            return new Detector(enabled == null || enabled, etaMs != null ? etaMs : 100, delta,
                    overlay != null ? overlay : "bmg", bind != null ? bind : "127.0.0.1", port != null ? port : 7683,
                    agentPort != null ? agentPort : 7684, startupGraceMs != null ? startupGraceMs : 30_000,
                    secondOpinionMs != null ? secondOpinionMs : delta / 2);
        }
    }

    /** This configuration with another ha section. */
    public DaemonConfig withHa(Ha ha) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, state, faults, security, ha, opensm, linkHealth);
    }

}
