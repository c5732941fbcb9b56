package org.fabricmanager.daemon.opensm;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
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
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.OpenSm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Unix socket of {@code opensm.socket} and what is admitted on it, whoever answers: the active manager's
 * {@link OpenSmProvider}, or a hot standby's listener that refuses and asks for the leadership. The file's mode is
 * 0600 or 0660; a connection is admitted only from a user of {@code opensm.allowUsers} (its peer credentials), at most
 * {@value #MAX_CONNECTIONS} at once; frames are read one at a time within {@code opensm.maxSubnetBytes} and a read
 * deadline, and a frame that breaks the protocol closes its connection.
 */
public final class OpenSmSocket implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmSocket.class);
    /** The plug-in holds two connections: one per routing pass, one for events. */
    private static final int MAX_CONNECTIONS = 4;
    /** A frame's bytes must arrive within this once its connection is open (the events' connection waits between frames). */
    private static final long READ_DEADLINE_MS = 10_000;

    /** What is done with the frames of admitted connections (on the socket's handler threads). */
    public interface Handler {
        /** Answers one SUBNET on {@code out}, read in {@code readMs} from its header's arrival. */
        void subnet(WritableByteChannel out, OpenSmWire.Subnet subnet, double readMs) throws IOException, InterruptedException;

        /** One EVENT; must not block. */
        void event(OpenSmWire.Event event);
    }

    private final OpenSm config;
    private final Path socket;
    private final ServerSocketChannel server;
    private final Handler handler;
    private final Set<String> allowed;
    /** Names the listener in log lines ("OpenSM provider", "OpenSM standby"). */
    private final String name;
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
    private volatile boolean closed;

    private OpenSmSocket(OpenSm config, Path socket, ServerSocketChannel server, String name, Handler handler) {
        this.config = config;
        this.socket = socket;
        this.server = server;
        this.name = name;
        this.handler = handler;
        this.allowed = Set.copyOf(config.allowUsers().isEmpty() ? List.of("root", System.getProperty("user.name"))
                : config.allowUsers());
    }

    /**
     * Listens on {@code config.socket()}: a stale socket file is replaced, any other file there is refused.
     *
     * @param name names the listener in the log
     * @throws ConfigException when the socket cannot be created
     */
    public static OpenSmSocket listen(OpenSm config, String name, Handler handler) {
        Path socket = Path.of(config.socket()).toAbsolutePath();
        try {
            Files.createDirectories(socket.getParent());
            if (Files.exists(socket) && (Files.isRegularFile(socket) || Files.isDirectory(socket))) {
                throw new ConfigException("option opensm.socket: " + socket + " exists and is not a socket");
            }
            Files.deleteIfExists(socket);
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                server.bind(UnixDomainSocketAddress.of(socket), MAX_CONNECTIONS);
                Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString(
                        "0660".equals(config.socketMode()) ? "rw-rw----" : "rw-------"));
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
            OpenSmSocket s = new OpenSmSocket(config, socket, server, name, handler);
            Thread acceptor = new Thread(s::acceptLoop, "fm-opensm-accept");
            acceptor.setDaemon(true);
            acceptor.start();
            return s;
        } catch (IOException e) {
            throw new ConfigException("option opensm.socket: cannot listen on " + socket + ": " + e.getMessage(), e);
        }
    }

    /** The socket's path. */
    public Path path() {
        return socket;
    }

    /** The users admitted. */
    public List<String> allowedUsers() {
        return List.copyOf(allowed);
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("{}: accept failed: {}", name, e.toString());
                }
                return;
            }
            if (!admit(ch)) {
                closeQuietly(ch);
                continue;
            }
            try {
                handlers.execute(() -> {
                    try {
                        serve(ch);
                    } finally {
                        closeQuietly(ch);
                        connections.release();
                    }
                });
            } catch (RuntimeException e) {
                // closed meanwhile: the pool takes no more connections
                closeQuietly(ch);
                connections.release();
            }
        }
    }

    private boolean admit(SocketChannel ch) {
        String user;
        try {
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            user = peer.user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("{}: refused a connection whose peer credentials cannot be read: {}", name, e.toString());
            return false;
        }
        if (!allowed.contains(user)) {
            LOG.warn("{}: refused a connection of user {} (opensm.allowUsers: {})", name, user, allowed);
            return false;
        }
        if (!connections.tryAcquire()) {
            LOG.warn("{}: refused a connection: {} already open", name, MAX_CONNECTIONS);
            return false;
        }
        return true;
    }

    /** Reads frames until the peer closes, a frame is refused, or the socket closes. */
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
                    case OpenSmWire.SUBNET -> handler.subnet(ch, OpenSmWire.subnet(payload), (System.nanoTime() - headAt) / 1e6);
                    case OpenSmWire.EVENT -> handler.event(OpenSmWire.event(payload));
                    default -> throw new OpenSmWire.WireException("unexpected frame type " + h.type());
                }
            }
        } catch (OpenSmWire.WireException e) {
            LOG.warn("{}: closed a connection: {}", name, e.getMessage());
        } catch (IOException e) {
            LOG.debug("{}: connection ended: {}", name, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads {@code b} full; false at a clean end of stream before its first byte. Within a frame ({@code inFrame}),
     * a deadline closes a connection that stops sending.
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

    /** Writes {@code answer} whole. */
    public static void write(WritableByteChannel out, ByteBuffer answer) throws IOException {
        while (answer.hasRemaining()) {
            out.write(answer);
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // closing: nothing more to do with it
        }
    }

    /** Whether {@link #close()} ran. */
    public boolean closed() {
        return closed;
    }

    /** Stops listening, removes the socket file and ends the connections' threads. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.debug("{}: closing {}: {}", name, socket, e.toString());
        }
        handlers.shutdownNow();
        deadlines.shutdownNow();
    }
}
