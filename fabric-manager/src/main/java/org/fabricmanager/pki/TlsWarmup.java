package org.fabricmanager.pki;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import javax.net.ssl.SSLEngine;

/**
 * Warms this JVM's southbound TLS code before it is needed all at once: a hot-standby manager that takes over
 * receives every agent's handshake within a second, and in a JVM that never ran a handshake each costs the new
 * leader several milliseconds of class loading, interpretation and compilation (the engine's Java half and the
 * JDK's PKIX check of the agent's chain) against a fraction of a millisecond warm. The warm-up runs handshakes in
 * memory between the daemon's own server context and a client context presenting the daemon's certificate
 * (issued for both TLS purposes), through the same context builders, engine and trust manager as the southbound.
 * Nothing touches the network, and nothing is kept.
 */
public final class TlsWarmup {
    /**
     * What a warm-up did.
     *
     * @param handshakes handshakes completed
     * @param millis     wall time taken
     * @param failure    why the warm-up stopped early (a handshake failed), or {@code null}
     */
    public record Result(int handshakes, long millis, String failure) {
    }

    private TlsWarmup() {
    }

    /**
     * Runs up to {@code handshakes} handshakes on the calling thread, stopping after {@code budgetMs} or at the first
     * failure (a daemon certificate issued for the server purpose only cannot act as the client here: the
     * warm-up is then skipped, a takeover is slower, not wrong).
     */
    public static Result run(TlsMaterial material, TlsEngine engine, int handshakes, long budgetMs) {
        long begin = System.nanoTime();
        long deadline = begin + budgetMs * 1_000_000L;
        SslContext server = TlsContexts.server(material, engine);
        SslContext client = TlsContexts.client(material, engine);
        try {
            int done = 0;
            while (done < handshakes && System.nanoTime() < deadline) {
                SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, "127.0.0.1", 0);
                SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
                try {
                    MemoryHandshake.Outcome o = MemoryHandshake.run(c, s, () -> 0L);
                    if (o.failure() != null) {
                        return new Result(done, (System.nanoTime() - begin) / 1_000_000L, o.failure().getMessage());
                    }
                } finally {
                    ReferenceCountUtil.release(c);
                    ReferenceCountUtil.release(s);
                }
                done++;
            }
            return new Result(done, (System.nanoTime() - begin) / 1_000_000L, null);
        } finally {
            ReferenceCountUtil.release(server);
            ReferenceCountUtil.release(client);
        }
    }
}
