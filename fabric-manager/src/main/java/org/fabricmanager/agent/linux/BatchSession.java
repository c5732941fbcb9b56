package org.fabricmanager.agent.linux;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One long-running {@code bridge -n NS -j -force -batch -} (or {@code ip ...}) per switch and use, so that a commit or
 * a read of the kernel costs no process start: the changes and a show command ({@code fdb show br B},
 * {@code link show}) are written to its input, and its answer is read back from the same process. Its output is
 * line-buffered ({@code stdbuf -oL}; without it the JSON of the read-back would wait in a pipe buffer), and with
 * {@code -force} a failed command is reported ({@code Command failed -:N}) without ending the process. A run that
 * errs at the protocol level (the process ended, an answer past the deadline or too long) ends the process; the next
 * run starts a new one.
 */
final class BatchSession implements AutoCloseable {
    /** Where stdbuf (coreutils) is looked for; without it the plane starts one process per commit instead. */
    private static final List<Path> STDBUF = List.of(Path.of("/usr/bin/stdbuf"), Path.of("/bin/stdbuf"));
    private static final Pattern FAILED = Pattern.compile("Command failed -:(\\d+)");
    /** Error lines kept per run (a failing bridge repeats the same line for every entry). */
    private static final int MAX_ERRORS = 8;

    private final Iproute2 ip;
    private final String tool;
    private final List<String> flags;
    private Process process;
    private long started;
    private BufferedWriter in;
    private BufferedReader out;
    /** Lines written to the current process: batch errors name the failing line's number. */
    private long lines;

    /**
     * @param tool  {@code bridge} or {@code ip}
     * @param flags its options before {@code -force -batch -}, at least {@code -j} (an answer is one line of JSON)
     */
    BatchSession(Iproute2 ip, String tool, String... flags) {
        this.ip = ip;
        this.tool = tool;
        this.flags = List.of(flags);
    }

    /** The stdbuf to run the tool under, or null when this machine has none. */
    static Path stdbuf() {
        return STDBUF.stream().filter(Files::isExecutable).findFirst().orElse(null);
    }

    /**
     * What one run gave.
     *
     * @param errors    the error lines of the changes (empty: every change was taken)
     * @param shown     the JSON of the read-back, or null when the read-back itself failed
     * @param showError what the read-back said when it failed
     */
    record Answer(List<String> errors, String shown, String showError) {
    }

    /** Sends {@code changes} then {@code show} (a command whose answer is JSON), and returns the errors and the read-back. */
    synchronized Answer run(List<String> changes, String show) throws IOException {
        if (process == null || !process.isAlive()) {
            start();
        }
        long first = lines + 1;
        long showLine = lines + changes.size() + 1;
        StringBuilder text = new StringBuilder();
        for (String c : changes) {
            text.append(c).append('\n');
        }
        text.append(show).append('\n');
        Process p = process;
        Future<?> deadline = CompletableFuture.runAsync(p::destroyForcibly,
                CompletableFuture.delayedExecutor(Iproute2.TIMEOUT_MS, TimeUnit.MILLISECONDS));
        try {
            in.write(text.toString());
            in.flush();
            lines = showLine;
            List<String> errors = new ArrayList<>();
            List<String> pending = new ArrayList<>();
            while (true) {
                String line = readLine();
                if (line == null) {
                    throw new IOException(tool + " -batch ended" + (p.isAlive() ? "" : " (exit " + p.waitFor() + ")")
                            + (pending.isEmpty() ? "" : ": " + pending.get(0)));
                }
                if (line.startsWith("[")) {
                    return new Answer(errors, line, null);
                }
                Matcher m = FAILED.matcher(line);
                if (m.matches()) {
                    long n = Long.parseLong(m.group(1));
                    String why = pending.isEmpty() ? "no message" : String.join("; ", pending);
                    pending.clear();
                    if (n == showLine) {
                        return new Answer(errors, null, why);
                    }
                    if (n >= first && errors.size() < MAX_ERRORS) {
                        errors.add(changes.get((int) (n - first)) + ": " + why);
                    }
                } else if (pending.size() < MAX_ERRORS) {
                    pending.add(line);
                }
            }
        } catch (IOException | InterruptedException e) {
            close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException(tool + (ip.netns().isEmpty() ? "" : " -n " + ip.netns()) + " -batch: "
                    + (deadline.isDone() ? "no answer within " + Iproute2.TIMEOUT_MS + " ms" : e.getMessage()), e);
        } finally {
            deadline.cancel(false);
        }
    }

    /** One line of output, at most {@link Iproute2#MAX_OUTPUT_BYTES} characters; null at the end. */
    private String readLine() throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = out.read()) >= 0) {
            if (c == '\n') {
                return b.toString();
            }
            if (b.length() >= Iproute2.MAX_OUTPUT_BYTES) {
                throw new IOException("an answer longer than " + Iproute2.MAX_OUTPUT_BYTES + " characters");
            }
            b.append((char) c);
        }
        return b.length() == 0 ? null : b.toString();
    }

    private void start() throws IOException {
        Path stdbuf = stdbuf();
        if (stdbuf == null) {
            throw new IOException("no stdbuf (coreutils) on this machine");
        }
        List<String> cmd = new ArrayList<>(List.of(stdbuf.toString(), "-oL", "-eL"));
        List<String> args = new ArrayList<>(flags);
        args.addAll(List.of("-force", "-batch", "-"));
        cmd.addAll(ip.command(tool, args.toArray(new String[0])));
        process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        lines = 0;
        started++;
    }

    /** How many processes this session has started (one, unless a run failed at the protocol level). */
    synchronized long processesStarted() {
        return started;
    }

    /** Ends the process (the next run starts another). */
    @Override
    public synchronized void close() {
        if (process != null) {
            process.destroyForcibly();
            process = null;
        }
    }
}
