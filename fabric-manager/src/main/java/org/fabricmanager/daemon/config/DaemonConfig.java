package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SouthboundSettings;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;

/**
 * The daemon's whole configuration. Every option has a default (see {@link DefaultConfig} for the
 * commented file and {@code docs/configuration.md}); values are checked when the records are built, so
 * an instance is always usable.
 */
public record DaemonConfig(Southbound southbound, Rest rest, FabricSection fabric, Discovery discovery,
                           Routing routing, Push push, State state) {

    @JsonCreator
    public static DaemonConfig of(@JsonProperty("southbound") Southbound southbound, @JsonProperty("rest") Rest rest,
                                  @JsonProperty("fabric") FabricSection fabric,
                                  @JsonProperty("discovery") Discovery discovery,
                                  @JsonProperty("routing") Routing routing, @JsonProperty("push") Push push,
                                  @JsonProperty("state") State state) {
        return new DaemonConfig(
                southbound != null ? southbound : Southbound.of(null, null, null, null, null, null, null),
                rest != null ? rest : Rest.of(null, null, null),
                fabric != null ? fabric : FabricSection.of(null),
                discovery != null ? discovery : Discovery.of(null, null),
                routing != null ? routing : Routing.of(null, null, null),
                push != null ? push : Push.of(null, null, null),
                state != null ? state : State.of(null));
    }

    /** Every option at its default. */
    public static DaemonConfig defaults() {
        return of(null, null, null, null, null, null, null);
    }

    /** This configuration with other listening ports (command-line overrides); {@code null} keeps a port. */
    public DaemonConfig withPorts(Integer southboundPort, Integer httpPort) {
        Southbound s = southboundPort == null ? southbound : new Southbound(southbound.bind(), southboundPort,
                southbound.maxFrameBytes(), southbound.handshakeTimeoutMs(), southbound.echoIntervalMs(),
                southbound.idleTimeoutMs(), southbound.ioThreads());
        Rest r = httpPort == null ? rest : new Rest(rest.bind(), httpPort, rest.ioThreads());
        return new DaemonConfig(s, r, fabric, discovery, routing, push, state);
    }

    /** This configuration with the southbound server listening on another address. */
    public DaemonConfig withSouthboundBind(String bind) {
        Southbound s = new Southbound(bind, southbound.port(), southbound.maxFrameBytes(), southbound.handshakeTimeoutMs(),
                southbound.echoIntervalMs(), southbound.idleTimeoutMs(), southbound.ioThreads());
        return new DaemonConfig(s, rest, fabric, discovery, routing, push, state);
    }

    /** This configuration with another routing engine. */
    public DaemonConfig withEngine(String engine) {
        return new DaemonConfig(southbound, rest, fabric, discovery, new Routing(engine, routing.threads(),
                routing.settleMs()), push, state);
    }

    /** This configuration with another state directory. */
    public DaemonConfig withStateDirectory(Path directory) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, push, new State(directory.toString()));
    }

    /** This configuration with another expected PGFT ({@code null} for none). */
    public DaemonConfig withExpectedPgft(PgftSpec spec) {
        return new DaemonConfig(southbound, rest, new FabricSection(spec == null ? null : spec.toString()), discovery,
                routing, push, state);
    }

    /** This configuration with other discovery timings. */
    public DaemonConfig withDiscovery(int settleMs, int maxWaitMs) {
        return new DaemonConfig(southbound, rest, fabric, new Discovery(settleMs, maxWaitMs), routing, push, state);
    }

    /** This configuration with other push timings. */
    public DaemonConfig withPush(int ackTimeoutMs, int retries) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, new Push(ackTimeoutMs, retries,
                push.maxInFlight()), state);
    }

    /** This configuration with another limit on batches in flight. */
    public DaemonConfig withMaxInFlight(int maxInFlight) {
        return new DaemonConfig(southbound, rest, fabric, discovery, routing, new Push(push.ackTimeoutMs(), push.retries(),
                maxInFlight), state);
    }

    static int check(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ConfigException("option " + option + " must be in [" + min + ", " + max + "], got " + value);
        }
        return value;
    }

    /** Where switch agents connect. */
    public record Southbound(String bind, int port, int maxFrameBytes, int handshakeTimeoutMs, int echoIntervalMs,
                             int idleTimeoutMs, int ioThreads) {
        public Southbound {
            check("southbound.port", port, 0, 65535);
            check("southbound.maxFrameBytes", maxFrameBytes, Protocol.MIN_MAX_FRAME, Protocol.MAX_MAX_FRAME);
            check("southbound.handshakeTimeoutMs", handshakeTimeoutMs, 100, 600_000);
            check("southbound.echoIntervalMs", echoIntervalMs, 10, 600_000);
            check("southbound.idleTimeoutMs", idleTimeoutMs, 50, 3_600_000);
            check("southbound.ioThreads", ioThreads, 1, 256);
            if (idleTimeoutMs <= echoIntervalMs) {
                throw new ConfigException("option southbound.idleTimeoutMs (" + idleTimeoutMs
                        + ") must be larger than southbound.echoIntervalMs (" + echoIntervalMs + ")");
            }
            if (bind == null || bind.isBlank()) {
                throw new ConfigException("option southbound.bind must not be empty");
            }
        }

        @JsonCreator
        public static Southbound of(@JsonProperty("bind") String bind, @JsonProperty("port") Integer port,
                                    @JsonProperty("maxFrameBytes") Integer maxFrameBytes,
                                    @JsonProperty("handshakeTimeoutMs") Integer handshakeTimeoutMs,
                                    @JsonProperty("echoIntervalMs") Integer echoIntervalMs,
                                    @JsonProperty("idleTimeoutMs") Integer idleTimeoutMs,
                                    @JsonProperty("ioThreads") Integer ioThreads) {
            return new Southbound(bind != null ? bind : "0.0.0.0", port != null ? port : 7654,
                    maxFrameBytes != null ? maxFrameBytes : Protocol.DEFAULT_MAX_FRAME,
                    handshakeTimeoutMs != null ? handshakeTimeoutMs : 10_000,
                    echoIntervalMs != null ? echoIntervalMs : 2_000, idleTimeoutMs != null ? idleTimeoutMs : 10_000,
                    ioThreads != null ? ioThreads : 2);
        }

        /** The southbound server's settings. */
        public SouthboundSettings settings() {
            return new SouthboundSettings(bind, port, maxFrameBytes, handshakeTimeoutMs, echoIntervalMs, idleTimeoutMs,
                    ioThreads);
        }
    }

    /** Where the REST API listens. */
    public record Rest(String bind, int port, int ioThreads) {
        public Rest {
            check("rest.port", port, 0, 65535);
            check("rest.ioThreads", ioThreads, 1, 64);
            if (bind == null || bind.isBlank()) {
                throw new ConfigException("option rest.bind must not be empty");
            }
        }

        @JsonCreator
        public static Rest of(@JsonProperty("bind") String bind, @JsonProperty("port") Integer port,
                              @JsonProperty("ioThreads") Integer ioThreads) {
            return new Rest(bind != null ? bind : "127.0.0.1", port != null ? port : 7680,
                    ioThreads != null ? ioThreads : 1);
        }
    }

    /** What the fabric is expected to be. */
    public record FabricSection(String expectedPgft) {
        public FabricSection {
            if (expectedPgft != null) {
                try {
                    PgftSpec.parse(expectedPgft);
                } catch (TopologyException e) {
                    throw new ConfigException("option fabric.expectedPgft: " + e.getMessage());
                }
            }
        }

        @JsonCreator
        public static FabricSection of(@JsonProperty("expectedPgft") String expectedPgft) {
            return new FabricSection(expectedPgft);
        }

        /** The parsed expected PGFT, or {@code null} when none is configured. */
        public PgftSpec expectedSpec() {
            return expectedPgft == null ? null : PgftSpec.parse(expectedPgft);
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

    /** How tables are computed. */
    public record Routing(String engine, int threads, int settleMs) {
        public Routing {
            if (engine == null || engine.isBlank()) {
                throw new ConfigException("option routing.engine must not be empty");
            }
            check("routing.threads", threads, 0, 1024);
            check("routing.settleMs", settleMs, 0, 600_000);
        }

        @JsonCreator
        public static Routing of(@JsonProperty("engine") String engine, @JsonProperty("threads") Integer threads,
                                 @JsonProperty("settleMs") Integer settleMs) {
            return new Routing(engine != null ? engine : "dmodc", threads != null ? threads : 0,
                    settleMs != null ? settleMs : 50);
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
}
