package org.fabricmanager.agent.linux;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs iproute2's {@code ip} and {@code bridge} in one network namespace ({@code -n NAME}, or the process's own
 * when the name is empty), with the commands of a batch on standard input ({@code -batch -}) so that a whole
 * table change costs one process, never one per entry. Output is bounded and every run has a deadline.
 */
public final class Iproute2 {
    /** Most output kept from one run: a 64-port switch's FDB of 65,536 destinations in JSON is about 6 MB. */
    static final int MAX_OUTPUT_BYTES = 16 << 20;
    /** A run that takes longer is killed and counts as failed. */
    static final long TIMEOUT_MS = 30_000;

    private final String netns;

    /**
     * @param netns the namespace to act in, or empty for the process's own
     * @throws IllegalArgumentException when {@code netns} is not a namespace's name ({@link LinuxNames}): {@code -n}
     *                                  would take a path or an option
     */
    public Iproute2(String netns) {
        this.netns = netns == null ? "" : netns;
        if (!this.netns.isEmpty()) {
            LinuxNames.requireNamespace("netns", this.netns);
        }
    }

    public String netns() {
        return netns;
    }

    /** What one run gave: its exit status and its output (standard output and error together). */
    public record Result(int exit, String output) {
        public boolean ok() {
            return exit == 0;
        }

        /** The first line of the output, for error messages. */
        public String firstLine() {
            String t = output.strip();
            int nl = t.indexOf('\n');
            return nl < 0 ? t : t.substring(0, nl) + " ...";
        }
    }

    /** The command line of {@code tool} ("ip" or "bridge") with {@code args}, in this namespace. */
    public List<String> command(String tool, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(tool);
        if (!netns.isEmpty()) {
            cmd.add("-n");
            cmd.add(netns);
        }
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Runs {@code tool args}. */
    public Result run(String tool, String... args) throws IOException {
        return exec(command(tool, args), null);
    }

    /** Runs {@code tool -batch -} with {@code lines} (one command each, without the tool's name) on its input. */
    public Result batch(String tool, List<String> lines) throws IOException {
        return exec(command(tool, "-batch", "-"), String.join("\n", lines) + "\n");
    }

    /** Starts {@code tool args} as a long-running process (a monitor), its error joined to its output. */
    public Process start(String tool, String... args) throws IOException {
        return new ProcessBuilder(command(tool, args)).redirectErrorStream(true).start();
    }

    private static Result exec(List<String> cmd, String input) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (input != null) {
                try (OutputStream in = p.getOutputStream()) {
                    in.write(input.getBytes(StandardCharsets.UTF_8));
                }
            } else {
                p.getOutputStream().close();
            }
            String output = read(p.getInputStream());
            if (!p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": no answer within " + TIMEOUT_MS + " ms");
            }
            return new Result(p.exitValue(), output);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", cmd) + ": interrupted", e);
        } catch (IOException e) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": " + e.getMessage(), e);
        }
    }

    /** Reads all of {@code in}, keeping at most {@link #MAX_OUTPUT_BYTES}. */
    private static String read(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) >= 0) {
            if (out.size() + n <= MAX_OUTPUT_BYTES) {
                out.write(buf, 0, n);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
