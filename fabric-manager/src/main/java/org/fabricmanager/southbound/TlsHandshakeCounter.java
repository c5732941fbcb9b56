package org.fabricmanager.southbound;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.concurrent.atomic.LongAdder;
import org.fabricmanager.pki.TlsContexts;

/**
 * Counts the southbound's completed TLS handshakes by kind, {@value #METER}{@code {kind}}: {@code full} (both ends
 * authenticated anew: a key exchange, a signature and the check of the agent's certificate chain) or
 * {@code resumed} (an agent's session ticket, sealed by this daemon's run, an earlier one, or another manager of the
 * group, docs/security.md). Known on BoringSSL; the JDK's engine counts every handshake as full. One shared handler per
 * server, placed after the TLS handler.
 */
@ChannelHandler.Sharable
final class TlsHandshakeCounter extends ChannelInboundHandlerAdapter {
    /** Counter of completed TLS handshakes, tagged {@code kind}: {@code full} or {@code resumed}. */
    static final String METER = "fabric.southbound.tls.completed";

    private final LongAdder full = new LongAdder();
    private final LongAdder resumed = new LongAdder();
    private final Counter fullMeter;
    private final Counter resumedMeter;

    /** @param registry where the counter is registered ({@code null}: counted in memory only) */
    TlsHandshakeCounter(MeterRegistry registry) {
        if (registry != null) {
            fullMeter = Counter.builder(METER).tag("kind", "full").description("TLS handshakes completed with both ends"
                    + " authenticated anew").register(registry);
            resumedMeter = Counter.builder(METER).tag("kind", "resumed").description("TLS handshakes completed by resuming"
                    + " an agent's session ticket").register(registry);
        } else {
            fullMeter = null;
            resumedMeter = null;
        }
    }

    long full() {
        return full.sum();
    }

    long resumed() {
        return resumed.sum();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
            SslHandler tls = ctx.pipeline().get(SslHandler.class);
            if (tls != null && TlsContexts.resumed(tls.engine())) {
                resumed.increment();
                if (resumedMeter != null) {
                    resumedMeter.increment();
                }
            } else {
                full.increment();
                if (fullMeter != null) {
                    fullMeter.increment();
                }
            }
        }
        super.userEventTriggered(ctx, evt);
    }
}
