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
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.OpenSm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Unix socket of {@code opensm.socket} and what is admitted on it, whoever answers: the active manager's
 * {@link OpenSmProvider}, or a hot standby's listener that refuses and asks for the leadership. The file's mode is
 * 0600 or 0660; a connection is admitted only from a user of {@code opensm.allowUsers} (its peer credentials), at most
 * {@value #MAX_CONNECTIONS} at once; frames are read one at a time within {@code opensm.maxSubnetBytes} and a read
 * deadline, and a frame that breaks the protocol closes its connection. Every connection is bounded in time: its first
 * frame must begin within {@value #FIRST_FRAME_MS} ms, a SUBNET's connection closes once answered, and the plug-in's
 * channel (opened by CHANNEL, one at a time: a newer one replaces it) closes after {@value #CHANNEL_IDLE_MS} ms
 * without a frame. A connection that comes when every place is taken takes the place of the oldest one that has sent
 * nothing yet, so that connections held open without a word cannot keep the plug-in's routing pass out.
 */
public final class OpenSmSocket implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmSocket.class);
    /** The plug-in holds two connections: one per routing pass, and its channel. */
    private static final int MAX_CONNECTIONS = 4;
    /** A frame's bytes must arrive within this once its header has begun. */
    private static final long READ_DEADLINE_MS = 10_000;
    /** The plug-in sends its first frame as soon as it connects. */
    static final long FIRST_FRAME_MS = 2_000;
    /** As long as OpenSM is given before it counts as lost: a channel that quiet is a stale one. */
    static final long CHANNEL_IDLE_MS = OpenSmLiveness.LOST_AFTER_MS;

    /** Where the answer to one SUBNET goes: encoded and written whole on its connection. */
    @FunctionalInterface
    public interface Reply {
        void send(OpenSmAnswer answer) throws IOException;
    }

    /** What is done with the frames of admitted connections (on the socket's handler threads). */
    public interface Handler {
        /** Answers one SUBNET through {@code reply} (once), read in {@code readMs} from its header's arrival. */
        void subnet(Reply reply, OpenSmWire.Subnet subnet, double readMs) throws IOException, InterruptedException;

        /** One CHANNEL: the plug-in's keepalive (the first opens its channel); must not block. */
        default void keepalive(OpenSmWire.Keepalive keepalive) {
        }

        /** A frame answered with REFUSED (a SUBNET's answer, or a frame the socket could not take); must not block. */
        default void refused(Refusal why) {
        }

        /** A routing pass's frame refused unread (too large, malformed): a pass came all the same; must not block. */
        default void passRefusedUnread() {
        }

        /** One EVENT; must not block. */
        void event(OpenSmWire.Event event);

        /** One SET: the switches that hold a pass's answer; must not block. */
        default void tablesSet(OpenSmWire.TablesSet set) {
        }

        /** One COUNTERS: port counters' changes OpenSM's performance manager read; must not block. */
        default void counters(OpenSmWire.CounterChanges changes) {
        }
    }

    /** What an open connection has said so far. */
    private enum Role {
        /** Nothing yet: its place goes to a newer connection when all are taken. */
        SILENT,
        /** A SUBNET came: answered, then closed. */
        PASS,
        /** The plug-in's channel: events, SET, keepalives, and the daemon's REROUTE. */
        CHANNEL
    }

    /** An admitted connection. */
    private static final class Connection {
        final SocketChannel ch;
        volatile Role role = Role.SILENT;

        Connection(SocketChannel ch) {
            this.ch = ch;
        }
    }

    private final OpenSm config;
    private final Path socket;
    private final ServerSocketChannel server;
    private final Handler handler;
    private final Set<String> allowed;
    /** Names the listener in log lines ("OpenSM provider", "OpenSM standby"). */
    private final String name;
    /** Admitted connections, oldest first; guarded by itself. */
    private final List<Connection> open = new ArrayList<>();
    /** The plug-in's channel, or {@code null}; written under {@code open}'s lock. */
    private volatile Connection channel;
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
                if (config.socketGroup() != null) {
                    // systemd owns the runtime directory for the daemon's user and group alone: the socket itself
                    // carries the group through which OpenSM's user reaches it
                    try {
                        GroupPrincipal group = socket.getFileSystem().getUserPrincipalLookupService()
                                .lookupPrincipalByGroupName(config.socketGroup());
                        Files.getFileAttributeView(socket, PosixFileAttributeView.class).setGroup(group);
                    } catch (IOException e) {
                        throw new ConfigException("option opensm.socketGroup: cannot give " + socket + " the group "
                                + config.socketGroup() + " (no such group, or the daemon's user is not in it): " + e, e);
                    }
                }
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
            Connection c = admit(ch);
            if (c == null) {
                closeQuietly(ch);
                continue;
            }
            try {
                handlers.execute(() -> {
                    try {
                        serve(c);
                    } finally {
                        release(c);
                    }
                });
            } catch (RuntimeException e) {
                // closed meanwhile: the pool takes no more connections
                release(c);
            }
        }
    }

    /** The connection admitted, or {@code null}: a user not allowed, or every place taken by one that spoke. */
    private Connection admit(SocketChannel ch) {
        String user;
        try {
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            user = peer.user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("{}: refused a connection whose peer credentials cannot be read: {}", name, e.toString());
            return null;
        }
        if (!allowed.contains(user)) {
            LOG.warn("{}: refused a connection of user {} (opensm.allowUsers: {})", name, user, allowed);
            return null;
        }
        synchronized (open) {
            if (open.size() >= MAX_CONNECTIONS) {
                Connection silent = open.stream().filter(c -> c.role == Role.SILENT).findFirst().orElse(null);
                if (silent == null) {
                    LOG.warn("{}: refused a connection: {} already open", name, MAX_CONNECTIONS);
                    return null;
                }
                LOG.warn("{}: closed a connection that had sent nothing: {} were open", name, MAX_CONNECTIONS);
                open.remove(silent);
                closeQuietly(silent.ch);
            }
            Connection c = new Connection(ch);
            open.add(c);
            return c;
        }
    }

    private void release(Connection c) {
        closeQuietly(c.ch);
        synchronized (open) {
            open.remove(c);
            if (channel == c) {
                channel = null;
            }
        }
    }

    /**
     * Asks the plug-in for a routing pass on its channel.
     *
     * @return false when no channel is open (the plug-in is not there, or is reconnecting)
     */
    public boolean requestPass(long request) {
        Connection c = channel;
        if (c == null) {
            return false;
        }
        try {
            synchronized (c) {
                write(c.ch, OpenSmWire.reroute(request));
            }
            return true;
        } catch (IOException e) {
            LOG.debug("{}: the plug-in's channel closed: {}", name, e.toString());
            closeQuietly(c.ch);
            return false;
        }
    }

    /** Whether the plug-in's channel is open. */
    public boolean channelOpen() {
        return channel != null;
    }

    /**
     * Reads frames until the peer closes, a frame is refused (answered with REFUSED and its code, then closed), a
     * SUBNET is answered, or the socket closes.
     */
    private void serve(Connection c) {
        SocketChannel ch = c.ch;
        long seq = 0;
        try {
            while (!closed) {
                ByteBuffer head = ByteBuffer.allocate(OpenSmWire.HEADER_BYTES);
                if (!read(ch, head, false, c.role == Role.CHANNEL ? CHANNEL_IDLE_MS : FIRST_FRAME_MS)) {
                    return;
                }
                long headAt = System.nanoTime();
                OpenSmWire.Header h = OpenSmWire.header(head.flip(), config.maxSubnetBytes());
                ByteBuffer payload = ByteBuffer.allocate(h.length());
                if (!read(ch, payload, true, READ_DEADLINE_MS)) {
                    throw new OpenSmWire.WireException("frame cut short");
                }
                payload.flip();
                switch (h.type()) {
                    case OpenSmWire.SUBNET, OpenSmWire.SUBNET_LMC -> {
                        if (c.role != Role.SILENT) {
                            throw new OpenSmWire.WireException("a SUBNET after another frame on one connection");
                        }
                        c.role = Role.PASS;
                        seq = payload.remaining() >= 8 ? payload.getLong(0) : 0;
                        handler.subnet(answer -> {
                            write(ch, answer.encode());
                            if (answer instanceof OpenSmAnswer.Refused r) {
                                handler.refused(r.why());
                            }
                        }, OpenSmWire.subnet(payload, h.type() == OpenSmWire.SUBNET_LMC),
                                (System.nanoTime() - headAt) / 1e6);
                        return; // one pass per connection: the plug-in closes it once answered
                    }
                    case OpenSmWire.CHANNEL -> {
                        OpenSmWire.Keepalive k = OpenSmWire.channel(payload);
                        if (c.role == Role.SILENT) {
                            becomeChannel(c);
                        } else if (c.role != Role.CHANNEL) {
                            throw new OpenSmWire.WireException("a CHANNEL on a routing pass's connection");
                        }
                        handler.keepalive(k);
                    }
                    case OpenSmWire.EVENT -> handler.event(OpenSmWire.event(channelFrame(c, payload)));
                    case OpenSmWire.SET -> handler.tablesSet(OpenSmWire.tablesSet(channelFrame(c, payload)));
                    case OpenSmWire.COUNTERS -> handler.counters(OpenSmWire.counters(channelFrame(c, payload)));
                    default -> throw new OpenSmWire.WireException("unexpected frame type " + h.type());
                }
            }
        } catch (OpenSmWire.WireException e) {
            refuse(c, seq, e);
        } catch (IOException e) {
            LOG.debug("{}: connection ended: {}", name, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Answers a frame that cannot be taken with REFUSED and its code (sequence 0 when its payload was not read), so
     * that the plug-in never reads a refusal as the daemon's absence, then closes; a frame of another protocol or
     * release gets no answer.
     */
    private void refuse(Connection c, long seq, OpenSmWire.WireException e) {
        LOG.warn("{}: refused a frame{} and closed the connection: {}", name, e.refusal() == null ? ""
                : " (" + e.refusal() + ")", e.getMessage());
        if (e.refusal() == null) {
            return;
        }
        handler.refused(e.refusal());
        if (c.role != Role.CHANNEL) {
            handler.passRefusedUnread();
        }
        try {
            write(c.ch, new OpenSmAnswer.Refused(seq, e.refusal(), e.getMessage()).encode());
        } catch (IOException io) {
            LOG.debug("{}: the refusal did not reach the plug-in: {}", name, io.toString());
        }
    }

    /** The plug-in's channel replaces any other: it has one, and a stale one must not keep REROUTE. */
    private void becomeChannel(Connection c) {
        Connection previous;
        synchronized (open) {
            previous = channel;
            c.role = Role.CHANNEL;
            channel = c;
        }
        if (previous != null) {
            LOG.info("{}: a new channel of OpenSM's plug-in replaces the previous one", name);
            closeQuietly(previous.ch);
        }
    }

    /** {@code payload}, when {@code c} is the plug-in's channel: events and SET come nowhere else. */
    private static ByteBuffer channelFrame(Connection c, ByteBuffer payload) throws OpenSmWire.WireException {
        if (c.role != Role.CHANNEL) {
            throw new OpenSmWire.WireException("an event before the connection opened as the plug-in's channel");
        }
        return payload;
    }

    /**
     * Reads {@code b} full; false at a clean end of stream before its first byte. A connection that does not send
     * all of it within {@code deadlineMs} is closed.
     */
    private boolean read(SocketChannel ch, ByteBuffer b, boolean inFrame, long deadlineMs) throws IOException {
        ScheduledFuture<?> deadline = deadlines.schedule(() -> closeQuietly(ch), deadlineMs, TimeUnit.MILLISECONDS);
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
            deadline.cancel(false);
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
