package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The agents' HELLOs a hot-standby manager holds while it knows no live leader (an election is under way):
 * instead of answering {@code NOT_LEADER} with no address, which sends every agent round the managers again
 * and again (at 768 switches thousands of refused connections a second on the hosts that hold the
 * election), the standby keeps each connection open and unanswered until it can name the new active
 * manager ({@link #release}), at most {@code maxParkMs} (then it answers with no address, as before, so an
 * agent never waits on a group without a majority). Thread-safe: HELLOs arrive on the I/O threads, the
 * release comes from the member's role watcher; each answer is written on its channel's event loop.
 */
public final class ParkedHellos {
    private final long maxParkMs;
    /** Each parked connection and its HELLO's transaction id. */
    private final Map<Channel, Integer> parked = new ConcurrentHashMap<>();

    /** @param maxParkMs how long a HELLO is held at most before it is answered with no address (0: never held) */
    public ParkedHellos(long maxParkMs) {
        if (maxParkMs < 0) {
            throw new IllegalArgumentException("parking a HELLO for " + maxParkMs + " ms");
        }
        this.maxParkMs = maxParkMs;
    }

    /** HELLOs held now. */
    public int size() {
        return parked.size();
    }

    /** Holds {@code hello} on {@code channel} (I/O thread); answered with no address after the maximum. */
    void park(Channel channel, int txid) {
        if (maxParkMs == 0) {
            answer(channel, txid, "");
            return;
        }
        parked.put(channel, txid);
        channel.closeFuture().addListener(f -> parked.remove(channel));
        channel.eventLoop().schedule(() -> {
            Integer t = parked.remove(channel);
            if (t != null) {
                answer(channel, t, "");
            }
        }, maxParkMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Answers every held HELLO with {@code NOT_LEADER leader} and closes its connection: the agents connect to
     * {@code leader} at once.
     *
     * @param leader the active manager's southbound {@code HOST:PORT}
     * @return how many were held
     */
    public int release(String leader) {
        int n = 0;
        for (Channel ch : parked.keySet()) {
            Integer t = parked.remove(ch);
            if (t != null) {
                answer(ch, t, leader);
                n++;
            }
        }
        return n;
    }

    static void answer(Channel channel, int txid, String leader) {
        channel.eventLoop().execute(() -> channel.writeAndFlush(new Message.ErrorReport(txid, ErrorCode.NOT_LEADER.code(),
                MessageType.HELLO.code(), leader)).addListener(ChannelFutureListener.CLOSE));
    }
}
