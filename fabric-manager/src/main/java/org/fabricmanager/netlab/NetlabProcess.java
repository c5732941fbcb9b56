package org.fabricmanager.netlab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The process that runs a lab ({@code netlab up}), recorded in the lab's pid file as its pid and start time, so that
 * {@code netlab down} stops it before removing its namespaces (a lab left running had its namespaces removed under it
 * and went on re-routing a fabric that was gone) and a second {@code netlab up} of the same prefix refuses to start.
 * A pid is taken to be the lab's only while a process with that pid and that start time runs: a stale file (the lab
 * was killed, or the machine restarted and the pid was given to another process) names nothing.
 */
public final class NetlabProcess {
    /** The pid file's name in the lab's directory. */
    public static final String FILE = "netlab.pid";

    private final Path file;

    /** The pid file {@code file} (in a lab, {@code /run/fabric-manager/netlab-PREFIX/netlab.pid}). */
    public NetlabProcess(Path file) {
        this.file = file;
    }

    /** The pid file of lab {@code names}. */
    public static NetlabProcess of(NetlabNames names) {
        return new NetlabProcess(names.directory().resolve(FILE));
    }

    /** Records {@code process} as the lab's (written to a temporary file, then renamed over the pid file). */
    public void record(ProcessHandle process) throws IOException {
        Instant started = process.info().startInstant()
                .orElseThrow(() -> new IOException("the start time of process " + process.pid() + " is unknown"));
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(FILE + ".tmp");
        Files.writeString(tmp, process.pid() + " " + started + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The process the pid file names, if one with that pid and start time runs (a malformed file names none). */
    public Optional<ProcessHandle> running() throws IOException {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        String[] f = Files.readString(file, StandardCharsets.UTF_8).trim().split(" ");
        long pid;
        Instant started;
        try {
            pid = Long.parseLong(f[0]);
            started = Instant.parse(f[1]);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .filter(p -> p.info().startInstant().map(started::equals).orElse(false));
    }

    /**
     * Stops the running lab: SIGTERM (the lab removes its namespaces on the way out), and waits up to {@code wait}
     * for it to end; then SIGKILL, and up to {@code wait} again.
     *
     * @return the pid stopped, or empty when the pid file names no running process
     * @throws IOException when the process outlives both waits
     */
    public Optional<Long> stop(Duration wait) throws IOException, InterruptedException {
        Optional<ProcessHandle> lab = running();
        if (lab.isEmpty()) {
            return Optional.empty();
        }
        ProcessHandle p = lab.get();
        CompletableFuture<ProcessHandle> exited = p.onExit();
        p.destroy();
        if (!ended(exited, wait)) {
            p.destroyForcibly();
            if (!ended(exited, wait)) {
                throw new IOException("process " + p.pid() + " (" + file + ") did not end within " + wait.toSeconds()
                        + " s of SIGTERM, nor of SIGKILL");
            }
        }
        return Optional.of(p.pid());
    }

    private static boolean ended(CompletableFuture<ProcessHandle> exited, Duration wait) throws InterruptedException {
        try {
            exited.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }
}
