package org.fabricmanager.system;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.RawFrames;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;

/** One {@code run} process of an {@link HaGroup}, the lines it printed, and its ports. */
final class HaMember {
    final String id;
    final int raftPort;
    final int southboundPort;
    final int restPort;
    final Path config;
    final Path state;
    /** The group's directory: this member's configuration, state and stderr of each run. */
    private final Path dir;
    Process process;
    BlockingQueue<String> lines;
    /** Each line with the System.nanoTime() it was read at. */
    final java.util.Queue<Map.Entry<Long, String>> timed = new java.util.concurrent.ConcurrentLinkedQueue<>();
    int starts;

    HaMember(int n, Path dir, int raftPort, int southboundPort, int restPort) {
        id = "n" + n;
        this.dir = dir;
        this.raftPort = raftPort;
        this.southboundPort = southboundPort;
        this.restPort = restPort;
        state = dir.resolve("state-" + id);
        config = dir.resolve(id + ".yaml");
    }

    String url() {
        return "http://127.0.0.1:" + restPort;
    }

    void start() throws IOException {
        starts++;
        List<String> cmd = new ArrayList<>(List.of(FabricProcesses.java(), "-Xmx256m", "-jar", System.getProperty("fm.jar"),
                "run", "--config", config.toString(), "--southbound-port", String.valueOf(southboundPort),
                "--http-port", String.valueOf(restPort)));
        process = new ProcessBuilder(cmd).redirectError(dir.resolve(id + "-" + starts + ".err").toFile()).start();
        BlockingQueue<String> q = new LinkedBlockingQueue<>();
        lines = q;
        Process p = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l = out.readLine(); l != null; l = out.readLine()) {
                    timed.add(Map.entry(System.nanoTime(), l));
                    q.add(l);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "out-" + id);
        reader.setDaemon(true);
        reader.start();
    }

    /** Milliseconds from {@code begin} (nanoTime) to the first line starting with {@code prefix} read after it, -1 if none. */
    long msUntil(String prefix, long begin) {
        for (Map.Entry<Long, String> e : timed) {
            if (e.getKey() >= begin && e.getValue().startsWith(prefix)) {
                return TimeUnit.NANOSECONDS.toMillis(e.getKey() - begin);
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return id;
    }

    /** The new manager's own account of its start (HaManager's "active in term" log line). */
    String activationLine() throws IOException {
        Path err = dir.resolve(id + "-" + starts + ".err");
        String found = "";
        for (String l : Files.readAllLines(err, StandardCharsets.UTF_8)) {
            int at = l.indexOf("active in term");
            if (at >= 0) {
                found = l.substring(at);
            }
        }
        return found;
    }

    static String lastRole(HaMember m) {
        String last = "";
        for (String l : m.lines) {
            if (l.startsWith("ha ")) {
                last = l;
            }
        }
        return last;
    }

    /** Waits until {@code m}'s current run printed a line starting with {@code prefix}. */
    static void awaitLine(HaMember m, String prefix, int seconds) {
        Await.value(m.id + " printing '" + prefix + "'", Duration.ofSeconds(seconds), () -> List.copyOf(m.lines),
                lines -> lines.stream().anyMatch(l -> l.startsWith(prefix)));
    }

    /** Says HELLO to a member's southbound port (plaintext: these daemons run insecure); the ERROR it answers. */
    static String helloAnswer(HaMember m) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", m.southboundPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(RawFrames.frame(new Message.Hello(1, 3, 3, 0x3000000000000001L, 1, 8, 65_536, 0, 0,
                    TableHash.EMPTY, "probe")));
            Message.ErrorReport e = RawFrames.lastError(RawFrames.readUntilClosed(s));
            return e.errorCode().map(Enum::name).orElse("?") + " " + e.message();
        }
    }
}
