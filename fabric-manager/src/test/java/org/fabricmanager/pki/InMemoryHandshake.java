package org.fabricmanager.pki;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
        SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, "127.0.0.1", 6000);
        SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        MemoryHandshake.Outcome o = MemoryHandshake.run(c, s, CPU::getCurrentThreadCpuTime);
        return new InMemoryHandshake(c, s, o.failure(), o.clientNs(), o.serverNs());
    }

    /** Frees the engines (BoringSSL's are reference counted). */
    public void release() {
        ReferenceCountUtil.release(client);
        ReferenceCountUtil.release(server);
    }
}
