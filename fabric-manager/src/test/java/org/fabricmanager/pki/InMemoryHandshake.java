package org.fabricmanager.pki;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * One TLS handshake between a server and a client engine, driven in memory on the calling thread (delegated
 * tasks run inline): its outcome for tests, and the thread CPU each side spent for benchmarks (the handshake's
 * own cost, free of sockets and of the scheduling of a shared machine). {@link #release()} frees the engines.
 *
 * @param client   the client's engine (its session names the server's certificate after success)
 * @param server   the server's engine
 * @param failure  why the handshake failed, {@code null} when it succeeded
 * @param clientNs CPU the client side spent, nanoseconds
 * @param serverNs CPU the server side spent, nanoseconds
 */
public record InMemoryHandshake(SSLEngine client, SSLEngine server, SSLException failure, long clientNs, long serverNs) {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final int MAX_FLIGHTS = 16;

    /** Runs the handshake; a failure is returned, not thrown. */
    public static InMemoryHandshake run(SslContext server, SslContext client) {
        SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, "127.0.0.1", 6000);
        SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        ByteBuffer toServer = ByteBuffer.allocate(1 << 17);
        ByteBuffer toClient = ByteBuffer.allocate(1 << 17);
        long clientNs = 0;
        long serverNs = 0;
        try {
            c.beginHandshake();
            s.beginHandshake();
            for (int flight = 0; flight < MAX_FLIGHTS; flight++) {
                long t0 = CPU.getCurrentThreadCpuTime();
                step(c, toClient, toServer);
                long t1 = CPU.getCurrentThreadCpuTime();
                step(s, toServer, toClient);
                serverNs += CPU.getCurrentThreadCpuTime() - t1;
                clientNs += t1 - t0;
                if (done(c) && done(s) && toServer.position() == 0 && toClient.position() == 0) {
                    return new InMemoryHandshake(c, s, null, clientNs, serverNs);
                }
            }
            throw new IllegalStateException("no handshake after " + MAX_FLIGHTS + " flights: client "
                    + c.getHandshakeStatus() + ", server " + s.getHandshakeStatus());
        } catch (SSLException e) {
            return new InMemoryHandshake(c, s, e, clientNs, serverNs);
        }
    }

    /** Frees the engines (BoringSSL's are reference counted). */
    public void release() {
        ReferenceCountUtil.release(client);
        ReferenceCountUtil.release(server);
    }

    private static boolean done(SSLEngine e) {
        return e.getHandshakeStatus() == HandshakeStatus.NOT_HANDSHAKING;
    }

    /** Reads what the peer sent, runs the engine's delegated tasks, and writes what it has to send. */
    private static void step(SSLEngine e, ByteBuffer in, ByteBuffer out) throws SSLException {
        ByteBuffer app = ByteBuffer.allocate(1 << 17);
        ByteBuffer none = ByteBuffer.allocate(0);
        for (int i = 0; i < MAX_FLIGHTS; i++) {
            in.flip();
            int consumed = e.unwrap(in, app).bytesConsumed();
            in.compact();
            runTasks(e);
            int produced = e.wrap(none, out).bytesProduced();
            runTasks(e);
            if (consumed == 0 && produced == 0 && e.getHandshakeStatus() != HandshakeStatus.NEED_TASK) {
                return;
            }
        }
    }

    private static void runTasks(SSLEngine e) {
        for (Runnable task = e.getDelegatedTask(); task != null; task = e.getDelegatedTask()) {
            task.run();
        }
    }
}
