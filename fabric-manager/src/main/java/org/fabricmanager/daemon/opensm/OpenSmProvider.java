package org.fabricmanager.daemon.opensm;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.southbound.SouthboundListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's end of OpenSM's plug-in: listens on the Unix socket of {@code opensm.socket} (its file mode 0600 or
 * 0660), admits a connection only from a user of {@code opensm.allowUsers} (its peer credentials), reads one frame at
 * a time within {@code opensm.maxSubnetBytes} and a read deadline, and answers each SUBNET through
 * {@link OpenSmRouting}, one at a time. EVENT frames (traps, sweeps, LFT blocks set) go to {@link OpenSmEvents}. At most
 * {@value #MAX_CONNECTIONS} connections at once; more are closed at once.
 */
public final class OpenSmProvider implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmProvider.class);
    /** The plug-in holds two connections: one per routing pass, one for events. */
    private static final int MAX_CONNECTIONS = 4;
    /** A frame's bytes must arrive within this once its connection is open (the events' connection waits between frames). */
    private static final long READ_DEADLINE_MS = 10_000;
    /**
     * The longest the daemon works on one subnet before refusing it: above the plug-in's wait (5 s by default), below
     * what would hold the next subnet up for long once the plug-in has given up.
     */
    private static final long ANSWER_TIMEOUT_MS = 60_000;

    private final DaemonConfig.OpenSm config;
    private final Path socket;
    private final ServerSocketChannel server;
    private final OpenSmRouting routing;
    private final Set<String> allowed;
    private final OpenSmEvents events;
    private final Semaphore connections = new Semaphore(MAX_CONNECTIONS);
    private final ExecutorService handlers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fm-opensm");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fm-opensm-deadlines");
        t.setDaemon(true);
        return t;
    });
    private final Object routingLock = new Object();
    private final AtomicLong subnets = new AtomicLong();
    private volatile boolean closed;

    private OpenSmProvider(DaemonConfig.OpenSm config, Path socket, ServerSocketChannel server, OpenSmRouting routing,
                           OpenSmEvents events) {
        this.config = config;
        this.events = events;
        this.socket = socket;
        this.server = server;
        this.routing = routing;
        this.allowed = Set.copyOf(config.allowUsers().isEmpty() ? List.of("root", System.getProperty("user.name"))
                : config.allowUsers());
    }

    /**
     * Listens on {@code config.socket()}: a stale socket file is replaced, any other file there is refused.
     *
     * @throws ConfigException when the socket cannot be created
     */
    public static OpenSmProvider start(DaemonConfig.OpenSm config, SouthboundListener listener, DaemonApi api,
                                       OpenSmEvents events) {
        Path socket = Path.of(config.socket()).toAbsolutePath();
        try {
            Files.createDirectories(socket.getParent());
            if (Files.exists(socket) && (Files.isRegularFile(socket) || Files.isDirectory(socket))) {
                throw new ConfigException("option opensm.socket: " + socket + " exists and is not a socket");
            }
            Files.deleteIfExists(socket);
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket), MAX_CONNECTIONS);
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString(
                    "0660".equals(config.socketMode()) ? "rw-rw----" : "rw-------"));
            OpenSmProvider p = new OpenSmProvider(config, socket, server, new OpenSmRouting(listener, api,
                    UnixDomainSocketAddress.of(socket)), events);
            Thread acceptor = new Thread(p::acceptLoop, "fm-opensm-accept");
            acceptor.setDaemon(true);
            acceptor.start();
            LOG.info("OpenSM provider listening on {} (mode {}, users {})", socket, config.socketMode(), p.allowed);
            return p;
        } catch (IOException e) {
            throw new ConfigException("option opensm.socket: cannot listen on " + socket + ": " + e.getMessage(), e);
        }
    }

    /** The socket's path. */
    public Path socket() {
        return socket;
    }

    /** Subnets answered with tables so far. */
    public long subnetsRouted() {
        return subnets.get();
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("OpenSM provider: accept failed: {}", e.toString());
                }
                return;
            }
            if (!admit(ch)) {
                closeQuietly(ch);
                continue;
            }
            handlers.execute(() -> {
                try {
                    serve(ch);
                } finally {
                    closeQuietly(ch);
                    connections.release();
                }
            });
        }
    }

    private boolean admit(SocketChannel ch) {
        String user;
        try {
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            user = peer.user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("OpenSM provider: refused a connection whose peer credentials cannot be read: {}", e.toString());
            return false;
        }
        if (!allowed.contains(user)) {
            LOG.warn("OpenSM provider: refused a connection of user {} (opensm.allowUsers: {})", user, allowed);
            return false;
        }
        if (!connections.tryAcquire()) {
            LOG.warn("OpenSM provider: refused a connection: {} already open", MAX_CONNECTIONS);
            return false;
        }
        return true;
    }

    /** Reads frames until the peer closes, a frame is refused, or the provider stops. */
    private void serve(SocketChannel ch) {
        try {
            while (!closed) {
                ByteBuffer head = ByteBuffer.allocate(OpenSmWire.HEADER_BYTES);
                if (!read(ch, head, false)) {
                    return;
                }
                long headAt = System.nanoTime();
                OpenSmWire.Header h = OpenSmWire.header(head.flip(), config.maxSubnetBytes());
                ByteBuffer payload = ByteBuffer.allocate(h.length());
                if (!read(ch, payload, true)) {
                    throw new OpenSmWire.WireException("frame cut short");
                }
                payload.flip();
                switch (h.type()) {
                    case OpenSmWire.SUBNET -> answer(ch, OpenSmWire.subnet(payload), (System.nanoTime() - headAt) / 1e6);
                    case OpenSmWire.EVENT -> events.accept(OpenSmWire.event(payload));
                    default -> throw new OpenSmWire.WireException("unexpected frame type " + h.type());
                }
            }
        } catch (OpenSmWire.WireException e) {
            LOG.warn("OpenSM provider: closed a connection: {}", e.getMessage());
        } catch (IOException e) {
            LOG.debug("OpenSM provider: connection ended: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads {@code b} full; false at a clean end of stream before its first byte. Within a frame ({@code inFrame})
     * and for the first frame's header, a deadline closes a connection that stops sending.
     */
    private boolean read(SocketChannel ch, ByteBuffer b, boolean inFrame) throws IOException {
        ScheduledFuture<?> deadline = inFrame ? deadlines.schedule(() -> closeQuietly(ch), READ_DEADLINE_MS,
                TimeUnit.MILLISECONDS) : null;
        try {
            while (b.hasRemaining()) {
                if (ch.read(b) < 0) {
                    if (b.position() == 0 && !inFrame) {
                        return false;
                    }
                    throw new IOException("end of stream inside a frame");
                }
            }
            return true;
        } finally {
            if (deadline != null) {
                deadline.cancel(false);
            }
        }
    }

    private void answer(SocketChannel ch, OpenSmWire.Subnet subnet, double readMs) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        ByteBuffer answer;
        synchronized (routingLock) {
            if (closed) {
                return;
            }
            answer = routing.answer(subnet, ANSWER_TIMEOUT_MS);
        }
        boolean tables = answer.get(5) == OpenSmWire.TABLES;
        while (answer.hasRemaining()) {
            ch.write(answer);
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        if (tables) {
            subnets.incrementAndGet();
            LOG.info("OpenSM subnet {} ({} switches, {} CA ports) answered in {} ms ({}; read in {} ms)", subnet.seq(),
                    subnet.switches().size(), subnet.endPorts().size(), String.format("%.1f", ms),
                    routing.lastBreakdown(), String.format("%.1f", readMs));
        } else {
            LOG.warn("OpenSM subnet {} refused after {} ms: {}", subnet.seq(), String.format("%.1f", ms),
                    new String(answer.array(), OpenSmWire.HEADER_BYTES + 8,
                            answer.limit() - OpenSmWire.HEADER_BYTES - 8, StandardCharsets.UTF_8));
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // closing: nothing more to do with it
        }
    }

    /** Stops listening, removes the socket file and closes the switches' sessions. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.debug("OpenSM provider: closing {}: {}", socket, e.toString());
        }
        handlers.shutdownNow();
        deadlines.shutdownNow();
        synchronized (routingLock) {
            routing.closeAll("the daemon stops");
        }
    }

    /** The users admitted (for tests and the start-up line). */
    List<String> allowedUsers() {
        return List.copyOf(allowed);
    }
}
