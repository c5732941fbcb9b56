package org.fabricmanager.detector.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.security.SecureRandom;
import java.util.List;
import org.fabricmanager.detector.message.Heartbeat;

/**
 * Runs a member's datagram path (encode, seal, open, replay check, decode) on a throwaway key and ring, so that
 * the JIT compiles it before a ring needs it. A process that starts thousands of members at once (the simulator)
 * otherwise runs their first tens of thousands of HMAC-SHA-256 computations interpreted, while its event loops
 * also start the members: at 5,120 switches on 2 cores that was three quarters of a simulator's CPU 15-40 s after
 * the ring started, and its members started so late that their neighbours declared them dead. One member in a
 * process (an agent, the daemon) sends too few datagrams to need this.
 */
public final class DatagramRehearsal {
    private static final int MEMBERS = 64;

    private DatagramRehearsal() {
    }

    /**
     * Sends {@code datagrams} heartbeats through the whole path and back.
     *
     * @return how many of them came through intact (all of them, unless the path is broken)
     */
    public static int run(int datagrams) {
        byte[] key = new byte[DatagramSeal.KEY_BYTES];
        new SecureRandom().nextBytes(key);
        DatagramSeal sender = new DatagramSeal(key);
        DatagramSeal receiver = new DatagramSeal(key);
        MessageCodec codec = new MessageCodec(MEMBERS, 0x5eed);
        ReplayWindow window = new ReplayWindow(MEMBERS);
        long sequence = ReplayWindow.firstSequence(System.currentTimeMillis());
        int intact = 0;
        for (int i = 0; i < datagrams; i++) {
            int from = i % MEMBERS;
            Heartbeat beat = new Heartbeat(from, 1, i);
            List<ByteBuf> encoded = codec.encode(beat, (from + 1) % MEMBERS, PooledByteBufAllocator.DEFAULT,
                    DatagramSeal.OVERHEAD);
            for (ByteBuf datagram : encoded) {
                try {
                    sender.seal(datagram, ++sequence);
                    long seen = receiver.open(datagram);
                    if (seen == sequence && window.accept(from, 1, seen) == ReplayWindow.Verdict.ACCEPTED
                            && beat.equals(codec.decode(DatagramSeal.message(datagram)))) {
                        intact++;
                    }
                } catch (MalformedMessageException e) {
                    throw new IllegalStateException("the rehearsal's own heartbeat did not decode", e);
                } finally {
                    datagram.release();
                }
            }
        }
        return intact;
    }
}
