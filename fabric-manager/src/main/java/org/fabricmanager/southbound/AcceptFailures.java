package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a listening socket's pipeline: when accepting fails (typically "Too many open files", the
 * process out of descriptors), Netty's acceptor pauses accepting for a second and hands the error on, and without
 * this handler the pipeline's tail logs it with its whole stack trace, every second, per listener. Here it is one
 * WARN line at most per interval per listener, with the failures counted since the last line. Added with
 * {@link #install} after the listener is bound (so that it comes after the acceptor). Thread-safe.
 */
@ChannelHandler.Sharable
public final class AcceptFailures extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptFailures.class);
    /** At most one line per listener this often. */
    static final long INTERVAL_MS = 10_000;

    private final String listener;
    private final LongSupplier clockMs;
    // guarded by this
    private long lastLineMs = Long.MIN_VALUE / 2;
    private long sinceLastLine;
    private long total;

    /** @param listener what the log line calls the listener, e.g. "REST 127.0.0.1:7680" */
    public AcceptFailures(String listener, LongSupplier clockMs) {
        this.listener = listener;
        this.clockMs = clockMs;
    }

    /** Puts a new handler for {@code listener} at the end of the bound {@code serverChannel}'s pipeline. */
    public static AcceptFailures install(Channel serverChannel, String listener) {
        AcceptFailures h = new AcceptFailures(listener, System::currentTimeMillis);
        serverChannel.pipeline().addLast(h);
        return h;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String line = null;
        synchronized (this) {
            total++;
            sinceLastLine++;
            long now = clockMs.getAsLong();
            if (now - lastLineMs >= INTERVAL_MS) {
                line = listener + ": accepting a connection failed " + sinceLastLine + " time(s) since the last such "
                        + "line (" + total + " in all), accepting paused 1 s each time: " + cause;
                sinceLastLine = 0;
                lastLineMs = now;
            }
        }
        if (line != null) {
            LOG.warn(line);
        } else {
            LOG.debug("{}: accepting a connection failed: {}", listener, cause.toString());
        }
    }

    /** Accept failures so far. */
    public synchronized long total() {
        return total;
    }
}
