package org.fabricmanager.daemon.opensm;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.fabricmanager.daemon.api.DaemonApi;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.southbound.SouthboundListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's end of OpenSM's plug-in: on the Unix socket of {@code opensm.socket}, with its admission checks
 * ({@link OpenSmSocket}), answers each SUBNET through {@link OpenSmRouting}, one at a time. EVENT frames (traps,
 * sweeps, LFT blocks set) go to {@link OpenSmEvents}; SET frames tell the switches' sessions whether OpenSM set the
 * tables a pass carried; and when the daemon hands its switches tables that no pass carried yet, {@link PassRequests}
 * asks the plug-in for a pass.
 */
public final class OpenSmProvider implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OpenSmProvider.class);
    /**
     * The longest the daemon works on one subnet before refusing it: above the plug-in's wait (5 s by default), below
     * what would hold the next subnet up for long once the plug-in has given up.
     */
    private static final long ANSWER_TIMEOUT_MS = 60_000;

    private final OpenSmRouting routing;
    private final OpenSmEvents events;
    private final OpenSmLiveness liveness;
    private final PassRequests passes;
    private final Object routingLock = new Object();
    private final AtomicLong subnets = new AtomicLong();
    /** Set once by {@link #start} (its frames need no more than the routing). */
    private volatile OpenSmSocket socket;
    private volatile boolean closed;

    private OpenSmProvider(SouthboundListener listener, DaemonApi api, UnixDomainSocketAddress address,
                           OpenSmEvents events, OpenSmLiveness liveness) {
        this.events = events;
        this.liveness = liveness;
        this.passes = new PassRequests(n -> socket != null && socket.requestPass(n), System::currentTimeMillis);
        this.routing = new OpenSmRouting(listener, api, address, passes, events::refused, liveness::lostWhy);
    }

    /**
     * Listens on {@code config.socket()}: a stale socket file is replaced, any other file there is refused; OpenSM's
     * events are counted in {@code registry} and recorded by {@code recorder} (any thread), and {@code liveness}
     * judges from now on whether OpenSM is there.
     *
     * @throws ConfigException when the socket cannot be created
     */
    public static OpenSmProvider start(OpenSm config, SouthboundListener listener, DaemonApi api,
                                       OpenSmLiveness liveness, MeterRegistry registry, OpenSmEvents.Recorder recorder) {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(Path.of(config.socket()).toAbsolutePath());
        OpenSmProvider p = new OpenSmProvider(listener, api, address,
                new OpenSmEvents(registry, recorder, System::currentTimeMillis), liveness);
        p.socket = OpenSmSocket.listen(config, "OpenSM provider", p.new Frames());
        liveness.start(new OpenSmLiveness.Listener() {
            @Override
            public void lost(String why) {
                p.routing.openSmLost(why);
            }

            @Override
            public void back(String how) {
                p.routing.openSmBack(how);
            }
        });
        LOG.info("OpenSM provider listening on {} (mode {}, users {})", p.socket.path(), config.socketMode(),
                p.socket.allowedUsers());
        return p;
    }

    /** The socket's path. */
    public Path socket() {
        return socket.path();
    }

    /** Subnets answered with tables so far. */
    public long subnetsRouted() {
        return subnets.get();
    }

    /** The provider's end of the socket's frames. */
    private final class Frames implements OpenSmSocket.Handler {
        @Override
        public void subnet(OpenSmSocket.Reply reply, OpenSmWire.Subnet subnet, double readMs)
                throws IOException, InterruptedException {
            answer(reply, subnet, readMs);
        }

        @Override
        public void event(OpenSmWire.Event event) {
            events.accept(event);
        }

        @Override
        public void counters(OpenSmWire.CounterChanges changes) {
            routing.counters(changes);
            liveness.countersDropped(changes.dropped());
        }

        @Override
        public void keepalive(OpenSmWire.Keepalive keepalive) {
            liveness.keepalive(keepalive);
            passes.keepalive(keepalive.smState(), keepalive.madsOutstanding());
        }

        @Override
        public void refused(Refusal why) {
            events.refusal(why);
        }

        @Override
        public void passRefusedUnread() {
            passes.passSeen();
        }

        @Override
        public void tablesSet(OpenSmWire.TablesSet set) {
            int[] heldOfAnswered = routing.tablesSet(set);
            events.tablesSet(set, heldOfAnswered[0], heldOfAnswered[1]);
        }
    }

    private void answer(OpenSmSocket.Reply reply, OpenSmWire.Subnet subnet, double readMs)
            throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        OpenSmAnswer answer;
        long covered = -1;
        double ms;
        passes.passStarted();
        try {
            synchronized (routingLock) {
                if (closed) {
                    return;
                }
                answer = routing.answer(subnet, ANSWER_TIMEOUT_MS);
            }
            try {
                reply.send(answer);
            } finally {
                ms = (System.nanoTime() - t0) / 1e6;
                synchronized (routingLock) {
                    routing.writeFallbackFiles(); // after the answer: OpenSM's pass does not wait for them
                }
            }
            if (answer.carriesTables()) {
                covered = routing.lastHanded();
            }
        } finally {
            passes.passEnded(covered);
        }
        boolean tables = covered >= 0;
        if (tables) {
            subnets.incrementAndGet();
            LOG.info("OpenSM subnet {} ({} switches, {} CA ports) answered in {} ms ({}; read in {} ms)", subnet.seq(),
                    subnet.switches().size(), subnet.endPorts().size(), String.format("%.1f", ms),
                    routing.lastBreakdown(), String.format("%.1f", readMs));
        } else if (answer instanceof OpenSmAnswer.Refused r) {
            LOG.warn("OpenSM subnet {} refused ({}) after {} ms: {}", subnet.seq(), r.why(), String.format("%.1f", ms),
                    r.reason());
        }
    }

    /** Stops listening, removes the socket file and closes the switches' sessions. */
    @Override
    public void close() {
        closed = true;
        passes.close();
        socket.close();
        synchronized (routingLock) {
            routing.closeAll("the daemon stops");
        }
    }

    /** The users admitted (for tests and the start-up line). */
    List<String> allowedUsers() {
        return socket.allowedUsers();
    }
}
