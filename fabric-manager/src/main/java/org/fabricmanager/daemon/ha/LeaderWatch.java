package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a standby at once that the active manager's process is gone, so that the election need not wait for an
 * election timeout of the leader's silence (1-2 x {@code ha.electionTimeoutMs}: most of a failover after a crash).
 *
 * <p>It holds an idle TCP connection to the leader's Raft port. When a process dies (kill -9, a crash, the OOM
 * killer, a stopped service) its kernel closes its sockets: the held connection ends at once, and a new connection
 * to the same port is refused. Only that pair counts: a connection to the leader's address that was accepted
 * before, then refused. Everything else is left to Raft's timeouts: a host that went down or a cut network (no
 * answer at all), a stopped process (SIGSTOP, a long GC pause: its kernel still accepts connections), and the Raft
 * server closing the idle connection (its TLS handshake timeout) followed by an accepted reconnect.
 *
 * <p>One thread; the target is set by the member's role loop ({@link #follow}).
 */
final class LeaderWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderWatch.class);
    /** A connect that takes longer says nothing about the leader (a host down): Raft's timeouts decide. */
    static final int CONNECT_TIMEOUT_MS = 500;
    /** A held connection closed sooner than this is a short one: see {@link #QUICK_RETRIES}. */
    static final long MIN_HOLD_MS = 1_000;
    /**
     * Short connections in a row that are followed by another connect within {@link #QUICK_RETRY_MS}; after that,
     * one connect per {@link #MIN_HOLD_MS} until a connection lasts (a server that closes idle connections at once
     * is not dialled in a loop). Needed because a dying process's kernel may close the held connection before its
     * listening socket: the reconnect is then accepted, into the backlog of the dying listener, and reset a few
     * milliseconds later; the next connect is refused.
     */
    static final int QUICK_RETRIES = 20;
    static final long QUICK_RETRY_MS = 25;

    /** Receives the verdict, on the watch's thread; must not block. */
    interface Listener {
        void gone(Target leader);
    }

    /** The leader of {@code term} and its Raft port (resolved or not). */
    record Target(String leaderId, long term, InetSocketAddress raftAddress) {
        Target {
            Objects.requireNonNull(leaderId);
            Objects.requireNonNull(raftAddress);
        }
    }

    private final Listener listener;
    private final Thread thread;
    private final Object lock = new Object();
    // guarded by lock
    private Target target;
    private Socket held;
    private boolean closed;

    LeaderWatch(String name, Listener listener) {
        this.listener = listener;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Watches {@code leader} from now on; {@code null} (this member leads, or knows no leader) watches nothing. */
    void follow(Target leader) {
        synchronized (lock) {
            if (closed || Objects.equals(leader, target)) {
                return;
            }
            target = leader;
            closeHeld();
            lock.notifyAll();
        }
    }

    private void run() {
        Target accepted = null; // the target whose address accepted a connection: only its refusal is a verdict
        int shortInRow = 0;
        while (true) {
            Target t;
            synchronized (lock) {
                while (!closed && target == null) {
                    waitQuietly(0);
                }
                if (closed) {
                    return;
                }
                t = target;
            }
            Socket s = new Socket();
            // resolved at each connect, as the Raft transport does: a name in ha.peers may move
            InetSocketAddress to = t.raftAddress().isUnresolved()
                    ? new InetSocketAddress(t.raftAddress().getHostString(), t.raftAddress().getPort()) : t.raftAddress();
            try {
                s.setTcpNoDelay(true);
                s.connect(to, CONNECT_TIMEOUT_MS);
            } catch (ConnectException e) {
                closeQuietly(s);
                if (t.equals(accepted) && refused(e)) {
                    LOG.info("ha: leader {} of term {} is gone: its Raft port {} closed the watch's connection and now refuses"
                            + " new ones (its process ended)", t.leaderId(), t.term(), to);
                    listener.gone(t);
                    awaitOtherThan(t, 0);
                } else {
                    awaitOtherThan(t, MIN_HOLD_MS);
                }
                shortInRow = 0;
                continue;
            } catch (IOException e) {
                // no answer in time, no route: nothing known about the process
                closeQuietly(s);
                awaitOtherThan(t, MIN_HOLD_MS);
                continue;
            }
            synchronized (lock) {
                if (closed || !t.equals(target)) {
                    closeQuietly(s);
                    continue;
                }
                held = s;
            }
            accepted = t;
            long begin = System.nanoTime();
            drainUntilClosed(s);
            synchronized (lock) {
                if (held == s) {
                    held = null;
                }
            }
            closeQuietly(s);
            long heldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
            if (heldMs >= MIN_HOLD_MS) {
                shortInRow = 0; // a connection that lasted: the next connect at once
            } else if (++shortInRow <= QUICK_RETRIES) {
                awaitOtherThan(t, QUICK_RETRY_MS);
            } else {
                awaitOtherThan(t, MIN_HOLD_MS - heldMs);
            }
        }
    }

    /** "Connection refused" (a closed port), not an unreachable host or network. */
    private static boolean refused(ConnectException e) {
        return e.getMessage() != null && e.getMessage().toLowerCase(Locale.ROOT).contains("refused");
    }

    /** Reads (and drops) whatever the server sends until the connection ends or {@link #follow} closes it. */
    private static void drainUntilClosed(Socket s) {
        byte[] sink = new byte[256];
        try {
            InputStream in = s.getInputStream();
            while (in.read(sink) >= 0) {
                // a Raft server says nothing to a connection that never starts its handshake; drop anything else
            }
        } catch (IOException e) {
            // reset, or closed by follow()
        }
    }

    /** Waits until the target is no longer {@code t}, or {@code ms} pass (0: only the former). */
    private void awaitOtherThan(Target t, long ms) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        synchronized (lock) {
            while (!closed && t.equals(target)) {
                long left = ms == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime());
                if (ms != 0 && left <= 0) {
                    return;
                }
                waitQuietly(left);
            }
        }
    }

    private void waitQuietly(long ms) {
        try {
            lock.wait(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    private void closeHeld() {
        if (held != null) {
            closeQuietly(held);
            held = null;
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            target = null;
            closeHeld();
            lock.notifyAll();
        }
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
