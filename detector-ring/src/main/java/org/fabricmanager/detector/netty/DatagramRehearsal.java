package org.fabricmanager.detector.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.SecureRandom;
import java.util.List;
import org.fabricmanager.detector.message.Heartbeat;

/**
 * Runs a member's datagram path (encode, seal, open, replay check, decode) on a throwaway key and ring, so that
 * the JIT compiles it before a ring needs it. A process that starts thousands of members at once (the simulator)
 * otherwise runs their first tens of thousands of HMAC-SHA-256 computations interpreted, while its event loops
 * also start the members: at 5,120 switches on 2 cores that took most of a simulator's CPU after the ring started
 * (docs/performance.md, "Failure detector"), and its members started so late that their neighbours declared them
 * dead. One member in a process (an agent, the daemon) sends too few datagrams to need this.
 */
public final class DatagramRehearsal {
    private static final int MEMBERS = 64;
    /** Heartbeats timed together: long enough to measure, short enough to stop soon after the JIT's compilation. */
    static final int BATCH = 500;
    /** Batches in a row under the bound that count as compiled: one fast batch may be a lucky one. */
    static final int FAST_BATCHES = 3;
    /**
     * CPU time per heartbeat (seal, open, replay check, both codecs) under which the path counts as compiled: above
     * what the compiled path costs, even beside a busy process, and below what it costs while SHA-256 still runs
     * interpreted or in C1's code, without its intrinsic (docs/performance.md, "Failure detector").
     */
    public static final long COMPILED_NANOS_PER_HEARTBEAT = 20_000;

    /** What {@link #untilCompiled} did: the heartbeats sent, how many came through, and whether the path got fast. */
    public record Outcome(int heartbeats, int intact, boolean fast, long nanosPerHeartbeat, long elapsedNanos) {
    }

    private DatagramRehearsal() {
    }

    /**
     * Sends {@code datagrams} heartbeats through the whole path and back.
     *
     * @return how many of them came through intact (all of them, unless the path is broken)
     */
    public static int run(int datagrams) {
        return new Path().send(datagrams);
    }

    /**
     * Sends heartbeats through the path until {@value #FAST_BATCHES} batches in a row cost less than
     * {@link #COMPILED_NANOS_PER_HEARTBEAT} each of this thread's CPU time (the JIT has compiled it), or until
     * {@code maxHeartbeats} or {@code maxNanos} of wall time, whichever comes first. A fixed count was not enough:
     * on a loaded host the JIT's threads get the cores late, and members started meanwhile sent their datagrams
     * through interpreted SHA-256 until their event loops fell seconds behind (a ring storm at 5,120 switches).
     */
    public static Outcome untilCompiled(int maxHeartbeats, long maxNanos) {
        return untilFast(maxHeartbeats, maxNanos, COMPILED_NANOS_PER_HEARTBEAT);
    }

    static Outcome untilFast(int maxHeartbeats, long maxNanos, long fastNanosPerHeartbeat) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        // the thread's CPU time, not the wall clock's: a rehearsal that waits for a core is not a slow path
        boolean cpu = threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled();
        Path path = new Path();
        long begin = System.nanoTime();
        int sent = 0;
        int intact = 0;
        int fastInARow = 0;
        long last = Long.MAX_VALUE;
        while (sent < maxHeartbeats && fastInARow < FAST_BATCHES && System.nanoTime() - begin < maxNanos) {
            int n = Math.min(BATCH, maxHeartbeats - sent);
            long t0 = cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime();
            intact += path.send(n);
            long t1 = cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime();
            sent += n;
            last = (t1 - t0) / n;
            fastInARow = last < fastNanosPerHeartbeat ? fastInARow + 1 : 0;
        }
        return new Outcome(sent, intact, fastInARow >= FAST_BATCHES, last, System.nanoTime() - begin);
    }

    /** One throwaway ring's sending and receiving ends. */
    private static final class Path {
        private final DatagramSeal sender;
        private final DatagramSeal receiver;
        private final MessageCodec codec = new MessageCodec(MEMBERS, 0x5eed);
        private final ReplayWindow window = new ReplayWindow(MEMBERS);
        private long sequence = ReplayWindow.firstSequence(System.currentTimeMillis());
        private int beats;

        Path() {
            byte[] key = new byte[DatagramSeal.KEY_BYTES];
            new SecureRandom().nextBytes(key);
            sender = new DatagramSeal(key);
            receiver = new DatagramSeal(key);
        }

        int send(int datagrams) {
            int intact = 0;
            for (int k = 0; k < datagrams; k++) {
                int i = beats++;
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
}
