package org.fabricmanager.opensm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;

/**
 * A fabric simulated by ibsim, with OpenSM and ibnetdiscover run against it through
 * {@code libumad2sim} (preloaded, as {@code ibsim-run} does). Each instance has its own ibsim
 * socket name, so two labs on one machine do not meet; {@link #close()} stops the OpenSMs it started, then ibsim.
 */
public final class IbsimFabric implements AutoCloseable {
    private static final AtomicLong SEQUENCE = new AtomicLong();
    /** OpenSM's log level for a run: errors, info, verbose (the routing timestamps) and the routing dumps. */
    private static final String LOG_FLAGS = "0x47";

    private final OpenSmTools tools;
    private final Path dir;
    private final String socket;
    private final Process ibsim;
    /** The OpenSMs {@link #startOpenSm} started: stopped before ibsim (one whose simulator is gone may ignore SIGTERM). */
    private final List<Process> openSms = new CopyOnWriteArrayList<>();

    /** The outcome of one OpenSM sweep: its exit code, its table dump and what its log says. */
    public record OpenSmRun(int exitCode, Path dump, OpenSmLog log, Path logFile) {
    }

    private IbsimFabric(OpenSmTools tools, Path dir, String socket, Process ibsim) {
        this.tools = tools;
        this.dir = dir;
        this.socket = socket;
        this.ibsim = ibsim;
    }

    /**
     * Writes {@code fabric} as an ibsim net file in {@code dir} and starts ibsim on it, waiting up
     * to {@code timeoutSeconds} for "Network simulator ready".
     */
    public static IbsimFabric start(OpenSmTools tools, Fabric fabric, Path dir, long timeoutSeconds)
            throws IOException, InterruptedException {
        return start(tools, fabric, dir, timeoutSeconds, null);
    }

    /**
     * As {@link #start(OpenSmTools, Fabric, Path, long)} on ibsim's socket {@code socketName} (its
     * {@code IBSIM_SOCKNAME}, an abstract Unix socket name; {@code null}: one of this lab's own).
     */
    public static IbsimFabric start(OpenSmTools tools, Fabric fabric, Path dir, long timeoutSeconds, String socketName)
            throws IOException, InterruptedException {
        Path absolute = dir.toAbsolutePath();
        Files.createDirectories(absolute);
        Path net = absolute.resolve("ibsim.net");
        IbsimNet.write(fabric, net);
        return start(tools, net, fabric, absolute, timeoutSeconds, socketName);
    }

    /**
     * Starts ibsim on {@code net}, a net file of {@code fabric} (e.g. written by
     * {@code topology --format ibsim}); {@code fabric} sizes ibsim's tables.
     */
    public static IbsimFabric start(OpenSmTools tools, Path net, Fabric fabric, Path dir, long timeoutSeconds)
            throws IOException, InterruptedException {
        return start(tools, net, fabric, dir, timeoutSeconds, null);
    }

    private static IbsimFabric start(OpenSmTools tools, Path net, Fabric fabric, Path dir, long timeoutSeconds,
                                     String socketName) throws IOException, InterruptedException {
        // ibsim runs in dir: a relative net file would be looked for under dir again (it exited with 255)
        dir = dir.toAbsolutePath();
        net = net.toAbsolutePath();
        Files.createDirectories(dir);
        int ports = 0;
        for (FabricSwitch s : fabric.switches()) {
            ports += s.ports() + 1;
        }
        ports += 2 * fabric.nodes().size();
        String socket = socketName != null ? socketName
                : "fm-ibsim-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
        if (socketTaken(socket)) {
            // ibsim says it is ready before it binds, then dies, and its clients would reach the other ibsim
            throw new IOException("ibsim's socket " + socket + " (IBSIM_SOCKNAME) is held by another ibsim: stop it, "
                    + "or name another socket in IBSIM_SOCKNAME");
        }
        List<String> cmd = List.of(tools.ibsim().toString(), "-s", "-N", Integer.toString(fabric.nodes().size()
                + fabric.switches().size() + 16), "-S", Integer.toString(fabric.switches().size() + 16), "-P",
                Integer.toString(ports + 1024), "-L", "49152", net.toString());
        // with its console (no -n) on a pipe that stays open: console() types at it
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("IBSIM_SOCKNAME", socket);
        Process ibsim = pb.start();
        IbsimFabric lab = new IbsimFabric(tools, dir, socket, ibsim);
        try {
            lab.awaitReady(timeoutSeconds);
        } catch (IOException | RuntimeException | InterruptedException e) {
            lab.close();
            throw e;
        }
        return lab;
    }

    /** Whether an ibsim listens on {@code name} already: its control socket in Linux's list of Unix sockets. */
    static boolean socketTaken(String name) {
        Path sockets = Path.of("/proc/net/unix");
        if (!Files.isReadable(sockets)) {
            return false;
        }
        try (var lines = Files.lines(sockets, StandardCharsets.ISO_8859_1)) {
            return socketTaken(lines, name);
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /** Whether {@code procNetUnix} (lines of {@code /proc/net/unix}) holds ibsim's control socket of {@code name}. */
    static boolean socketTaken(Stream<String> procNetUnix, String name) {
        // abstract names are shown with '@' for their NUL bytes: "@NAME:ctl@"
        String control = "@" + name + ":ctl";
        return procNetUnix.anyMatch(l -> l.endsWith(" " + control) || l.endsWith(" " + control + "@"));
    }

    private void awaitReady(long timeoutSeconds) throws IOException, InterruptedException {
        Path log = dir.resolve("ibsim.log");
        Thread reader = new Thread(() -> copy(log), "ibsim-output");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains("Network simulator ready")) {
                return;
            }
            if (!ibsim.isAlive()) {
                throw new IOException("ibsim exited with " + ibsim.exitValue() + " (see " + log + ")");
            }
            Thread.sleep(50);
        }
        throw new IOException("ibsim not ready after " + timeoutSeconds + " s (see " + log + ")");
    }

    /** Copies ibsim's output to ibsim.log, dropping its repeated parser warnings about our comment-free lines. */
    private void copy(Path log) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(ibsim.getInputStream(), StandardCharsets.ISO_8859_1));
             var out = Files.newBufferedWriter(log, StandardCharsets.ISO_8859_1)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.contains("cannot parse remote lid")) {
                    out.write(line);
                    out.write('\n');
                    out.flush();
                }
            }
        } catch (IOException e) {
            // ibsim stopped; what it printed so far is in the log
        }
    }

    /** ibsim's socket name, the {@code IBSIM_SOCKNAME} that tools under libumad2sim need to reach this fabric. */
    public String socketName() {
        return socket;
    }

    /** ibsim's process id (a test freezes the simulated fabric with SIGSTOP). */
    public long pid() {
        return ibsim.pid();
    }

    /** Completes when ibsim exits, with its exit code. */
    public CompletableFuture<Integer> onExit() {
        return ibsim.onExit().thenApply(Process::exitValue);
    }

    /** ibsim's output (its console's answers included), in this lab's directory. */
    public Path log() {
        return dir.resolve("ibsim.log");
    }

    /**
     * Runs one OpenSM sweep ({@code -o}) with {@code engine} ({@code file} takes {@code lftFile}),
     * its dumps and log in {@code runDir}.
     */
    public OpenSmRun runOpenSm(String engine, Path lftFile, Path runDir, long timeoutSeconds)
            throws IOException, InterruptedException {
        return runOpenSm(engine, lftFile, List.of(), runDir, timeoutSeconds);
    }

    /** As {@link #runOpenSm(String, Path, Path, long)}, with {@code options} added to OpenSM's command line. */
    public OpenSmRun runOpenSm(String engine, Path lftFile, List<String> options, Path runDir, long timeoutSeconds)
            throws IOException, InterruptedException {
        runDir = runDir.toAbsolutePath();
        Files.createDirectories(runDir);
        Path logFile = runDir.resolve("opensm.log");
        List<String> cmd = new ArrayList<>(List.of(tools.opensm().toString(), "-o", "-R", engine, "-D", LOG_FLAGS, "-f",
                logFile.toString(), "-d0"));
        if (lftFile != null) {
            cmd.addAll(List.of("-U", lftFile.toAbsolutePath().toString()));
        }
        cmd.addAll(options);
        int code = run(cmd, runDir, runDir.resolve("opensm.out"), timeoutSeconds);
        return new OpenSmRun(code, runDir.resolve("opensm-lfts.dump"),
                Files.exists(logFile) ? OpenSmLog.read(logFile) : new OpenSmLog(OptionalDouble.empty(), ""),
                logFile);
    }

    /**
     * Types {@code command} at ibsim's console, e.g. {@code Unlink "id"[3]} or {@code ReLink "id"[3]}: the
     * simulated switch then reports the change as a real one would (port state, trap).
     */
    public void console(String command) throws IOException {
        var in = ibsim.getOutputStream();
        in.write((command + "\n").getBytes(StandardCharsets.ISO_8859_1));
        in.flush();
    }

    /**
     * Detaches the client of process {@code pid} (an OpenSM about to be killed) at ibsim's console ({@code Attached},
     * then {@code X N} for each of its clients), and returns whether one was attached within {@code timeoutSeconds}.
     * ibsim then answers what is sent to that port's SM with a timeout status, as a real fabric's MAD layer times out a
     * request to a dead host. Without it, ibsim learns that a client died only when a write to it fails, and that MAD
     * is lost: libumad2sim has no timeouts of its own, so the OpenSM that sent it waits for it for ever (a standby SM
     * taking over stays in DISCOVERING, "There are still 1 MADs out").
     */
    public boolean detach(long pid, long timeoutSeconds) throws IOException, InterruptedException {
        Path log = dir.resolve("ibsim.log");
        int from = Files.readString(log, StandardCharsets.ISO_8859_1).length();
        console("Attached");
        // the list has no end mark (a comment typed after it stays in ibsim's buffer): the process's line is awaited
        Pattern line = Pattern.compile("Client (\\d+): pid " + pid + " connected");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (ibsim.isAlive() && System.nanoTime() < deadline) {
            Matcher client = line.matcher(Files.readString(log, StandardCharsets.ISO_8859_1).substring(from));
            boolean attached = false;
            while (client.find()) {
                console("X " + client.group(1));
                attached = true;
            }
            if (attached) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    /**
     * Starts OpenSM as a running subnet manager (no {@code -o}) with the options file {@code conf}, its log and
     * dumps in {@code runDir}, and {@code env} added to its environment (e.g. {@code LD_LIBRARY_PATH} for an event
     * plug-in). The caller stops it ({@link #stopOpenSm}), or {@link #close()} does.
     */
    public Process startOpenSm(Path conf, Path runDir, Map<String, String> env) throws IOException {
        // -d0: the only SM of its fabric, it ignores other SMs' ports
        return startOpenSm(conf, runDir, env, List.of("-d0"));
    }

    /**
     * As {@link #startOpenSm(Path, Path, Map)}, with {@code options} after the options file and the log instead of
     * {@code -d0}: with none, OpenSM takes part in the SM election with the other OpenSMs of the fabric.
     */
    public Process startOpenSm(Path conf, Path runDir, Map<String, String> env, List<String> options) throws IOException {
        Files.createDirectories(runDir);
        List<String> cmd = new ArrayList<>(List.of(tools.opensm().toString(), "-F", conf.toString(), "-f",
                runDir.resolve("opensm.log").toString()));
        cmd.addAll(options);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(runDir.toFile()).redirectErrorStream(true)
                .redirectOutput(runDir.resolve("opensm.out").toFile());
        Map<String, String> e = pb.environment();
        e.putAll(environment(runDir));
        e.putAll(env);
        Process opensm = pb.start();
        openSms.add(opensm);
        return opensm;
    }

    /** Stops {@code opensm} ({@code null}: none): SIGTERM, and killed when it has not ended 10 s later. */
    public static void stopOpenSm(Process opensm) {
        if (opensm == null) {
            return;
        }
        opensm.destroy();
        try {
            if (!opensm.waitFor(10, TimeUnit.SECONDS)) {
                opensm.destroyForcibly();
                opensm.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            opensm.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** What a tool needs to reach this simulated fabric: libumad2sim preloaded, this lab's socket. */
    public Map<String, String> environment(Path workDir) {
        return Map.of("LD_PRELOAD", tools.umad2sim().toString(), "IBSIM_SOCKNAME", socket,
                "OSM_TMP_DIR", workDir.toString(), "OSM_CACHE_DIR", workDir.toString());
    }

    /** Runs {@code ibroute LID} (the table a simulated switch holds) and returns its output. */
    public String ibroute(int switchLid, Path out, long timeoutSeconds) throws IOException, InterruptedException {
        return tool("ibroute", List.of(Integer.toString(switchLid)), out, timeoutSeconds);
    }

    /** Runs {@code perfquery LID PORT} (a port's counters as the simulated switch holds them) and returns its output. */
    public String perfquery(int lid, int port, Path out, long timeoutSeconds) throws IOException, InterruptedException {
        return tool("perfquery", List.of(Integer.toString(lid), Integer.toString(port)), out, timeoutSeconds);
    }

    /** Runs {@code saquery} with {@code args} (OpenSM's SA, e.g. {@code --src-to-dst 1:5}) and returns its output. */
    public String saquery(List<String> args, Path out, long timeoutSeconds) throws IOException, InterruptedException {
        return tool("saquery", args, out, timeoutSeconds);
    }

    /** Runs infiniband-diags' {@code name} with {@code args} against this fabric; its output, or why it failed. */
    private String tool(String name, List<String> args, Path out, long timeoutSeconds)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(tools.ibnetdiscover().resolveSibling(name).toString()));
        cmd.addAll(args);
        int code = run(cmd, dir, out, timeoutSeconds);
        String text = Files.readString(out, StandardCharsets.ISO_8859_1);
        if (code != 0) {
            throw new IOException(name + " " + String.join(" ", args) + " exited with " + code + ": " + text.strip());
        }
        return text;
    }

    /** Runs ibnetdiscover against the simulated fabric and returns the file it wrote. */
    public Path ibnetdiscover(Path out, long timeoutSeconds) throws IOException, InterruptedException {
        out = out.toAbsolutePath();
        Path errors = out.resolveSibling(out.getFileName() + ".err");
        int code = run(List.of(tools.ibnetdiscover().toString(), out.toString()), dir, errors, timeoutSeconds);
        if (code != 0) {
            throw new IOException("ibnetdiscover exited with " + code + ": " + Files.readString(errors).strip());
        }
        return out;
    }

    /** Runs {@code cmd} with libumad2sim preloaded and this lab's socket, output to {@code output}. */
    private int run(List<String> cmd, Path workDir, Path output, long timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        pb.environment().putAll(environment(workDir));
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            return -1;
        }
        return p.exitValue();
    }

    @Override
    public void close() {
        openSms.forEach(IbsimFabric::stopOpenSm);
        ibsim.destroy();
        try {
            if (!ibsim.waitFor(5, TimeUnit.SECONDS)) {
                ibsim.destroyForcibly();
            }
        } catch (InterruptedException e) {
            ibsim.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
