package org.fabricmanager.opensm;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * OpenSM's plug-in {@code libfabricmanager.so} as built and shipped beside the jar ({@code docs/opensm.md}, "The daemon
 * as OpenSM's routing engine"), and OpenSM started with it on an {@link IbsimFabric}: the {@code opensm.conf} lines that
 * load it and make the daemon OpenSM's first routing engine, and the library path that finds it.
 */
public record OpenSmPlugin(Path directory) {
    /** The library's file name; OpenSM's {@code event_plugin_name fabricmanager} opens it. */
    public static final String LIBRARY = "libfabricmanager.so";
    /** What the build needs to make it. */
    public static final String BUILD_HINT = "build it with gcc and OpenSM's headers present: apt-get install gcc "
            + "libopensm-dev libibumad-dev, then mvn package";
    /** OpenSM's engine when the daemon does not answer. */
    public static final String FALLBACK = "minhop";

    /**
     * The plug-in beside {@code jar}: {@code opensm-plugin/} in a build tree ({@code target/fabric-manager-all.jar}),
     * {@code opensm/} in a release tarball or the Debian package ({@code lib/fabric-manager.jar}).
     */
    public static Optional<OpenSmPlugin> find(Path jar) {
        Path dir = jar.toAbsolutePath().getParent();
        if (dir == null) {
            return Optional.empty();
        }
        for (String sub : List.of("opensm-plugin", "opensm")) {
            if (Files.isRegularFile(dir.resolve(sub).resolve(LIBRARY))) {
                return Optional.of(new OpenSmPlugin(dir.resolve(sub)));
            }
        }
        return Optional.empty();
    }

    /**
     * OpenSM's engines after the daemon's, for {@code routing_engine}, and the GUID files they read
     * ({@code root_guid_file}, {@code cn_guid_file}; null: not given).
     *
     * @param engines      the engine list after {@code fabric-manager}, e.g. {@code ftree,minhop}
     * @param rootGuids    the root GUID file, or null
     * @param computeNodes the compute-node GUID file, or null
     */
    public record Fallback(String engines, Path rootGuids, Path computeNodes) {
        /** {@value OpenSmPlugin#FALLBACK} alone, without GUID files. */
        public static final Fallback MINHOP = new Fallback(FALLBACK, null, null);

        /** {@code ftree}, then {@value OpenSmPlugin#FALLBACK}, with both GUID files. */
        public static Fallback ftree(Path rootGuids, Path computeNodes) {
            return new Fallback("ftree," + FALLBACK, rootGuids, computeNodes);
        }
    }

    /**
     * The options file that loads the plug-in, sends every routing pass to the daemon on {@code socket} (waiting at most
     * {@code timeoutMs}), falls back to {@value #FALLBACK}, sweeps every second (a trap or a missed one is seen at
     * once) and flushes its log at each line (what the tests and the demo read).
     */
    public static String conf(Path socket, int timeoutMs) {
        return conf(socket, timeoutMs, Fallback.MINHOP);
    }

    /** As {@link #conf(Path, int)}, falling back to {@code fallback}'s engines with its GUID files. */
    public static String conf(Path socket, int timeoutMs, Fallback fallback) {
        return "event_plugin_name fabricmanager\n"
                + "event_plugin_options fm.socket=" + socket.toAbsolutePath() + " fm.timeout_ms=" + timeoutMs + "\n"
                + "routing_engine fabric-manager," + fallback.engines() + "\n"
                + (fallback.rootGuids() == null ? "" : "root_guid_file " + fallback.rootGuids().toAbsolutePath() + "\n")
                + (fallback.computeNodes() == null ? "" : "cn_guid_file " + fallback.computeNodes().toAbsolutePath() + "\n")
                + "sweep_interval 1\n"
                + "log_flags 0x03\n"
                + "force_log_flush TRUE\n";
    }

    /**
     * Starts OpenSM on {@code lab} with the plug-in ({@link #conf}), its options file, log ({@code opensm.log}) and
     * output in {@code runDir}; the caller stops it.
     */
    public Process startOpenSm(IbsimFabric lab, Path socket, int timeoutMs, Path runDir) throws IOException {
        return startOpenSm(lab, socket, timeoutMs, runDir, Fallback.MINHOP);
    }

    /** As {@link #startOpenSm(IbsimFabric, Path, int, Path)}, falling back to {@code fallback}. */
    public Process startOpenSm(IbsimFabric lab, Path socket, int timeoutMs, Path runDir, Fallback fallback)
            throws IOException {
        return startOpenSm(lab, socket, timeoutMs, runDir, fallback, "");
    }

    /**
     * OpenSM's performance manager reading every port's counters every 2 s, at most 4 queries outstanding: under ibsim,
     * OpenSM's default of 500 hangs OpenSM, plug-in or not (its sending thread, blocked writing to ibsim, holds
     * libumad2sim's lock that its reading threads wait for, while ibsim is blocked writing to OpenSM; docs/opensm.md,
     * "Port counters").
     */
    public static final String PERFMGR = "perfmgr TRUE\nperfmgr_sweep_time_s 2\nperfmgr_max_outstanding_queries 4\n";

    /** As {@link #startOpenSm(IbsimFabric, Path, int, Path, Fallback)}, with {@code moreOptions} (lines) after. */
    public Process startOpenSm(IbsimFabric lab, Path socket, int timeoutMs, Path runDir, Fallback fallback,
                               String moreOptions) throws IOException {
        Path conf = writeConf(socket, timeoutMs, runDir, fallback, moreOptions);
        return lab.startOpenSm(conf, runDir, Map.of("LD_LIBRARY_PATH", libraryPath()));
    }

    /**
     * OpenSM with the plug-in ({@link #conf}, falling back to {@value #FALLBACK}, then {@code moreOptions}) as one of
     * several subnet managers: it takes part in OpenSM's SM election (the other starts ignore other SMs), attached to the
     * ibsim node {@code simHost} (libumad2sim's {@code SIM_HOST}: an id of the net file; {@code null}: its first
     * node), as on one of several management hosts. {@code moreOptions} gives it its {@code sm_priority}.
     */
    public Process startElectingOpenSm(IbsimFabric lab, Path socket, int timeoutMs, Path runDir, String moreOptions,
                                       String simHost) throws IOException {
        Path conf = writeConf(socket, timeoutMs, runDir, Fallback.MINHOP, moreOptions);
        Map<String, String> env = new HashMap<>();
        env.put("LD_LIBRARY_PATH", libraryPath());
        if (simHost != null) {
            env.put("SIM_HOST", simHost);
        }
        return lab.startOpenSm(conf, runDir, env, List.of());
    }

    private static Path writeConf(Path socket, int timeoutMs, Path runDir, Fallback fallback, String moreOptions)
            throws IOException {
        Files.createDirectories(runDir);
        Path conf = runDir.resolve("opensm.conf");
        Files.writeString(conf, conf(socket, timeoutMs, fallback) + moreOptions);
        return conf;
    }

    /** This plug-in's directory, then the inherited library path. */
    private String libraryPath() {
        String inherited = System.getenv("LD_LIBRARY_PATH");
        return directory.toAbsolutePath() + (inherited == null || inherited.isEmpty() ? "" : File.pathSeparator + inherited);
    }
}
