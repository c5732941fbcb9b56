package org.fabricmanager.system;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.OpenSmPlugin;
import org.fabricmanager.opensm.OpenSmTools;
import org.fabricmanager.testing.RealParts;

/**
 * What the system tests with OpenSM share: its tools and the plug-in (the test skips, saying what to install, when
 * either is missing), a daemon configuration serving the plug-in's socket, and OpenSM's stop.
 *
 * @param tools  OpenSM, ibsim and infiniband-diags
 * @param plugin the plug-in the build made
 */
record OpenSmLab(OpenSmTools tools, OpenSmPlugin plugin) {
    /** Bounds, not measures: a stuck tool must not hang the build. */
    static final long TOOL_LIMIT_SECONDS = 120;
    /** The plug-in's wait for the daemon's answer. */
    static final int PLUGIN_TIMEOUT_MS = 15_000;

    /** The tools and the plug-in; a JUnit assumption (the test skips) when either is missing. */
    static OpenSmLab require() {
        OpenSmTools tools = OpenSmTools.find().orElse(null);
        RealParts.require(tools != null, "OpenSM tools missing: " + OpenSmTools.missing() + " ("
                + OpenSmTools.INSTALL_HINT + ")");
        OpenSmPlugin plugin = OpenSmPlugin.find(Path.of(System.getProperty("fm.jar"))).orElse(null);
        RealParts.require(plugin != null, "the OpenSM plug-in was not built (" + OpenSmPlugin.BUILD_HINT + ")");
        return new OpenSmLab(tools, plugin);
    }

    /** A test daemon's configuration with its state in {@code state}, serving the plug-in on {@code socket}. */
    static DaemonConfig daemonConfig(Path state, Path socket) {
        return SystemSupport.config(state, null).withDiscovery(300, 30_000)
                .withOpenSm(OpenSm.of(socket.toString(), null, null, null));
    }

    /**
     * Waits until OpenSM, logging in {@code opensmDir}, said SUBNET UP: its ports are active then. Before, a LID-routed
     * tool (ibroute, perfquery) can find its packets dropped at a port still armed, even once the daemon converged on
     * the tables OpenSM set.
     */
    static void awaitSubnetUp(Path opensmDir) {
        awaitLog(opensmDir.resolve("opensm.log"), "SUBNET UP", 1);
    }

    /** Waits until OpenSM's log holds {@code text} at least {@code times} times. */
    static void awaitLog(Path log, String text, int times) {
        SystemSupport.awaitTrue(() -> Files.exists(log) && count(Files.readString(log, StandardCharsets.ISO_8859_1), text) >= times,
                "OpenSM's log " + log + " shows '" + text + "' " + times + " times", (int) TOOL_LIMIT_SECONDS);
    }

    private static int count(String s, String text) {
        int n = 0;
        for (int i = s.indexOf(text); i >= 0; i = s.indexOf(text, i + 1)) {
            n++;
        }
        return n;
    }

    /**
     * Stops OpenSM, if it started and is still running (closing the {@link IbsimFabric} it runs on stops it too, before
     * ibsim: a test's {@code finally} runs after its resources closed).
     */
    static void stop(Process opensm) {
        IbsimFabric.stopOpenSm(opensm);
    }
}
