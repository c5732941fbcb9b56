package org.fabricmanager.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP for {@code run}: re-reads the logging configuration and the YAML configuration, applies what can
 * change at run time ({@link ConfigReload}) and logs what changed and what needs a restart. Without a
 * handler the JVM exits on SIGHUP (status 129), which is what a reload must never do. {@code sun.misc.Signal}
 * (module jdk.unsupported) is the only way the JDK offers to catch it.
 */
final class HangupReload {
    private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(HangupReload.class);
    private static final long APPLY_TIMEOUT_MS = 10_000;

    private final FabricManagerDaemon daemon;
    private final Supplier<DaemonConfig> reader;
    private final String source;

    private HangupReload(FabricManagerDaemon daemon, Supplier<DaemonConfig> reader, String source) {
        this.daemon = daemon;
        this.reader = reader;
        this.source = source;
    }

    /**
     * Installs the handler. {@code reader} re-reads the configuration as at start-up (file plus command-line
     * overrides) and throws {@link UsageException} with a one-line reason when it is invalid.
     */
    static void install(FabricManagerDaemon daemon, Supplier<DaemonConfig> reader, String source) {
        HangupReload reload = new HangupReload(daemon, reader, source);
        // the JVM runs handlers on its own short-lived thread: a reload must not be lost to an exception
        SignalHandler before = Signal.handle(new Signal("HUP"), sig -> reload.reload());
        if (before == SignalHandler.SIG_IGN) {
            // A process started with SIGHUP ignored (nohup, some init scripts) keeps it ignored: the JVM installs
            // no handler then, and without this line a reload would silently do nothing.
            LOG.warn("SIGHUP is ignored in this process (it was started with SIGHUP ignored, e.g. under nohup): "
                    + "configuration reload by SIGHUP is unavailable; restart the daemon to apply changes, or start "
                    + "it without nohup (the systemd unit does)");
        }
    }

    /** One reload; never throws (a bad file keeps everything as it runs). */
    void reload() {
        try {
            String logging = reloadLogging();
            DaemonConfig read;
            try {
                read = reader.get();
            } catch (UsageException e) {
                LOG.warn("SIGHUP: {}; {}; the running configuration is kept", e.getMessage(), logging);
                return;
            }
            ConfigReload r = daemon.reload(read).get(APPLY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOG.info("SIGHUP: reloaded {}; {}; changed: {}; needs a restart: {}", source, logging,
                    r.changed().isEmpty() ? "nothing" : String.join(", ", r.changed()),
                    r.needRestart().isEmpty() ? "nothing" : String.join(", ", r.needRestart()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.error("SIGHUP: reload failed ({}); the running configuration is kept", e.toString());
        }
    }

    /** Re-reads logback's configuration (its file, else the jar's) and says which levels changed. */
    private static String reloadLogging() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return "log levels: no logback, unchanged";
        }
        String file = System.getProperty("logback.configurationFile");
        URL url;
        try {
            url = file != null ? Path.of(file).toUri().toURL() : HangupReload.class.getResource("/logback.xml");
        } catch (MalformedURLException | RuntimeException e) {
            return "log levels unchanged (" + file + ": " + e.getMessage() + ")";
        }
        if (url == null) {
            return "log levels unchanged (no logback configuration to re-read)";
        }
        if (file != null && !Path.of(file).toFile().isFile()) {
            return "log levels unchanged (" + file + " is not a readable file)";
        }
        Map<String, Level> before = levels(ctx);
        try {
            JoranConfigurator c = new JoranConfigurator();
            c.setContext(ctx);
            ctx.reset();
            c.doConfigure(url);
        } catch (JoranException e) {
            return "log levels: " + url + " did not parse (" + e.getMessage() + ")";
        }
        Map<String, Level> after = levels(ctx);
        List<String> changed = new ArrayList<>();
        for (Map.Entry<String, Level> e : after.entrySet()) {
            Level old = before.get(e.getKey());
            if (!e.getValue().equals(old)) {
                changed.add(e.getKey() + " " + (old == null ? "inherited" : old) + " -> " + e.getValue());
            }
        }
        for (String name : before.keySet()) {
            if (!after.containsKey(name)) {
                changed.add(name + " " + before.get(name) + " -> inherited");
            }
        }
        return "log levels from " + (file != null ? file : "the jar's logback.xml") + ": "
                + (changed.isEmpty() ? "unchanged" : String.join(", ", changed));
    }

    private static Map<String, Level> levels(LoggerContext ctx) {
        Map<String, Level> out = new LinkedHashMap<>();
        for (Logger l : ctx.getLoggerList()) {
            if (l.getLevel() != null) {
                out.put(l.getName(), l.getLevel());
            }
        }
        return out;
    }
}
