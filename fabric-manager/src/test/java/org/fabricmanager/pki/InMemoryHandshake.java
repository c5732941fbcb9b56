package org.fabricmanager.pki;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * One TLS handshake between a server and a client context ({@link MemoryHandshake} on fresh engines): its outcome
 * for tests, and the thread CPU each side spent for benchmarks. {@link #release()} frees the engines.
 *
 * @param client   the client's engine (its session names the server's certificate after success)
 * @param server   the server's engine
 * @param failure  why the handshake failed, {@code null} when it succeeded
 * @param clientNs CPU the client side spent, nanoseconds
 * @param serverNs CPU the server side spent, nanoseconds
 */
public record InMemoryHandshake(SSLEngine client, SSLEngine server, SSLException failure, long clientNs, long serverNs) {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    /** Runs the handshake; a failure is returned, not thrown. */
    public static InMemoryHandshake run(SslContext server, SslContext client) {
        return run(server, client, "127.0.0.1", 6000);
    }

    /**
     * As {@link #run(SslContext, SslContext)}, the client's engine made for {@code host:port} (its session-cache key),
     * and after a successful handshake a few bytes of application data each way, as a HELLO and its reply: BoringSSL's
     * client reads the server's session tickets (sent after the handshake) only when it reads application data.
     */
    public static InMemoryHandshake run(SslContext server, SslContext client, String host, int port) {
        SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, host, port);
        SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        MemoryHandshake.Outcome o = MemoryHandshake.run(c, s, CPU::getCurrentThreadCpuTime);
        SSLException failure = o.failure();
        if (failure == null) {
            try {
                exchange(c, s);
                exchange(s, c);
            } catch (SSLException e) {
                failure = e;
            }
        }
        return new InMemoryHandshake(c, s, failure, o.clientNs(), o.serverNs());
    }

    /** Sends four bytes from {@code from} to {@code to}, with whatever {@code from} had pending (tickets). */
    private static void exchange(SSLEngine from, SSLEngine to) throws SSLException {
        ByteBuffer wire = ByteBuffer.allocate(1 << 17);
        ByteBuffer data = ByteBuffer.wrap(new byte[]{1, 2, 3, 4});
        for (int i = 0; i < 8 && (data.hasRemaining() || i == 0); i++) {
            from.wrap(data, wire);
        }
        wire.flip();
        ByteBuffer app = ByteBuffer.allocate(1 << 17);
        for (int i = 0; i < 16 && wire.hasRemaining(); i++) {
            to.unwrap(wire, app);
        }
    }

    /** Frees the engines (BoringSSL's are reference counted). */
    public void release() {
        ReferenceCountUtil.release(client);
        ReferenceCountUtil.release(server);
    }
}
