package org.fabricmanager.daemon.rest;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connections one REST listener keeps open: at most {@code max} in all and a quarter of them (at least one) per
 * peer address, so that one client holding connections open can neither take the process's descriptors nor lock
 * the other clients out. A connection over either bound is closed as soon as accepted, before anything is read or
 * allocated for it. Thread-safe (every REST I/O thread admits).
 */
final class ConnectionCap {
    private final int max;
    private final int perPeer;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> byPeer = new ConcurrentHashMap<>();

    ConnectionCap(int max) {
        this.max = max;
        this.perPeer = Math.max(1, max / 4);
    }

    /** Connections one peer address may keep open. */
    int perPeer() {
        return perPeer;
    }

    /** Connections open now. */
    int open() {
        return open.get();
    }

    /**
     * Counts {@code ch} in, to be counted out when it closes; false, counting nothing, when it is over a bound (the
     * caller closes it).
     */
    boolean admit(Channel ch) {
        InetAddress peer = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        if (peer != null) {
            boolean[] over = {false};
            byPeer.compute(peer, (p, n) -> {
                int now = n == null ? 0 : n;
                if (now >= perPeer) {
                    over[0] = true;
                    return n;
                }
                return now + 1;
            });
            if (over[0]) {
                open.decrementAndGet();
                return false;
            }
        }
        ch.closeFuture().addListener(f -> {
            open.decrementAndGet();
            if (peer != null) {
                byPeer.computeIfPresent(peer, (p, n) -> n == 1 ? null : n - 1);
            }
        });
        return true;
    }
}
