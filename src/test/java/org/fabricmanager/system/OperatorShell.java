package org.fabricmanager.system;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs installed fabric-manager commands as an operator's shell would on a management node with a
 * Java runtime and nothing else: a PATH holding only the few tools the launcher uses (bash,
 * dirname, readlink, env), so neither Maven nor git nor the source tree can be reached.
 */
final class OperatorShell {
    /** One run's exit status and everything it printed (stdout and stderr). */
    record Result(int code, String output) {
    }

    private final Path dir;
    private final Path tools;

    /** A shell whose PATH is a new directory under {@code dir}. */
    OperatorShell(Path dir) throws IOException {
        this.dir = dir;
        this.tools = Files.createDirectories(dir.resolve("tools"));
        for (String tool : List.of("bash", "dirname", "readlink", "env")) {
            Files.createSymbolicLink(tools.resolve(tool), which(tool));
        }
    }

    /** The directory on the PATH (put a link to an installed launcher here to run it by name). */
    Path tools() {
        return tools;
    }

    /** JAVA_HOME = the runtime running this test, HOME under the test's directory, no FM_* but a small heap. */
    Map<String, String> environment() throws IOException {
        Path home = Files.createDirectories(dir.resolve("home"));
        return Map.of("PATH", tools.toString(), "JAVA_HOME", System.getProperty("java.home"), "HOME", home.toString(),
                "FM_JAVA_OPTS", "-Xmx512m", "LANG", "C.UTF-8");
    }

    /** Runs {@code command} from the operator's home with {@link #environment()}. */
    Result run(List<String> command, long limitSeconds) throws Exception {
        return run(command, environment(), limitSeconds);
    }

    /** Runs {@code command} with exactly {@code env}; fails naming the command when it outlives the limit. */
    Result run(List<String> command, Map<String, String> env, long limitSeconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(Files.createDirectories(dir.resolve("home")).toFile())
                .redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Path log = Files.createTempFile(dir, "run-", ".out");
        Process p = pb.redirectOutput(log.toFile()).start();
        if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", command) + " did not finish within " + limitSeconds + " s; output:\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /** {@code tool} on this machine's PATH (for the few the launcher needs, and for tar and dpkg-deb). */
    static Path which(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new AssertionError(tool + " is not on this machine's PATH");
    }

    /** Whether {@code tool} is on this machine's PATH. */
    static boolean has(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }
}
