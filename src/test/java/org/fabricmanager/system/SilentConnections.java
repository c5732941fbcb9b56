package org.fabricmanager.system;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.testing.Await;

/**
 * Local connections to a Unix socket that never send a byte, each watched for the moment the other end closes it and
 * how long after it was opened: a listener that closes a silent connection before its own deadline for a first frame
 * did so for another reason (OpenSM's socket: to admit a newer connection when every place was taken).
 */
final class SilentConnections implements AutoCloseable {
    /** One connection closed by the other end: when it was opened and closed ({@link System#nanoTime()}). */
    record Closed(int index, long openedNanos, long closedNanos) {
        /** Milliseconds from before it was opened to its close. */
        double ageMs() {
            return (closedNanos - openedNanos) / 1e6;
        }
    }

    private final List<SocketChannel> channels = new ArrayList<>();
    private final List<Thread> watchers = new ArrayList<>();
    /** Guarded by itself, in the order they closed. */
    private final List<Closed> closed = new ArrayList<>();

    private SilentConnections() {
    }

    /** Opens {@code count} connections to {@code socket}, one after the other, and watches each. */
    static SilentConnections open(Path socket, int count) throws IOException {
        SilentConnections s = new SilentConnections();
        try {
            for (int i = 0; i < count; i++) {
                long opening = System.nanoTime();
                SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                s.channels.add(ch);
                int index = i;
                Thread t = new Thread(() -> s.watch(index, ch, opening), "silent-" + i);
                t.setDaemon(true);
                s.watchers.add(t);
                t.start();
            }
        } catch (IOException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** Blocks until the other end closes {@code ch}; records when, from before it was opened. */
    private void watch(int index, SocketChannel ch, long openingNanos) {
        try {
            while (ch.read(ByteBuffer.allocate(1)) >= 0) {
                // the listener sends nothing to a connection that said nothing: not reached
            }
        } catch (IOException e) {
            if (!ch.isOpen()) {
                return; // closed here by close()
            }
            // reset by the other end: closed there as well
        }
        long now = System.nanoTime();
        synchronized (closed) {
            closed.add(new Closed(index, openingNanos, now));
        }
    }

    /** The connections the other end closed so far, in that order. */
    List<Closed> closed() {
        synchronized (closed) {
            return List.copyOf(closed);
        }
    }

    /** Waits until the other end closed every connection; their closes in order. */
    List<Closed> awaitAllClosed(Duration timeout) {
        return Await.value("the listener closed all " + channels.size() + " silent connections", timeout, this::closed,
                c -> c.size() == channels.size());
    }

    @Override
    public void close() {
        for (SocketChannel ch : channels) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing: nothing to keep
            }
        }
        for (Thread t : watchers) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
