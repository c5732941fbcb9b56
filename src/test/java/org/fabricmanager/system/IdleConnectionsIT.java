package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idle connections against a secure {@code run} process: 2,000 TCP connections to the southbound port from the
 * agents' own address that never send a ClientHello (each one the daemon closes is opened again at once), then 1,000
 * more to the REST port from another address that never send a request. A switch of the {@code simulate} process that
 * reboots still gets back in each time, and the REST listener keeps that address to its share of the cap. Prints the
 * time from the switch's revival to its session, alone and under each flood (measured, never asserted).
 */
class IdleConnectionsIT {
    static final String SPEC = "PGFT(2;4,4;1,4;1,1)";
    static final int SOUTHBOUND_IDLE = 2_000;
    static final int REST_IDLE = 1_000;
    static final int REST_CAP = 64;

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void aRebootedSwitchGetsBackInPast2000IdleConnections() throws Exception {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        int n = fabric.switches().size();
        Path pkiDir = dir.resolve("pki");
        PkiDirectory pki = new PkiDirectory(pkiDir);
        pki.init("test CA", Duration.ofDays(2), List.of(), List.of(), Duration.ofDays(2), Clock.systemUTC());
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        pki.switchMaterials(switches, Duration.ofDays(2), Clock.systemUTC());
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                rest:
                  maxConnections: %d
                fabric:
                  expectedPgft: "%s"
                state:
                  directory: "%s"
                security:
                  pkiDirectory: "%s"
                """.formatted(REST_CAP, SPEC, dir.resolve("state"), pkiDir));
        try (FabricProcesses fp = new FabricProcesses(dir)) {
            fp.startDaemon(config, "-Xmx512m");
            FabricProcesses.Simulator sim = fp.startSimulator("sim", "-Xmx384m", List.of("--pgft", SPEC, "--pki",
                    pkiDir.toString()));
            fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED") && s.at("/switches/connected").asInt() == n,
                    "convergence of " + n + " switches over TLS", 120);
            int restPort = Integer.parseInt(fp.restUrl().replaceAll(".*:(\\d+).*", "$1"));
            String leaf = Guids.format(fabric.switches().get(0).guid());
            long alone = rebootMs(fp, sim, leaf, n);
            // the southbound flood from the agents' own address: per-address bounds cannot tell them apart
            try (IdleFlood southbound = new IdleFlood(new InetSocketAddress("127.0.0.1", fp.southboundPort()),
                    new InetSocketAddress("127.0.0.1", 0), SOUTHBOUND_IDLE);
                 IdleFlood rest = new IdleFlood(new InetSocketAddress("127.0.0.1", restPort),
                         new InetSocketAddress("127.0.0.2", 0), REST_IDLE)) {
                southbound.start();
                southbound.awaitOpened(SOUTHBOUND_IDLE);
                long flooded = rebootMs(fp, sim, leaf, n);
                rest.start();
                rest.awaitOpened(REST_IDLE);
                long both = rebootMs(fp, sim, leaf, n);
                long descriptors;
                try (var fds = Files.list(Path.of("/proc/" + fp.daemon().pid() + "/fd"))) {
                    descriptors = fds.count();
                }
                System.out.printf("switch back in %d ms alone, %d ms past %d idle southbound connections, %d ms with %d "
                                + "idle REST connections more (%d southbound and %d REST reopened after the daemon closed "
                                + "them); daemon holds %d descriptors%n", alone, flooded, SOUTHBOUND_IDLE, both, REST_IDLE,
                        southbound.reopened(), rest.reopened(), descriptors);
                org.fabricmanager.testing.Await.until("the REST connections over the peer's share of the cap of "
                        + REST_CAP + " closed", () -> rest.reopened() >= REST_IDLE - REST_CAP / 4);
                org.fabricmanager.testing.Await.until("each idle southbound connection closed by the first-byte "
                        + "timeout", () -> southbound.reopened() >= SOUTHBOUND_IDLE);
            }
            assertThat(Files.readString(dir.resolve("daemon.err"))).doesNotContain("Too many open files");
        }
    }

    /** Powers switch {@code leaf} off and on; the time from its revival until the daemon counts it connected. */
    private static long rebootMs(FabricProcesses fp, FabricProcesses.Simulator sim, String leaf, int n) {
        sim.command("kill " + leaf + " power");
        fp.awaitStatus(s -> s.at("/switches/connected").asInt() == n - 1, "the switch gone", 60);
        long revived = System.nanoTime();
        sim.command("revive " + leaf);
        fp.awaitStatus(s -> s.at("/switches/connected").asInt() == n, "the switch back in", 60);
        return (System.nanoTime() - revived) / 1_000_000;
    }

    /**
     * Keeps {@code count} TCP connections open to {@code target} without sending a byte, opening a new one for each
     * the server closes; one thread, non-blocking sockets.
     */
    static final class IdleFlood implements AutoCloseable {
        private final InetSocketAddress target;
        private final int count;
        private final Selector selector;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong opened = new AtomicLong();
        private final AtomicLong reopened = new AtomicLong();
        private Thread thread;

        private final InetSocketAddress from;

        /** @param from the local address to connect from (another loopback address is another peer) */
        IdleFlood(InetSocketAddress target, InetSocketAddress from, int count) throws IOException {
            this.target = target;
            this.from = from;
            this.count = count;
            this.selector = Selector.open();
        }

        void start() {
            thread = new Thread(this::run, "idle-flood-" + target.getPort() + "-" + from.getHostString());
            thread.setDaemon(true);
            thread.start();
        }

        void awaitOpened(long n) {
            org.fabricmanager.testing.Await.until(n + " connections opened to " + target, () -> opened.get() >= n);
        }

        long reopened() {
            return reopened.get();
        }

        private void open() throws IOException {
            SocketChannel c = SocketChannel.open();
            c.configureBlocking(false);
            c.bind(from);
            c.connect(target);
            c.register(selector, SelectionKey.OP_CONNECT);
        }

        private void run() {
            ByteBuffer sink = ByteBuffer.allocate(4096);
            try {
                for (int i = 0; i < count; i++) {
                    open();
                }
                while (running.get()) {
                    selector.select(200);
                    for (SelectionKey k : selector.selectedKeys()) {
                        SocketChannel c = (SocketChannel) k.channel();
                        boolean lost;
                        try {
                            if (k.isConnectable()) {
                                c.finishConnect();
                                k.interestOps(SelectionKey.OP_READ);
                                opened.incrementAndGet();
                                continue;
                            }
                            sink.clear();
                            lost = c.read(sink) < 0;
                        } catch (IOException e) {
                            lost = true;
                        }
                        if (lost) {
                            k.cancel();
                            c.close();
                            reopened.incrementAndGet();
                            open();
                        }
                    }
                    selector.selectedKeys().clear();
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws Exception {
            running.set(false);
            if (thread != null) {
                thread.join(5_000);
            }
            for (SelectionKey k : selector.keys()) {
                k.channel().close();
            }
            selector.close();
        }
    }
}
