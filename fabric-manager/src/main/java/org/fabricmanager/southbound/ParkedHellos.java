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
    /** Each parked connection and its HELLO. */
    private final Map<Channel, Message.Hello> parked = new ConcurrentHashMap<>();

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
    void park(Channel channel, Message.Hello hello) {
        if (maxParkMs == 0) {
            answer(channel, hello, "");
            return;
        }
        parked.put(channel, hello);
        channel.closeFuture().addListener(f -> parked.remove(channel));
        channel.eventLoop().schedule(() -> {
            Message.Hello h = parked.remove(channel);
            if (h != null) {
                answer(channel, h, "");
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
            Message.Hello h = parked.remove(ch);
            if (h != null) {
                answer(ch, h, leader);
                n++;
            }
        }
        return n;
    }

    /**
     * Answers {@code hello} with NOT_LEADER naming {@code leader} ({@code HOST:PORT}, or empty) and closes: in its
     * text, and as fields too when the agent reads them ({@link Protocol#FEATURE_REDIRECT_FIELDS}).
     */
    static void answer(Channel channel, Message.Hello hello, String leader) {
        Message.ErrorReport answer = notLeader(hello.txid(), leader, (hello.features() & Protocol.FEATURE_REDIRECT_FIELDS) != 0);
        channel.eventLoop().execute(() -> channel.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE));
    }

    /**
     * NOT_LEADER answering HELLO {@code helloTxid}: its text is the active manager's {@code HOST:PORT} (empty when
     * none is known), with that address as fields too when {@code fields} and the text names one.
     */
    static Message.ErrorReport notLeader(int helloTxid, String leader, boolean fields) {
        return new Message.ErrorReport(helloTxid, ErrorCode.NOT_LEADER.code(), MessageType.HELLO.code(), leader,
                fields ? ManagerAddress.parse(leader).orElse(null) : null);
    }
}
